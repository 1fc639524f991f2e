/**
 * Supporter purchases (spec 4.7): the billing provider's webhook, and the subscriber that turns
 * each processed payment into the user's supporter tier (lifetime is never replaced or revoked).
 */
import type { Logger } from "../../platform/log.ts";
import type { PaymentProcessed } from "../events.ts";
import { type Feature, on } from "../feature.ts";
import type { UserRow, UsersApi } from "../users/mod.ts";
import { LIFETIME, planHeld, tierChange } from "./rules.ts";
import { historyOfUser } from "./store.ts";
import { billingWebhook, type BillingWebhookDeps } from "./webhook.ts";
import { billingPersonalData } from "./personal-data.ts";

export interface BillingDeps extends BillingWebhookDeps {
  log: Logger;
  users: Pick<
    UsersApi,
    "userByPublicId" | "usersByPublicIds" | "setSupporterTier" | "replaceSupporterTier"
  >;
}

export function billingFeature(deps: BillingDeps): Feature {
  const log = deps.log.child({ component: "billing" });
  const sql = deps.db.sql;

  /** Grant or revoke: one guarded update (lifetime is never replaced or revoked by these). */
  async function grantOrRevoke(
    user: UserRow,
    payment: PaymentProcessed & { action: "grant" | "revoke" },
  ) {
    const change = tierChange(payment.action, payment.plan);
    return change
      ? await deps.users.setSupporterTier(user.id, change.tier, change.unlessTier)
      : false;
  }

  /** A lifetime refund: the tier falls back to what the user's other purchases still give. */
  async function refundLifetime(user: UserRow): Promise<boolean> {
    const fallback = planHeld(await historyOfUser(sql, user.id), deps.clock.now().getTime());
    if (fallback === LIFETIME) return false;
    return await deps.users.replaceSupporterTier(user.id, LIFETIME, fallback);
  }

  /** A transfer: the sources lose their tier, the destination gains the plan moved. */
  async function transferTier(user: UserRow, payment: PaymentProcessed): Promise<boolean> {
    const sources = await deps.users.usersByPublicIds(payment.fromUserPublicIds ?? []);
    for (const source of sources) {
      if (source.supporterTier === null) continue;
      const cleared = await deps.users.replaceSupporterTier(source.id, source.supporterTier, null);
      log.info("supporter tier transferred away", {
        payment_id: payment.paymentId,
        user_id: source.publicId,
        cleared,
      });
    }
    return await grantOrRevoke(user, { ...payment, action: "grant" });
  }

  /** Applies a processed payment to the tier; a user that is gone is logged and dropped. */
  async function applyPaymentToTier(payment: PaymentProcessed): Promise<void> {
    const user = await deps.users.userByPublicId(payment.userPublicId);
    if (!user) {
      log.warn("billing.payment_processed for a user that no longer exists", {
        payment_id: payment.paymentId,
      });
      return;
    }
    const { action } = payment;
    const changed = action === "refund"
      ? await refundLifetime(user)
      : action === "transfer"
      ? await transferTier(user, payment)
      : await grantOrRevoke(user, { ...payment, action });
    log.info("supporter tier updated", {
      payment_id: payment.paymentId,
      user_id: user.publicId,
      action,
      plan: payment.plan,
      changed,
    });
  }

  return {
    name: "billing",
    personalData: billingPersonalData(deps.db.sql),
    routes: [{ method: "POST", path: "/webhooks/billing-provider", handler: billingWebhook(deps) }],
    subscriptions: [on("billing.payment_processed", "users.supporter_tier", applyPaymentToTier)],
    api: {},
  };
}
