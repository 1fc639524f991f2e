/**
 * `POST /webhooks/billing-provider` (spec 4.7, DESIGN 3.5): records each provider event once and
 * publishes `billing.payment_processed` for the ones that change a supporter tier.
 */
import type { Config } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { secretsMatch } from "../../platform/hmac.ts";
import { errorResponse, parseJson } from "../../platform/contract/mod.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import type { EventPublisher } from "../events.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  BILLING_PROVIDER,
  parseBillingEvent,
  paymentOutcome,
  planForProduct,
  tierAction,
} from "./rules.ts";
import { recordPayment } from "./store.ts";

export interface BillingWebhookDeps {
  config: Pick<Config, "billingWebhookSecret">;
  db: Database;
  tracker: ErrorTracker;
  events: EventPublisher;
  users: Pick<UsersApi, "userByPublicId">;
}

export function billingWebhook(deps: BillingWebhookDeps): RouteHandler {
  const sql = deps.db.sql;
  return async (req, ctx) => {
    const authorization = req.headers.get("authorization");
    if (!await secretsMatch(deps.config.billingWebhookSecret, authorization)) {
      const reason = !deps.config.billingWebhookSecret
        ? "secret unset"
        : authorization === null
        ? "missing"
        : "mismatch";
      deps.tracker.captureWarning("billing webhook authorization rejected", {
        request_id: ctx.requestId,
        path: "/webhooks/billing-provider",
        reason,
      });
      return errorResponse("unauthorized", "missing or wrong Authorization");
    }
    const parsed = parseJson(ctx.rawBody);
    if (!parsed.ok) return errorResponse("malformed_json", "the body is not JSON");
    const event = parseBillingEvent(parsed.value);
    if (typeof event === "string") return errorResponse("invalid_body", event);

    const action = tierAction(event.type);
    const plan = planForProduct(event.productId);
    const user = await deps.users.userByPublicId(event.appUserId);
    const outcome = paymentOutcome(action, plan, user !== null);

    const record = await sql.begin(async (tx) => {
      const row = await recordPayment(tx, {
        provider: BILLING_PROVIDER,
        event,
        plan,
        userId: user?.id ?? null,
        outcome,
      });
      if (row && outcome === "processed" && action !== "none") {
        await deps.events.publish(tx, "billing.payment_processed", {
          paymentId: row.publicId,
          provider: BILLING_PROVIDER,
          userPublicId: user!.publicId,
          plan: plan!,
          action,
        });
      }
      return row;
    });

    if (!record) {
      ctx.log.info("billing event replayed", { provider_event_id: event.id });
      return json({ status: "duplicate", provider_event_id: event.id });
    }
    if (outcome === "unknown_user" || outcome === "unknown_product") {
      deps.tracker.captureWarning(`billing event recorded with ${outcome.replace("_", " ")}`, {
        request_id: ctx.requestId,
        provider_event_id: event.id,
        event_type: event.type,
        product_id: event.productId,
        app_user_id: event.appUserId,
      });
    }
    return json({ status: "recorded", outcome, provider_event_id: event.id });
  };
}
