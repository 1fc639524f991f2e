/** Pure rules of billing (spec 4.7, DESIGN 3.5): product mapping, event parsing, tier changes. */

import { z } from "zod";
import { describeIssues } from "../../platform/contract/mod.ts";
import { textProblem } from "../../platform/text.ts";

/** The `provider` of purchases that arrive by the billing webhook. */
export const BILLING_PROVIDER = "revenuecat";

export const PLAN_SLUGS = ["supporter_monthly", "supporter_yearly", "lifetime"] as const;
export type PlanSlug = typeof PLAN_SLUGS[number];
export const LIFETIME: PlanSlug = "lifetime";

/**
 * Product id → plan slug: the one table. A store-suffixed id (`<product_id>:<base_plan_id>`) is
 * looked up in full first, so a suffixed entry here overrides its base product.
 */
export const PRODUCT_PLANS: Readonly<Record<string, PlanSlug>> = {
  app_supporter_monthly: "supporter_monthly",
  app_supporter_yearly: "supporter_yearly",
  app_lifetime_99: "lifetime",
};

/** The plan of a product id: the full id first, then the part before the first colon. */
export function planForProduct(
  productId: string | null,
  table: Readonly<Record<string, PlanSlug>> = PRODUCT_PLANS,
): PlanSlug | null {
  if (!productId) return null;
  if (Object.hasOwn(table, productId)) return table[productId];
  const colon = productId.indexOf(":");
  if (colon <= 0) return null;
  const base = productId.slice(0, colon);
  return Object.hasOwn(table, base) ? table[base] : null;
}

/**
 * What an event does to a tier: `grant`, `revoke` (a subscription's EXPIRATION), `refund` (the
 * lifetime purchase cancelled: for a purchase that never renews, a CANCELLATION is a refund or a
 * revocation), `transfer` (the provider moved the purchases to another app user) or `none`.
 */
export type TierAction = "grant" | "revoke" | "refund" | "transfer" | "none";

const GRANTING = new Set([
  "INITIAL_PURCHASE",
  "RENEWAL",
  "NON_RENEWING_PURCHASE",
  "PRODUCT_CHANGE",
  "UNCANCELLATION",
]);

/**
 * Purchases and renewals grant; EXPIRATION revokes; CANCELLATION of the lifetime purchase is its
 * refund and REFUND_REVERSED gives it back; TRANSFER moves; anything else (a subscription's
 * CANCELLATION too: it runs to its end and EXPIRATION follows) is none.
 */
export function tierAction(eventType: string, plan: PlanSlug | null = null): TierAction {
  if (GRANTING.has(eventType)) return "grant";
  if (eventType === "EXPIRATION") return "revoke";
  if (eventType === "TRANSFER") return "transfer";
  if (plan === LIFETIME && eventType === "CANCELLATION") return "refund";
  if (plan === LIFETIME && eventType === "REFUND_REVERSED") return "grant";
  return "none";
}

/**
 * The new `supporter_tier` and the tiers it must not overwrite. Lifetime is never revoked or
 * replaced by a subscription; an expiring lifetime "subscription" changes nothing.
 */
export function tierChange(
  action: "grant" | "revoke",
  plan: PlanSlug,
): { tier: PlanSlug | null; unlessTier: PlanSlug[] } | null {
  if (action === "grant") {
    return plan === LIFETIME
      ? { tier: LIFETIME, unlessTier: [] }
      : { tier: plan, unlessTier: [LIFETIME] };
  }
  return plan === LIFETIME ? null : { tier: null, unlessTier: [LIFETIME] };
}

const PLAN_RANK: Record<PlanSlug, number> = {
  supporter_monthly: 1,
  supporter_yearly: 2,
  lifetime: 3,
};

/** The better of two tiers (lifetime above yearly above monthly); null for none. */
export function bestPlan(plans: readonly (string | null)[]): PlanSlug | null {
  let best: PlanSlug | null = null;
  for (const plan of plans) {
    if (plan === null || !Object.hasOwn(PLAN_RANK, plan)) continue;
    const slug = plan as PlanSlug;
    if (best === null || PLAN_RANK[slug] > PLAN_RANK[best]) best = slug;
  }
  return best;
}

/** One recorded event, as {@link planHeld} reads a subscriber's history. */
export interface HeldRecord {
  eventType: string;
  plan: PlanSlug | null;
  /** The event's `expiration_at_ms` (null when it had none). */
  expiresAtMs: unknown;
}

/**
 * The tier a history of events (oldest first) leaves: lifetime when bought and not refunded,
 * else the plan of the last subscription grant unless an EXPIRATION followed or its
 * `expiration_at_ms` has passed. Used where the tier must be worked out again: after a lifetime
 * refund, and for purchases made under an app user id that was not ours (a transfer's source).
 */
export function planHeld(records: readonly HeldRecord[], nowMs: number): PlanSlug | null {
  let lifetime = false;
  let subscription: { plan: PlanSlug; expiresAtMs: number | null } | null = null;
  for (const record of records) {
    const action = tierAction(record.eventType, record.plan);
    // A transfer in is a grant of the plan it moved.
    const granted = action === "grant" || action === "transfer";
    if (record.plan === LIFETIME) {
      if (granted) lifetime = true;
      if (action === "refund") lifetime = false;
    } else if (granted && record.plan) {
      const expires = record.expiresAtMs;
      subscription = {
        plan: record.plan,
        expiresAtMs: typeof expires === "number" && Number.isFinite(expires) ? expires : null,
      };
    } else if (action === "revoke") {
      subscription = null;
    }
  }
  if (lifetime) return LIFETIME;
  if (!subscription) return null;
  return subscription.expiresAtMs === null || subscription.expiresAtMs > nowMs
    ? subscription.plan
    : null;
}

/** The provider's ids for a user who has not signed in (never one of our public ids). */
export const ANONYMOUS_PREFIX = "$RCAnonymousID:";
const MAX_ALIASES = 50;

/**
 * The app user ids that may name our user, in the order the provider says to search them
 * (`app_user_id`, then `original_app_user_id`, then `aliases`), anonymous ids left out.
 */
export function userIdCandidates(
  event: Pick<BillingEvent, "appUserId" | "originalAppUserId" | "aliases">,
): string[] {
  const ids = [event.appUserId, event.originalAppUserId, ...event.aliases];
  const known = ids.filter((id): id is string => id !== null && !id.startsWith(ANONYMOUS_PREFIX));
  return [...new Set(known)];
}

/** The first candidate that names a user (`byPublicId` holds the users found). */
export function firstKnown<U>(candidates: readonly string[], byPublicId: Map<string, U>): U | null {
  for (const id of candidates) {
    const user = byPublicId.get(id);
    if (user) return user;
  }
  return null;
}

/** The store environments; a backend takes the events of one (`BILLING_ENVIRONMENT`). */
export const BILLING_ENVIRONMENTS = ["PRODUCTION", "SANDBOX"] as const;
export type BillingEnvironment = typeof BILLING_ENVIRONMENTS[number];

/** Whether an event belongs to this backend's environment (an event without one: production). */
export function sameEnvironment(event: string | null, backend: BillingEnvironment): boolean {
  return (event ?? "PRODUCTION").toUpperCase() === backend;
}

/** A billing event as recorded (DESIGN 3.5); fields the provider left out are null. */
export interface BillingEvent {
  id: string;
  type: string;
  appUserId: string | null;
  /** `original_app_user_id`: the first app user id the provider saw for this subscriber. */
  originalAppUserId: string | null;
  /** `aliases`: every app user id the subscriber has used (at most 50 kept). */
  aliases: string[];
  /** TRANSFER only: the app user ids the purchases moved from, and to. */
  transferredFrom: string[];
  transferredTo: string[];
  /** The product the event is about (for PRODUCT_CHANGE, the new product when given). */
  productId: string | null;
  /** `price_in_purchased_currency`: the amount in `currency` (negative for a refund). */
  amount: number | null;
  /** `price`: the same amount in USD. */
  amountUsd: number | null;
  currency: string | null;
  /** `cancel_reason` of a CANCELLATION (`CUSTOMER_SUPPORT` for a refund). */
  cancelReason: string | null;
  store: string | null;
  environment: string | null;
  occurredAt: Date | null;
  raw: Record<string, unknown>;
}

const MAX_ID = 255;

/** A provider text is usable when it has 1 to `max` characters of acceptable text. */
const usableText = (value: string, max: number) =>
  value.length > 0 && value.length <= max && textProblem(value, max) === null;

/** An identifying text (`event.id`, `event.type`): required, refused with a reason. */
const identifier = (max: number) => {
  const message = `must be a string of 1 to ${max} characters without control characters`;
  return z.string({ error: message }).refine((v) => usableText(v, max), { message });
};

/** Any other text: null when it is missing, not a string or not acceptable text. */
const optionalText = (max = 255) =>
  z.string().refine((v) => usableText(v, max)).nullable().catch(null);

/** An amount: null unless a number below a billion in size. */
const money = z.number().refine((v) => Math.abs(v) < 1e9).nullable().catch(null);

/** The usable strings of a JSON array (others dropped), at most {@link MAX_ALIASES}. */
const idList = z.array(optionalText()).catch([]).transform((ids) =>
  ids.filter((id): id is string => id !== null).slice(0, MAX_ALIASES)
);

/** Epoch milliseconds a `Date` can hold; null otherwise. */
const epochMs = z.number().min(0).lt(8.64e15).nullable().catch(null);

/**
 * The webhook body `{event: {id, type, ...}}` (spec 4.7). Only `event.id` and `event.type` are
 * required: anything else that is missing or odd reads as null (or an empty list), so the
 * provider is not made to retry a body we can still record. Unknown fields are allowed (the
 * whole body is kept as the raw event).
 */
export const BillingWebhookBodySchema = z.object({
  event: z.object({
    id: identifier(MAX_ID),
    type: identifier(100),
    app_user_id: optionalText(),
    original_app_user_id: optionalText(),
    aliases: idList,
    transferred_from: idList,
    transferred_to: idList,
    product_id: optionalText(),
    new_product_id: optionalText(),
    price_in_purchased_currency: money,
    price: money,
    currency: optionalText(10),
    cancel_reason: optionalText(50),
    store: optionalText(50),
    environment: optionalText(50),
    event_timestamp_ms: epochMs,
  }, { error: "must be an object" }),
}, { error: "body must be a JSON object" });

/**
 * Reads the webhook body with {@link BillingWebhookBodySchema}; a string saying which field is
 * wrong and why when it cannot be recorded.
 */
export function parseBillingEvent(body: unknown): BillingEvent | string {
  const parsed = BillingWebhookBodySchema.safeParse(body);
  if (!parsed.success) return describeIssues(parsed.error);
  const e = parsed.data.event;
  return {
    id: e.id,
    type: e.type,
    appUserId: e.app_user_id,
    originalAppUserId: e.original_app_user_id,
    aliases: e.aliases,
    transferredFrom: e.transferred_from,
    transferredTo: e.transferred_to,
    productId: e.type === "PRODUCT_CHANGE" && e.new_product_id ? e.new_product_id : e.product_id,
    amount: e.price_in_purchased_currency,
    amountUsd: e.price,
    currency: e.currency,
    cancelReason: e.cancel_reason,
    store: e.store,
    environment: e.environment,
    occurredAt: e.event_timestamp_ms === null ? null : new Date(e.event_timestamp_ms),
    raw: body as Record<string, unknown>,
  };
}

export type PaymentOutcome =
  | "processed"
  | "unknown_user"
  | "unknown_product"
  | "ignored"
  | "other_environment";

/**
 * What becomes of an event: only `processed` changes a tier (and publishes the event). A transfer
 * whose sources hold no tier has nothing to move (`ignored`).
 */
export function paymentOutcome(
  action: TierAction,
  plan: PlanSlug | null,
  userFound: boolean,
  environmentMatches = true,
): PaymentOutcome {
  if (action === "none") return "ignored";
  if (!environmentMatches) return "other_environment";
  if (!plan) return action === "transfer" ? "ignored" : "unknown_product";
  if (!userFound) return "unknown_user";
  return "processed";
}
