/**
 * Supporter purchases (spec 4.7): the billing provider's webhook, and the subscriber that turns
 * each processed payment into the user's supporter tier (lifetime is never replaced or revoked).
 */
import type { Logger } from "../../platform/log.ts";
import { type Feature, on } from "../feature.ts";
import { applyPaymentToTier } from "./service.ts";
import { billingWebhook, type BillingWebhookDeps } from "./webhook.ts";
import { billingPersonalData } from "./personal-data.ts";

export interface BillingDeps extends BillingWebhookDeps {
  log: Logger;
}

export function billingFeature(deps: BillingDeps): Feature {
  const log = deps.log.child({ component: "billing" });
  return {
    name: "billing",
    personalData: billingPersonalData(deps.db.sql),
    routes: [{ method: "POST", path: "/webhooks/billing-provider", handler: billingWebhook(deps) }],
    subscriptions: [
      on(
        "billing.payment_processed",
        "users.supporter_tier",
        (payment) => applyPaymentToTier({ ...deps, log }, payment),
      ),
    ],
    api: {},
  };
}
