/**
 * The billing webhook with bodies shaped exactly like the provider's documented samples
 * (RevenueCat): a lifetime refund, sandbox events, USD and purchased-currency prices, purchases
 * made before sign-in (the public id only in `aliases`) and TRANSFER.
 */
import assert from "node:assert/strict";
import { seedUser } from "../../support/seed.ts";
import {
  deliver,
  event,
  post,
  records,
  setupBilling,
  tierOf,
  transferEvent,
} from "../../support/billing.ts";
import type { TestApp } from "../../support/app.ts";
import { createTestDatabase } from "../../support/db.ts";
import { loadMigrations, migrate } from "../../../src/platform/migrate.ts";
import { createLogger } from "../../../src/platform/log.ts";

const ANON = "$RCAnonymousID:12345678-1234-1234-1234-123456789123";
const MONTH_MS = 30 * 86_400_000;

/** The provider's NON_RENEWING_PURCHASE sample for our lifetime product. */
function lifetimePurchase(appUserId: string) {
  return event({
    type: "NON_RENEWING_PURCHASE",
    product_id: "app_lifetime_99",
    expiration_at_ms: null,
    app_user_id: appUserId,
    price: 99.0,
    price_in_purchased_currency: 99.0,
  });
}

/** The provider's refund sample (CANCELLATION, CUSTOMER_SUPPORT, negative prices). */
function lifetimeRefund(appUserId: string) {
  return event({
    type: "CANCELLATION",
    product_id: "app_lifetime_99",
    expiration_at_ms: null,
    app_user_id: appUserId,
    cancel_reason: "CUSTOMER_SUPPORT",
    price: -99.0,
    price_in_purchased_currency: -99.0,
  });
}

const running = (t: TestApp) => t.deps.clock.now().getTime() + MONTH_MS;

Deno.test("billing provider: a lifetime refund revokes lifetime; a reversal gives it back", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    assert.equal(await deliver(s.t, lifetimePurchase(user.publicId)), "processed");
    assert.equal(await tierOf(s.t, user.id), "lifetime");
    assert.equal(await deliver(s.t, lifetimeRefund(user.publicId)), "processed");
    assert.equal(await tierOf(s.t, user.id), null);
    const [, refund] = await records(s.t);
    assert.equal(refund.amount, "-99.0000");
    assert.equal(refund.plan, "lifetime");

    const reversed = event({
      type: "REFUND_REVERSED",
      product_id: "app_lifetime_99",
      app_user_id: user.publicId,
    });
    assert.equal(await deliver(s.t, reversed), "processed");
    assert.equal(await tierOf(s.t, user.id), "lifetime");
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: after a lifetime refund a running subscription is the tier again", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const monthly = event({ app_user_id: user.publicId, expiration_at_ms: running(s.t) });
    assert.equal(await deliver(s.t, monthly), "processed");
    assert.equal(await deliver(s.t, lifetimePurchase(user.publicId)), "processed");
    assert.equal(await tierOf(s.t, user.id), "lifetime");
    assert.equal(await deliver(s.t, lifetimeRefund(user.publicId)), "processed");
    assert.equal(await tierOf(s.t, user.id), "supporter_monthly");

    // A subscription's own refund (CUSTOMER_SUPPORT) keeps it until EXPIRATION, as documented.
    const subscriptionRefund = event({
      type: "CANCELLATION",
      app_user_id: user.publicId,
      cancel_reason: "CUSTOMER_SUPPORT",
      price: -4.99,
      price_in_purchased_currency: -4.99,
    });
    assert.equal(await deliver(s.t, subscriptionRefund), "ignored");
    assert.equal(await tierOf(s.t, user.id), "supporter_monthly");
    assert.equal(
      await deliver(s.t, event({ type: "EXPIRATION", app_user_id: user.publicId })),
      "processed",
    );
    assert.equal(await tierOf(s.t, user.id), null);
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: SANDBOX events are recorded but grant nothing on a production backend", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const sandbox = event({ app_user_id: user.publicId, environment: "SANDBOX" });
    assert.equal(await deliver(s.t, sandbox), "other_environment");
    const lifetime = lifetimePurchase(user.publicId);
    lifetime.event.environment = "SANDBOX";
    assert.equal(await deliver(s.t, lifetime), "other_environment");
    assert.equal(await tierOf(s.t, user.id), null);
    const rows = await records(s.t);
    assert.deepEqual(rows.map((r) => [r.environment, r.outcome]), [
      ["SANDBOX", "other_environment"],
      ["SANDBOX", "other_environment"],
    ]);
    assert.equal(rows[0].user_id, user.id);
    // Not an error: no tracker warning for it.
    assert.equal((await s.tracked()).length, 0);
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: a backend set to SANDBOX takes sandbox events and leaves production ones", async () => {
  const s = await setupBilling({
    BILLING_WEBHOOK_SECRET: "billing-secret-value",
    BILLING_ENVIRONMENT: "SANDBOX",
  });
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const production = event({ app_user_id: user.publicId });
    assert.equal(await deliver(s.t, production), "other_environment");
    assert.equal(await tierOf(s.t, user.id), null);
    const sandbox = event({ app_user_id: user.publicId, environment: "SANDBOX" });
    assert.equal(await deliver(s.t, sandbox), "processed");
    assert.equal(await tierOf(s.t, user.id), "supporter_monthly");
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: amount is in the purchased currency, amount_usd is the USD price", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    // The provider's NON_RENEWING_PURCHASE sample: CAD 32.99 = USD 25.487.
    const body = event({
      type: "NON_RENEWING_PURCHASE",
      product_id: "app_lifetime_99",
      app_user_id: user.publicId,
      country_code: "CA",
      currency: "CAD",
      price: 25.487,
      price_in_purchased_currency: 32.99,
    });
    assert.equal(await deliver(s.t, body), "processed");
    const [record] = await records(s.t);
    assert.equal(record.currency, "CAD");
    assert.equal(record.amount, "32.9900");
    assert.equal(record.amount_usd, "25.4870");
    // A price the provider does not know is null in both.
    const unknown = event({
      app_user_id: user.publicId,
      price: null,
      price_in_purchased_currency: null,
    });
    assert.equal(await deliver(s.t, unknown), "processed");
    const [, second] = await records(s.t);
    assert.equal(second.amount, null);
    assert.equal(second.amount_usd, null);
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: a purchase made before sign-in is matched by original_app_user_id or aliases", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    // The provider's refund sample shape: app_user_id anonymous, our public id in aliases.
    const body = event({
      app_user_id: ANON,
      original_app_user_id: ANON,
      aliases: [ANON, user.publicId],
    });
    assert.equal(await deliver(s.t, body), "processed");
    assert.equal(await tierOf(s.t, user.id), "supporter_monthly");
    const [record] = await records(s.t);
    assert.equal(record.user_id, user.id);
    assert.equal(record.app_user_id, ANON);

    const other = await seedUser(s.t.deps.db.sql);
    const byOriginal = event({
      product_id: "app_supporter_yearly",
      app_user_id: ANON,
      original_app_user_id: other.publicId,
      aliases: [ANON],
    });
    assert.equal(await deliver(s.t, byOriginal), "processed");
    assert.equal(await tierOf(s.t, other.id), "supporter_yearly");

    // Only anonymous ids: an unknown user, as before.
    const anonymous = event({ app_user_id: ANON, original_app_user_id: ANON, aliases: [ANON] });
    assert.equal(await deliver(s.t, anonymous), "unknown_user");
    // Junk in aliases is skipped, not an error.
    const junk = event({
      app_user_id: ANON,
      aliases: [5, null, "", "x".repeat(300), user.publicId],
    });
    assert.equal(await deliver(s.t, junk), "processed");
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: TRANSFER moves the tier from the source users to the destination", async () => {
  const s = await setupBilling();
  try {
    const from = await seedUser(s.t.deps.db.sql);
    const to = await seedUser(s.t.deps.db.sql);
    const yearly = event({
      product_id: "app_supporter_yearly",
      app_user_id: from.publicId,
      expiration_at_ms: running(s.t),
    });
    assert.equal(await deliver(s.t, yearly), "processed");
    assert.equal(await tierOf(s.t, from.id), "supporter_yearly");

    const transfer = transferEvent([from.publicId], [to.publicId]);
    assert.equal(await deliver(s.t, transfer), "processed");
    assert.equal(await tierOf(s.t, from.id), null);
    assert.equal(await tierOf(s.t, to.id), "supporter_yearly");
    const record = (await records(s.t)).at(-1)!;
    assert.equal(record.event_type, "TRANSFER");
    assert.equal(record.plan, "supporter_yearly");
    assert.equal(record.user_id, to.id);
    assert.equal(record.app_user_id, to.publicId);
    // A replay changes nothing.
    assert.equal((await post(s.t, transfer)).body.status, "duplicate");
    // The destination's lifetime is not lowered by a transferred subscription.
    const third = await seedUser(s.t.deps.db.sql);
    assert.equal(await deliver(s.t, lifetimePurchase(third.publicId)), "processed");
    assert.equal(await deliver(s.t, transferEvent([to.publicId], [third.publicId])), "processed");
    assert.equal(await tierOf(s.t, third.id), "lifetime");
    assert.equal(await tierOf(s.t, to.id), null);
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: TRANSFER of a purchase made under an anonymous id grants it to the user", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    assert.equal(await deliver(s.t, lifetimePurchase(ANON)), "unknown_user");
    assert.equal(await deliver(s.t, transferEvent([ANON], [user.publicId])), "processed");
    assert.equal(await tierOf(s.t, user.id), "lifetime");

    // Nothing to move (the sources hold nothing): recorded, ignored.
    const empty = await seedUser(s.t.deps.db.sql);
    const nobody = await seedUser(s.t.deps.db.sql);
    assert.equal(await deliver(s.t, transferEvent([empty.publicId], [nobody.publicId])), "ignored");
    assert.equal(await tierOf(s.t, nobody.id), null);
    // A destination we do not know: recorded as an unknown user, the source keeps its tier.
    assert.equal(
      await deliver(s.t, transferEvent([user.publicId], ["AAAAAAAAAAAAAAAAAAAAAA"])),
      "unknown_user",
    );
    assert.equal(await tierOf(s.t, user.id), "lifetime");
  } finally {
    await s.close();
  }
});

Deno.test("billing provider: migration 0015 moves the stored USD price to amount_usd", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    const log = createLogger({ level: "error" });
    const all = await loadMigrations();
    await migrate(db.sql, log, all.filter((m) => m.version < "0015"));
    const raw = (extra: Record<string, unknown>) => ({
      event: { id: "e", type: "RENEWAL", ...extra },
    });
    for (
      const [id, amount, currency, body] of [
        ["cad", 25.487, "CAD", raw({ price: 25.487, price_in_purchased_currency: 32.99 })],
        ["usd", 4.99, "USD", raw({ price: 4.99 })],
        ["eur", 8.14, "EUR", raw({ price: 8.14 })],
        ["odd", 1, "USD", raw({ price: 1, price_in_purchased_currency: "1,00" })],
      ] as const
    ) {
      await db.sql`
        insert into payment_records (public_id, provider, provider_event_id, event_type, amount,
          currency, outcome, raw_event)
        values (${id}, 'revenuecat', ${id}, 'RENEWAL', ${amount}, ${currency}, 'processed',
          ${db.sql.json(body as never)})`;
    }
    await migrate(db.sql, log, all);
    const rows = await db.sql`
      select public_id, amount::text as amount, amount_usd::text as usd from payment_records
      order by public_id`;
    assert.deepEqual(rows.map((r) => [r.public_id, r.amount, r.usd]), [
      ["cad", "32.9900", "25.4870"],
      ["eur", null, "8.1400"],
      ["odd", "1.0000", "1.0000"],
      ["usd", "4.9900", "4.9900"],
    ]);
  } finally {
    await db.close();
  }
});
