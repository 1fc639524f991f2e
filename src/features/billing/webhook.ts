/**
 * `POST /webhooks/billing-provider` (spec 4.7, DESIGN 3.5) and the `billing.payment_processed`
 * subscriber that sets `users.supporter_tier`.
 */
import type { FeatureDeps } from "../../app.ts";
import type { Queryable } from "../../platform/db.ts";
import { secretsMatch } from "../../platform/hmac.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { Logger } from "../../platform/log.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import { parseJson } from "../../http/signed.ts";
import { setSupporterTier, userByPublicId } from "../users/store.ts";
import {
  BILLING_PROVIDER,
  parseBillingEvent,
  parsePaymentProcessed,
  PAYMENT_PROCESSED,
  paymentOutcome,
  type PaymentProcessed,
  planForProduct,
  tierAction,
  tierChange,
} from "./rules.ts";
import { recordPayment } from "./store.ts";

/**
 * The one subscriber of `billing.payment_processed` (the card-payment path publishes the same
 * event): grants or revokes the user's supporter tier. A payload it cannot use, or a user that is
 * gone, is logged and dropped rather than retried forever.
 */
export async function applyPaymentToTier(
  sql: Queryable,
  log: Logger,
  payload: unknown,
): Promise<void> {
  const event = parsePaymentProcessed(payload);
  if (!event) {
    log.warn("billing.payment_processed payload ignored", { payload });
    return;
  }
  const user = await userByPublicId(sql, event.userPublicId);
  if (!user) {
    log.warn("billing.payment_processed for a user that no longer exists", {
      payment_id: event.paymentId,
    });
    return;
  }
  const change = tierChange(event.action, event.plan);
  if (!change) return;
  const changed = await setSupporterTier(sql, user.id, change.tier, change.unlessTier);
  log.info("supporter tier updated", {
    payment_id: event.paymentId,
    user_id: user.publicId,
    action: event.action,
    plan: event.plan,
    changed,
  });
}

/** Registers the subscriber and returns the webhook's route handler. */
export function billingWebhook(deps: FeatureDeps): RouteHandler {
  const sql = deps.db.sql;
  deps.jobs.subscribe(
    PAYMENT_PROCESSED,
    "users.supporter_tier",
    (payload) => applyPaymentToTier(sql, deps.log.child({ component: "billing" }), payload),
  );

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
      return json({ error: "unauthorized" }, 401);
    }
    const parsed = parseJson(ctx.rawBody);
    if (!parsed.ok) return json({ error: "malformed_json" }, 400);
    const event = parseBillingEvent(parsed.value);
    if (typeof event === "string") return json({ error: "invalid_body", message: event }, 400);

    const action = tierAction(event.type);
    const plan = planForProduct(event.productId);
    const user = event.appUserId && looksLikePublicId(event.appUserId)
      ? await userByPublicId(sql, event.appUserId)
      : null;
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
        const payload: PaymentProcessed = {
          paymentId: row.publicId,
          provider: BILLING_PROVIDER,
          userPublicId: user!.publicId,
          plan: plan!,
          action,
        };
        await deps.jobs.publish(tx, PAYMENT_PROCESSED, payload);
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
