import assert from "node:assert/strict";
import {
  bestPlan,
  firstKnown,
  parseBillingEvent,
  paymentOutcome,
  planForProduct,
  planHeld,
  type PlanSlug,
  PRODUCT_PLANS,
  sameEnvironment,
  tierAction,
  tierChange,
  userIdCandidates,
} from "../../../src/features/billing/rules.ts";

Deno.test("billing rules: the product table maps the three products", () => {
  assert.deepEqual(PRODUCT_PLANS, {
    app_supporter_monthly: "supporter_monthly",
    app_supporter_yearly: "supporter_yearly",
    app_lifetime_99: "lifetime",
  });
  assert.equal(planForProduct("app_supporter_monthly"), "supporter_monthly");
  assert.equal(planForProduct("app_supporter_yearly"), "supporter_yearly");
  assert.equal(planForProduct("app_lifetime_99"), "lifetime");
});

Deno.test("billing rules: store-suffixed ids match in full first, then by the part before the colon", () => {
  assert.equal(planForProduct("app_supporter_monthly:monthly-autorenew"), "supporter_monthly");
  assert.equal(planForProduct("app_supporter_yearly:p1y"), "supporter_yearly");
  assert.equal(planForProduct("app_lifetime_99:x:y"), "lifetime");
  const table = {
    app_supporter_yearly: "supporter_yearly" as const,
    "app_supporter_yearly:lifetime-promo": "lifetime" as const,
  };
  assert.equal(planForProduct("app_supporter_yearly:lifetime-promo", table), "lifetime");
  assert.equal(planForProduct("app_supporter_yearly:other", table), "supporter_yearly");
});

Deno.test("billing rules: unknown, empty and look-alike products map to nothing", () => {
  for (
    const id of [
      null,
      "",
      "app_supporter_weekly",
      ":app_supporter_monthly",
      "APP_SUPPORTER_MONTHLY",
      "app_supporter_monthly_x",
      "toString",
      "__proto__",
      "constructor:x",
    ]
  ) {
    assert.equal(planForProduct(id), null, String(id));
  }
});

Deno.test("billing rules: purchases and renewals grant, EXPIRATION revokes, CANCELLATION alone does nothing", () => {
  for (const type of ["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE", "PRODUCT_CHANGE"]) {
    assert.equal(tierAction(type), "grant", type);
  }
  assert.equal(tierAction("EXPIRATION"), "revoke");
  for (const type of ["CANCELLATION", "BILLING_ISSUE", "TEST", "REFUND_REVERSED", "whatever"]) {
    assert.equal(tierAction(type), "none", type);
    assert.equal(tierAction(type, "supporter_yearly"), "none", type);
  }
  assert.equal(tierAction("TRANSFER"), "transfer");
});

Deno.test("billing rules: a CANCELLATION of the lifetime purchase is its refund; REFUND_REVERSED restores it", () => {
  assert.equal(tierAction("CANCELLATION", "lifetime"), "refund");
  assert.equal(tierAction("REFUND_REVERSED", "lifetime"), "grant");
  assert.equal(tierAction("EXPIRATION", "lifetime"), "revoke");
  assert.equal(tierChange("revoke", "lifetime"), null);
});

Deno.test("billing rules: the tier a history leaves", () => {
  const now = Date.parse("2026-02-01T00:00:00Z");
  const later = now + 86_400_000;
  const r = (eventType: string, plan: PlanSlug | null, expiresAtMs: unknown = null) => ({
    eventType,
    plan,
    expiresAtMs,
  });
  assert.equal(planHeld([], now), null);
  assert.equal(planHeld([r("NON_RENEWING_PURCHASE", "lifetime")], now), "lifetime");
  assert.equal(
    planHeld([r("NON_RENEWING_PURCHASE", "lifetime"), r("CANCELLATION", "lifetime")], now),
    null,
  );
  // A refunded lifetime falls back to a subscription still running...
  const monthly = r("INITIAL_PURCHASE", "supporter_monthly", later);
  const refunded = [monthly, r("NON_RENEWING_PURCHASE", "lifetime"), r("CANCELLATION", "lifetime")];
  assert.equal(planHeld(refunded, now), "supporter_monthly");
  // ...but not one that expired, by date or by event.
  assert.equal(planHeld([r("INITIAL_PURCHASE", "supporter_monthly", now - 1)], now), null);
  assert.equal(planHeld([monthly, r("EXPIRATION", "supporter_monthly")], now), null);
  assert.equal(
    planHeld([monthly, r("CANCELLATION", "supporter_monthly")], now),
    "supporter_monthly",
  );
  assert.equal(planHeld([r("TRANSFER", "supporter_yearly")], now), "supporter_yearly");
  assert.equal(planHeld([r("RENEWAL", "supporter_yearly", "soon")], now), "supporter_yearly");
});

Deno.test("billing rules: the best plan, the ids to look users up by, the environment", () => {
  assert.equal(bestPlan([null, "supporter_monthly", "lifetime", "supporter_yearly"]), "lifetime");
  assert.equal(bestPlan(["supporter_monthly", "supporter_yearly"]), "supporter_yearly");
  assert.equal(bestPlan([null, "gold"]), null);
  const anon = "$RCAnonymousID:12345678";
  assert.deepEqual(
    userIdCandidates({ appUserId: anon, originalAppUserId: anon, aliases: [anon, "pub1", "pub2"] }),
    ["pub1", "pub2"],
  );
  assert.deepEqual(
    userIdCandidates({ appUserId: "pub2", originalAppUserId: null, aliases: ["pub1", "pub2"] }),
    ["pub2", "pub1"],
  );
  const users = new Map([["pub2", { id: "2" }]]);
  assert.deepEqual(firstKnown(["pub1", "pub2"], users), { id: "2" });
  assert.equal(firstKnown(["pub1"], users), null);
  assert.equal(sameEnvironment("PRODUCTION", "PRODUCTION"), true);
  assert.equal(sameEnvironment("SANDBOX", "PRODUCTION"), false);
  assert.equal(sameEnvironment("SANDBOX", "SANDBOX"), true);
  assert.equal(sameEnvironment(null, "PRODUCTION"), true);
});

Deno.test("billing rules: lifetime is never replaced or revoked", () => {
  assert.deepEqual(tierChange("grant", "supporter_monthly"), {
    tier: "supporter_monthly",
    unlessTier: ["lifetime"],
  });
  assert.deepEqual(tierChange("grant", "lifetime"), { tier: "lifetime", unlessTier: [] });
  assert.deepEqual(tierChange("revoke", "supporter_yearly"), {
    tier: null,
    unlessTier: ["lifetime"],
  });
  assert.equal(tierChange("revoke", "lifetime"), null);
});

Deno.test("billing rules: outcome of an event", () => {
  assert.equal(paymentOutcome("grant", "lifetime", true), "processed");
  assert.equal(paymentOutcome("revoke", "supporter_monthly", true), "processed");
  assert.equal(paymentOutcome("grant", null, true), "unknown_product");
  assert.equal(paymentOutcome("grant", "lifetime", false), "unknown_user");
  assert.equal(paymentOutcome("grant", null, false), "unknown_product");
  assert.equal(paymentOutcome("none", "lifetime", true), "ignored");
  assert.equal(paymentOutcome("grant", "lifetime", true, false), "other_environment");
  assert.equal(paymentOutcome("none", "lifetime", true, false), "ignored");
  assert.equal(paymentOutcome("transfer", null, true), "ignored");
  assert.equal(paymentOutcome("transfer", "lifetime", false), "unknown_user");
  assert.equal(paymentOutcome("refund", "lifetime", true), "processed");
});

Deno.test("billing rules: the event body needs event.id and event.type; the rest is optional", () => {
  const parsed = parseBillingEvent({
    api_version: "1.0",
    event: {
      id: "evt-1",
      type: "INITIAL_PURCHASE",
      app_user_id: "user-public-id",
      product_id: "app_supporter_monthly",
      event_timestamp_ms: 1767614400000,
      price: 4.99,
      currency: "USD",
      store: "APP_STORE",
      environment: "PRODUCTION",
    },
  });
  assert.ok(typeof parsed !== "string");
  assert.equal(parsed.id, "evt-1");
  assert.equal(parsed.productId, "app_supporter_monthly");
  assert.equal(parsed.amountUsd, 4.99);
  assert.equal(parsed.amount, null);
  assert.equal(parsed.occurredAt?.toISOString(), "2026-01-05T12:00:00.000Z");
  const sparse = parseBillingEvent({ event: { id: "e", type: "TEST", price: "free", store: 5 } });
  assert.ok(typeof sparse !== "string");
  assert.equal(sparse.amountUsd, null);
  assert.deepEqual(sparse.aliases, []);
  assert.equal(sparse.store, null);
  assert.equal(sparse.appUserId, null);
  const change = parseBillingEvent({
    event: { id: "e", type: "PRODUCT_CHANGE", product_id: "a", new_product_id: "b" },
  });
  assert.ok(typeof change !== "string");
  assert.equal(change.productId, "b");
  for (
    const bad of [
      null,
      [],
      "x",
      {},
      { event: [] },
      { event: { type: "RENEWAL" } },
      { event: { id: "", type: "RENEWAL" } },
      { event: { id: 5, type: "RENEWAL" } },
      { event: { id: "x".repeat(256), type: "RENEWAL" } },
      { event: { id: "e" } },
    ]
  ) {
    assert.equal(typeof parseBillingEvent(bad), "string", JSON.stringify(bad));
  }
});
