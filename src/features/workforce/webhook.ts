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
  errorResponse,
  parseStorableJson,
  RunResultSchema,
  SIGNATURE_HEADER,
  type VerificationKeys,
  verificationSecrets,
  verifyHmacSignature,
} from "../../platform/contract/mod.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { isConcluded } from "./rules.ts";
import { roleOfRun, runOfResult, type Workforce, type WorkforceServiceDeps } from "./service.ts";

export function createResultWebhook(deps: {
  db: WorkforceServiceDeps["db"];
  tracker: ErrorTracker;
  /** The current secret and, during a rotation, the next one: a signature by either is accepted. */
  secrets: VerificationKeys;
  workforce: Pick<Workforce, "concludeFromResult">;
  /** Counts a concluded run's spend by employee role (`ai_spend_usd_total`). */
  metrics?: { aiSpend(employee: string, usd: number): void };
}) {
  return async (req: Request, ctx: RequestContext): Promise<Response> => {
    const signature = req.headers.get(SIGNATURE_HEADER);
    if (!(await verifyHmacSignature(deps.secrets, ctx.rawBody, signature))) {
      ctx.log.warn("workforce webhook signature rejected", {
        reason: verificationSecrets(deps.secrets).length === 0
          ? "secret unset"
          : signature === null
          ? "missing"
          : "invalid",
      });
      deps.tracker.captureWarning("workforce webhook: bad signature", {
        request_id: ctx.requestId,
      });
      return errorResponse("unauthorized", "missing or invalid X-Workforce-Signature");
    }
    const body = parseStorableJson(ctx.rawBody);
    if (!body.ok) return errorResponse("malformed_json", body.reason);
    const parsed = RunResultSchema.safeParse(body.value);
    if (!parsed.success) return errorResponse("invalid_body", describeIssues(parsed.error));
    const result = parsed.data;
    ctx.logParams = { run_id: result.run_id, status: result.status };
    const run = await runOfResult(deps, result.run_id);
    if (!run) {
      return errorResponse("unknown_run", "run_id names no run", { run_id: result.run_id });
    }
    // A run concluded by an earlier delivery of this result is a repeat (the runner retries);
    // one that ended without a result still takes the result's usage, once.
    if (isConcluded(run.status) && run.resultReceivedAt !== null) {
      return json({ run_id: result.run_id, status: run.status, duplicate: true });
    }
    const outcome = await deps.workforce.concludeFromResult(run, result);
    if (deps.metrics && outcome !== "duplicate") {
      deps.metrics.aiSpend((await roleOfRun(deps, run)) ?? "unknown", result.usage.cost_usd);
    }
    ctx.log.info("run result processed", { run_id: result.run_id, status: result.status, outcome });
    return json({
      run_id: result.run_id,
      status: outcome === "late" ? "failed" : result.status,
      duplicate: outcome === "duplicate",
      late: outcome === "late",
    });
  };
}
