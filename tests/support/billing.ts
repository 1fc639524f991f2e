/**
 * Billing webhook harness: the shared setup with an error tracker reporting to a local
 * Sentry-compatible receiver, and bodies shaped exactly like the provider's (RevenueCat's
 * documented webhook samples: every field it sends, `price` in USD and
 * `price_in_purchased_currency` in `currency`, `aliases`, `original_app_user_id`).
 */
import type { TestApp } from "./app.ts";
import { startFakeServer } from "./http.ts";
import { setup, type TestSetup } from "./setup.ts";

export const BILLING_PATH = "/webhooks/billing-provider";
export const BILLING_SECRET = "billing-secret-value";

export interface BillingTest extends TestSetup {
  /** Warnings and errors the error tracker sent (via a local Sentry-compatible receiver). */
  tracked(): Promise<{ level: string; message?: string; extra: Record<string, unknown> }[]>;
}

/** The shared setup with an error tracker that reports to a local receiver. */
export async function setupBilling(
  env: Record<string, string> = { BILLING_WEBHOOK_SECRET: BILLING_SECRET },
): Promise<BillingTest> {
  const receiver = startFakeServer(() => new Response("{}"));
  const s = await setup({
    env: { ERROR_TRACKER_DSN: `http://key@127.0.0.1:${receiver.port}/9`, ...env },
  }).catch(async (err) => {
    await receiver.close();
    throw err;
  });
  const close = s.close;
  return Object.assign(s, {
    async tracked() {
      await s.t.deps.tracker.flush();
      return receiver.requests.map((r) => {
        const event = JSON.parse(r.body.split("\n")[2]);
        return { level: event.level, message: event.message?.formatted, extra: event.extra };
      });
    },
    async close() {
      try {
        await close();
      } finally {
        await receiver.close();
      }
    },
  });
}

const PURCHASED_AT_MS = 1767614400000; // 2026-01-05T12:00:00Z
const MONTH_MS = 30 * 86_400_000;

/**
 * A subscription-lifecycle event as the provider sends it (its sample INITIAL_PURCHASE, with our
 * product ids); `fields` replace or add event fields, `undefined` removes one.
 */
export function event(fields: Record<string, unknown>) {
  const body = {
    api_version: "1.0",
    event: {
      event_timestamp_ms: PURCHASED_AT_MS,
      product_id: "app_supporter_monthly",
      period_type: "NORMAL",
      purchased_at_ms: PURCHASED_AT_MS,
      expiration_at_ms: PURCHASED_AT_MS + MONTH_MS,
      environment: "PRODUCTION",
      entitlement_id: null,
      entitlement_ids: ["supporter"],
      presented_offering_id: "default",
      transaction_id: "170000869511114",
      original_transaction_id: "170000869511114",
      is_family_share: false,
      country_code: "US",
      app_user_id: "$RCAnonymousID:8069238d6049ce87cc529853916d624c",
      aliases: ["$RCAnonymousID:8069238d6049ce87cc529853916d624c"],
      original_app_user_id: "$RCAnonymousID:8069238d6049ce87cc529853916d624c",
      currency: "USD",
      price: 4.99,
      price_in_purchased_currency: 4.99,
      subscriber_attributes: {
        $email: { updated_at_ms: 1662955084635, value: "firstlast@example.com" },
      },
      store: "APP_STORE",
      takehome_percentage: 0.7,
      tax_percentage: 0.0,
      commission_percentage: 0.3,
      offer_code: null,
      type: "INITIAL_PURCHASE",
      id: crypto.randomUUID().toUpperCase(),
      app_id: "app1234567890",
      ...fields,
    } as Record<string, unknown>,
  };
  for (const [key, value] of Object.entries(body.event)) {
    if (value === undefined) delete body.event[key];
  }
  return body;
}

/** A TRANSFER as the provider sends it: no product, no `app_user_id`, the two id lists. */
export function transferEvent(from: string[], to: string[]) {
  return {
    api_version: "1.0",
    event: {
      app_id: "app1234567890",
      event_timestamp_ms: PURCHASED_AT_MS + 86_400_000,
      id: crypto.randomUUID().toUpperCase(),
      store: "APP_STORE",
      transferred_from: from,
      transferred_to: to,
      type: "TRANSFER",
      environment: "PRODUCTION",
    },
  };
}

export async function post(
  t: TestApp,
  body: unknown,
  authorization: string | null = BILLING_SECRET,
) {
  const res = await t.request(BILLING_PATH, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(authorization === null ? {} : { authorization }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Posts, expects 200, runs the subscriber's jobs; returns the answer's outcome. */
export async function deliver(t: TestApp, body: unknown): Promise<string> {
  const res = await post(t, body);
  if (res.status !== 200) throw new Error(`billing webhook answered ${res.status}`);
  await t.app.jobs.runUntilIdle();
  return res.body.outcome ?? res.body.status;
}

export async function tierOf(t: TestApp, userId: string): Promise<string | null> {
  const [row] = await t.deps.db.sql<{ tier: string | null }[]>`
    select supporter_tier as tier from users where id = ${userId}`;
  return row.tier;
}

export async function records(t: TestApp) {
  return await t.deps.db.sql<Record<string, unknown>[]>`
    select provider, provider_event_id, provider_product_id, plan, user_id, app_user_id,
      amount::text as amount, amount_usd::text as amount_usd, currency, store, environment,
      outcome, event_type, raw_event, occurred_at
    from payment_records order by id`;
}
