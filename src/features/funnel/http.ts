/** `POST /integrations/activation-funnel` (spec 4.6): signed, read-only weekly activation counts. */
import type { Config } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import { readSignedJson } from "../../http/signed.ts";
import { buildReport, funnelWindows, validCounts } from "./rules.ts";
import { funnelCounts } from "./store.ts";

export function activationFunnelHandler(
  deps: { config: Config; db: Database; clock: Clock; tracker: ErrorTracker },
): RouteHandler {
  return async (req, ctx) => {
    const read = await readSignedJson(req, ctx, deps.config.workforceWebhookSecret);
    if (!read.ok) return read.response;
    if (!read.body || typeof read.body !== "object" || Array.isArray(read.body)) {
      return json({ error: "invalid_body", message: "body must be the JSON object {}" }, 400);
    }
    const asOf = deps.clock.now();
    try {
      const { previous, current } = await funnelCounts(deps.db.sql, funnelWindows(asOf));
      if (!validCounts(previous) || !validCounts(current)) {
        throw new Error("activation funnel counts are incomplete or negative");
      }
      return json(buildReport(asOf, current, previous));
    } catch (err) {
      deps.tracker.captureError(err, {
        request_id: ctx.requestId,
        path: "/integrations/activation-funnel",
      });
      return json({
        error: "funnel_computation_failed",
        message: "the activation funnel could not be computed",
        request_id: ctx.requestId,
      }, 422);
    }
  };
}
