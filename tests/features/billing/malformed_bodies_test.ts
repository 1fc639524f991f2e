/**
 * The billing webhook body is read by a zod schema (issue 41): a body that cannot name its event
 * is 400 `invalid_body` with a message naming the field, and records nothing; odd optional fields
 * read as null and the event is still recorded. Never a 5xx.
 */
import assert from "node:assert/strict";
import { seedUser } from "../../support/seed.ts";
import { event, post, records, setupBilling, tierOf } from "../../support/billing.ts";

const LONG = "x".repeat(300);

Deno.test("billing webhook: bodies with a missing, mistyped or unusable event.id or event.type are 400 naming the field", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const cases: [unknown, RegExp][] = [
      ["12", /body must be a JSON object/],
      ['"event"', /body must be a JSON object/],
      ["true", /body must be a JSON object/],
      [{ event: "INITIAL_PURCHASE" }, /^event: must be an object/],
      [{ event: 5 }, /^event: must be an object/],
      [{ event: null }, /^event: must be an object/],
      [{ events: [] }, /^event: must be an object/],
      [event({ id: undefined }), /^event\.id: /],
      [event({ id: 12 }), /^event\.id: /],
      [event({ id: true }), /^event\.id: /],
      [event({ id: null }), /^event\.id: /],
      [event({ id: ["evt"] }), /^event\.id: /],
      [event({ id: { id: "evt" } }), /^event\.id: /],
      [event({ id: "" }), /^event\.id: /],
      [event({ id: LONG }), /^event\.id: .*1 to 255 characters/],
      [event({ id: "evt\u0000" }), /^event\.id: .*without control characters/],
      [event({ type: undefined }), /^event\.type: /],
      [event({ type: 3 }), /^event\.type: /],
      [event({ type: LONG }), /^event\.type: .*1 to 100 characters/],
      [event({ type: "RENEWAL\u0007" }), /^event\.type: .*without control characters/],
      ['{"event":{"id":1e400,"type":"RENEWAL"}}', /^event\.id: /],
    ];
    for (const [body, message] of cases) {
      const res = await post(s.t, body); // a string is sent as is
      const what = typeof body === "string" ? body : JSON.stringify(body).slice(0, 120);
      assert.equal(res.status, 400, what);
      assert.equal(res.body.error, "invalid_body", what);
      assert.match(res.body.message, message, what);
    }
    assert.equal((await records(s.t)).length, 0);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0);
    assert.equal(await tierOf(s.t, user.id), null);
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: mistyped, too long or huge optional fields read as absent; extra fields are kept in the raw event", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const body = event({
      app_user_id: user.publicId,
      original_app_user_id: 42,
      aliases: [7, null, "y".repeat(300), { id: "z" }, user.publicId],
      transferred_from: "not a list",
      currency: "DOLLARS-AND-CENTS",
      store: ["APP_STORE"],
      environment: { name: "PRODUCTION" },
      cancel_reason: LONG,
      price: 1e12,
      price_in_purchased_currency: "4.99",
      event_timestamp_ms: -5,
      surprise: { nested: [1, 2, 3] },
    });
    const res = await post(s.t, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.outcome, "processed");
    const [record] = await records(s.t);
    assert.equal(record.amount, null);
    assert.equal(record.amount_usd, null);
    assert.equal(record.currency, null);
    assert.equal(record.store, null);
    assert.equal(record.environment, null);
    assert.equal(record.occurred_at, null);
    assert.deepEqual((record.raw_event as { event: { surprise: unknown } }).event.surprise, {
      nested: [1, 2, 3],
    });
    await s.t.app.jobs.runUntilIdle();
    assert.equal(await tierOf(s.t, user.id), "supporter_monthly");

    // Numbers past a double's range are Infinity once parsed: they read as absent too.
    const huge = JSON.stringify(event({ app_user_id: user.publicId, price: 0 }))
      .replace('"price":0', '"price":1e400,"event_timestamp_ms_2":-1e400');
    const hugeRes = await post(s.t, huge);
    assert.equal(hugeRes.status, 200, JSON.stringify(hugeRes.body));
    assert.equal((await records(s.t))[1].amount_usd, null);
  } finally {
    await s.close();
  }
});
