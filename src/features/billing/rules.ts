/** Pure rules of billing (spec 4.7, DESIGN 3.5): product mapping, event parsing, tier changes. */

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

export type TierAction = "grant" | "revoke" | "none";

const GRANTING = new Set([
  "INITIAL_PURCHASE",
  "RENEWAL",
  "NON_RENEWING_PURCHASE",
  "PRODUCT_CHANGE",
  "UNCANCELLATION",
]);

/** Purchases and renewals grant; EXPIRATION revokes; anything else (CANCELLATION too) is none. */
export function tierAction(eventType: string): TierAction {
  if (GRANTING.has(eventType)) return "grant";
  if (eventType === "EXPIRATION") return "revoke";
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

/** A billing event as recorded (DESIGN 3.5); fields the provider left out are null. */
export interface BillingEvent {
  id: string;
  type: string;
  appUserId: string | null;
  /** The product the event is about (for PRODUCT_CHANGE, the new product when given). */
  productId: string | null;
  price: number | null;
  currency: string | null;
  store: string | null;
  environment: string | null;
  occurredAt: Date | null;
  raw: Record<string, unknown>;
}

const MAX_ID = 255;

const str = (value: unknown, max = 255): string | null =>
  typeof value === "string" && value.length > 0 && value.length <= max ? value : null;

/**
 * Reads `{event: {id, type, ...}}`. Only `event.id` and `event.type` are required: anything else
 * that is missing or odd is recorded as null, so the provider is not made to retry a body we can
 * still record.
 */
export function parseBillingEvent(body: unknown): BillingEvent | string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "body must be a JSON object";
  const event = (body as Record<string, unknown>).event;
  if (!event || typeof event !== "object" || Array.isArray(event)) {
    return "event must be an object";
  }
  const e = event as Record<string, unknown>;
  const id = str(e.id, MAX_ID);
  if (!id) return `event.id must be a string of 1 to ${MAX_ID} characters`;
  const type = str(e.type, 100);
  if (!type) return "event.type must be a string";
  const productId = type === "PRODUCT_CHANGE" && str(e.new_product_id)
    ? str(e.new_product_id)
    : str(e.product_id);
  const price = typeof e.price === "number" && Math.abs(e.price) < 1e9 ? e.price : null;
  const ms = e.event_timestamp_ms;
  const occurredAt = typeof ms === "number" && Number.isFinite(ms) && ms >= 0 && ms < 8.64e15
    ? new Date(ms)
    : null;
  return {
    id,
    type,
    appUserId: str(e.app_user_id),
    productId,
    price,
    currency: str(e.currency, 10),
    store: str(e.store, 50),
    environment: str(e.environment, 50),
    occurredAt,
    raw: body as Record<string, unknown>,
  };
}

export type PaymentOutcome = "processed" | "unknown_user" | "unknown_product" | "ignored";

/** What becomes of an event: only `processed` changes a tier (and publishes the event). */
export function paymentOutcome(
  action: TierAction,
  plan: PlanSlug | null,
  userFound: boolean,
): PaymentOutcome {
  if (action === "none") return "ignored";
  if (!plan) return "unknown_product";
  if (!userFound) return "unknown_user";
  return "processed";
}
