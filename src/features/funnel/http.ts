/** `POST /integrations/activation-funnel` (spec 4.6): signed, read-only weekly activation counts. */
import { type Config, workforceVerificationKeys } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import { errorResponse } from "../../platform/contract/mod.ts";
import { readSignedJson } from "../../http/signed.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  buildReport,
  funnelWindows,
  parseFunnelRequest,
  stepCountsOf,
  validCounts,
} from "./rules.ts";
import { recordedStepCounts } from "./store.ts";
import { dependencyFailure } from "../../platform/dependency.ts";

export interface FunnelDeps {
  config: Pick<Config, "workforceWebhookSecret" | "workforceWebhookSecretNext">;
  db: Database;
  clock: Clock;
  tracker: ErrorTracker;
  users: Pick<UsersApi, "milestoneCounts">;
}

export function activationFunnelHandler(deps: FunnelDeps): RouteHandler {
  return async (req, ctx) => {
    const read = await readSignedJson(req, ctx, workforceVerificationKeys(deps.config));
    if (!read.ok) return read.response;
    const request = parseFunnelRequest(read.body);
    if (typeof request === "string") return errorResponse("invalid_body", request);
    const asOf = deps.clock.now();
    try {
      const windows = funnelWindows(asOf);
      const [users, recorded] = await Promise.all([
        deps.users.milestoneCounts(windows),
        recordedStepCounts(deps.db.sql, windows),
      ]);
      const { previous, current } = stepCountsOf(users, recorded);
      if (!validCounts(previous) || !validCounts(current)) {
        throw new Error("activation funnel counts are incomplete or negative");
      }
      return json(buildReport(asOf, current, previous));
    } catch (err) {
      // A dependency that is down is answered 503 by the app, not as a failed computation.
      if (dependencyFailure(err)) throw err;
      deps.tracker.captureError(err, {
        request_id: ctx.requestId,
        path: "/integrations/activation-funnel",
      });
      return errorResponse(
        "computation_failed",
        "the activation funnel could not be computed",
        { request_id: ctx.requestId },
      );
    }
  };
}
