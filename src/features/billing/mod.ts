/**
 * Supporter purchases (spec 4.7): the billing provider's webhook, and the subscriber that turns
 * each processed payment into the user's supporter tier (lifetime is never replaced or revoked).
 */
import type { Logger } from "../../platform/log.ts";
import type { PaymentProcessed } from "../events.ts";
import { type Feature, on } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import { tierChange } from "./rules.ts";
import { billingWebhook, type BillingWebhookDeps } from "./webhook.ts";

export interface BillingDeps extends BillingWebhookDeps {
  log: Logger;
  users: Pick<UsersApi, "userByPublicId" | "setSupporterTier">;
}

export function billingFeature(deps: BillingDeps): Feature {
  const log = deps.log.child({ component: "billing" });

  /** Grants or revokes the tier; a user that is gone is logged and dropped, not retried. */
  async function applyPaymentToTier(payment: PaymentProcessed): Promise<void> {
    const user = await deps.users.userByPublicId(payment.userPublicId);
    if (!user) {
      log.warn("billing.payment_processed for a user that no longer exists", {
        payment_id: payment.paymentId,
      });
      return;
    }
    const change = tierChange(payment.action, payment.plan);
    if (!change) return;
    const changed = await deps.users.setSupporterTier(user.id, change.tier, change.unlessTier);
    log.info("supporter tier updated", {
      payment_id: payment.paymentId,
      user_id: user.publicId,
      action: payment.action,
      plan: payment.plan,
      changed,
    });
  }

  return {
    name: "billing",
    routes: [{ method: "POST", path: "/webhooks/billing-provider", handler: billingWebhook(deps) }],
    subscriptions: [on("billing.payment_processed", "users.supporter_tier", applyPaymentToTier)],
    api: {},
  };
}
