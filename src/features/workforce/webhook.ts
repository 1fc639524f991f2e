/**
 * `POST /webhooks/ai-workforce` (spec 4.1, DESIGN 3.4): the runner's signed run result.
 *
 * 401 bad or missing signature or unset secret (the run is unchanged); 400 malformed JSON or a
 * body that fails validation; 422 `run_id` resolves to no run; 200 processed, and 200 again for a
 * repeat of a concluded run (nothing is created twice).
 */
import type { RequestContext } from "../../http/context.ts";
import { json } from "../../http/router.ts";
import {
  describeIssues,
  RunResultSchema,
  SIGNATURE_HEADER,
  verifyHmacSignature,
} from "../../platform/contract/mod.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { Database } from "../../platform/db.ts";
import { isConcluded } from "./rules.ts";
import type { Workforce } from "./service.ts";
import { runByPublicId } from "./store.ts";

export function createResultWebhook(deps: {
  db: Database;
  tracker: ErrorTracker;
  secret: string | undefined;
  workforce: Pick<Workforce, "concludeFromResult">;
}) {
  return async (req: Request, ctx: RequestContext): Promise<Response> => {
    const signature = req.headers.get(SIGNATURE_HEADER);
    if (!(await verifyHmacSignature(deps.secret, ctx.rawBody, signature))) {
      ctx.log.warn("workforce webhook signature rejected", {
        reason: !deps.secret ? "secret unset" : signature === null ? "missing" : "invalid",
      });
      deps.tracker.captureWarning("workforce webhook: bad signature", {
        request_id: ctx.requestId,
      });
      return json({ error: "unauthorized" }, 401);
    }
    let data: unknown;
    try {
      data = JSON.parse(new TextDecoder().decode(ctx.rawBody));
    } catch {
      return json({ error: "bad_request", message: "the body is not JSON" }, 400);
    }
    const parsed = RunResultSchema.safeParse(data);
    if (!parsed.success) {
      return json({ error: "bad_request", message: describeIssues(parsed.error) }, 400);
    }
    const result = parsed.data;
    ctx.logParams = { run_id: result.run_id, status: result.status };
    const run = looksLikePublicId(result.run_id)
      ? await runByPublicId(deps.db.sql, result.run_id)
      : null;
    if (!run) return json({ error: "unknown_run", run_id: result.run_id }, 422);
    if (isConcluded(run.status)) {
      return json({ run_id: result.run_id, status: run.status, duplicate: true });
    }
    const applied = await deps.workforce.concludeFromResult(run, result);
    ctx.log.info("run result processed", {
      run_id: result.run_id,
      status: result.status,
      duplicate: !applied,
    });
    return json({ run_id: result.run_id, status: result.status, duplicate: !applied });
  };
}
