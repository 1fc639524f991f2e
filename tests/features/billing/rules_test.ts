import assert from "node:assert/strict";
import {
  parseBillingEvent,
  paymentOutcome,
  planForProduct,
  PRODUCT_PLANS,
  tierAction,
  tierChange,
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
  for (const type of ["CANCELLATION", "BILLING_ISSUE", "TEST", "TRANSFER", "whatever"]) {
    assert.equal(tierAction(type), "none", type);
  }
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
  assert.equal(parsed.price, 4.99);
  assert.equal(parsed.occurredAt?.toISOString(), "2026-01-05T12:00:00.000Z");
  const sparse = parseBillingEvent({ event: { id: "e", type: "TEST", price: "free", store: 5 } });
  assert.ok(typeof sparse !== "string");
  assert.equal(sparse.price, null);
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
