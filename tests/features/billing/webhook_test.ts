import assert from "node:assert/strict";
import { seedUser } from "../../support/seed.ts";
import {
  BILLING_SECRET as SECRET,
  event,
  post,
  records,
  setupBilling,
  tierOf,
} from "../../support/billing.ts";

Deno.test("billing webhook: a purchase is recorded once and its event grants the tier seen by me.isSupporter", async () => {
  const s = await setupBilling();
  const t = s.t;
  try {
    const ME = `{ me { id isSupporter supporterTier } }`;
    const before = (await s.data(ME, {}, "buyer")).me;
    assert.equal(before.isSupporter, false);

    const body = event({ app_user_id: before.id, product_id: "app_supporter_yearly:p1y" });
    const res = await post(t, body);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "recorded");
    assert.equal(res.body.outcome, "processed");
    const [record] = await records(t);
    assert.equal(record.provider, "revenuecat");
    assert.equal(record.provider_event_id, body.event.id);
    assert.equal(record.provider_product_id, "app_supporter_yearly:p1y");
    assert.equal(record.plan, "supporter_yearly");
    assert.equal(record.app_user_id, before.id);
    assert.equal(record.amount, "4.9900");
    assert.equal(record.currency, "USD");
    assert.equal(record.store, "APP_STORE");
    assert.equal(record.environment, "PRODUCTION");
    assert.equal(record.event_type, "INITIAL_PURCHASE");
    assert.deepEqual(record.raw_event, body);
    assert.equal((record.occurred_at as Date).toISOString(), "2026-01-05T12:00:00.000Z");

    // The tier changes when the subscriber's job runs.
    assert.equal((await s.data(ME, {}, "buyer")).me.isSupporter, false);
    assert.equal(await t.app.jobs.runUntilIdle(), 1);
    const after = (await s.data(ME, {}, "buyer")).me;
    assert.equal(after.isSupporter, true);
    assert.equal(after.supporterTier, "supporter_yearly");
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: a replay answers 200 and changes nothing", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const body = event({ app_user_id: user.publicId });
    assert.equal((await post(s.t, body)).status, 200);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 1);
    const snapshot = JSON.stringify(await records(s.t));
    // A later expiration, then a replay of the purchase: the replay must not grant again.
    assert.equal(
      (await post(s.t, event({ app_user_id: user.publicId, type: "EXPIRATION" })))
        .status,
      200,
    );
    await s.t.app.jobs.runUntilIdle();
    assert.equal(await tierOf(s.t, user.id), null);
    const replay = await post(s.t, { ...body, event: { ...body.event, price: 999 } });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.status, "duplicate");
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0);
    assert.equal(await tierOf(s.t, user.id), null);
    const after = await records(s.t);
    assert.equal(after.length, 2);
    assert.equal(JSON.stringify(after[0]), JSON.stringify(JSON.parse(snapshot)[0]));
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: replays arriving at the same time record and publish once", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const body = event({ app_user_id: user.publicId, product_id: "app_lifetime_99" });
    const results = await Promise.all(Array.from({ length: 6 }, () => post(s.t, body)));
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200, 200, 200]);
    assert.equal(results.filter((r) => r.body.status === "recorded").length, 1);
    assert.equal(results.filter((r) => r.body.status === "duplicate").length, 5);
    assert.equal((await records(s.t)).length, 1);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 1);
    assert.equal(await tierOf(s.t, user.id), "lifetime");
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: renewals grant, CANCELLATION keeps, EXPIRATION revokes", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const send = async (type: string, product = "app_supporter_monthly") => {
      assert.equal(
        (await post(s.t, event({ app_user_id: user.publicId, type, product_id: product }))).status,
        200,
      );
      await s.t.app.jobs.runUntilIdle();
      return await tierOf(s.t, user.id);
    };
    assert.equal(await send("INITIAL_PURCHASE"), "supporter_monthly");
    assert.equal(await send("CANCELLATION"), "supporter_monthly");
    assert.equal(await send("RENEWAL", "app_supporter_yearly"), "supporter_yearly");
    assert.equal(await send("BILLING_ISSUE"), "supporter_yearly");
    assert.equal(await send("EXPIRATION", "app_supporter_yearly"), null);
    assert.equal(
      await send("NON_RENEWING_PURCHASE", "app_supporter_monthly:base"),
      "supporter_monthly",
    );
    const outcomes = (await records(s.t)).map((r) => r.outcome);
    assert.deepEqual(outcomes, [
      "processed",
      "ignored",
      "processed",
      "ignored",
      "processed",
      "processed",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: lifetime survives subscription purchases and expirations", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    for (
      const [type, product] of [
        ["INITIAL_PURCHASE", "app_supporter_monthly"],
        ["NON_RENEWING_PURCHASE", "app_lifetime_99"],
        ["RENEWAL", "app_supporter_monthly"],
        ["EXPIRATION", "app_supporter_monthly"],
      ]
    ) {
      await post(s.t, event({ app_user_id: user.publicId, type, product_id: product }));
      await s.t.app.jobs.runUntilIdle();
    }
    assert.equal(await tierOf(s.t, user.id), "lifetime");
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: unknown users and products answer 200, are recorded and reported, and change no tier", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const ghost = await post(s.t, event({ app_user_id: "AAAAAAAAAAAAAAAAAAAAAA" }));
    assert.equal(ghost.status, 200);
    assert.equal(ghost.body.outcome, "unknown_user");
    const anon = await post(s.t, event({ app_user_id: "$RCAnonymousID:abc" }));
    assert.equal(anon.body.outcome, "unknown_user");
    const missing = await post(s.t, event({ app_user_id: undefined }));
    assert.equal(missing.body.outcome, "unknown_user");
    const unknownProduct = event({
      app_user_id: user.publicId,
      product_id: "app_supporter_weekly",
    });
    const product = await post(s.t, unknownProduct);
    assert.equal(product.status, 200);
    assert.equal(product.body.outcome, "unknown_product");
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0);
    assert.equal(await tierOf(s.t, user.id), null);
    const rows = await records(s.t);
    assert.deepEqual(rows.map((r) => r.outcome), [
      "unknown_user",
      "unknown_user",
      "unknown_user",
      "unknown_product",
    ]);
    assert.equal(rows[0].user_id, null);
    assert.equal(rows[0].app_user_id, "AAAAAAAAAAAAAAAAAAAAAA");
    assert.equal(rows[3].plan, null);
    const warnings = (await s.tracked()).filter((e) => e.level === "warning");
    assert.equal(warnings.length, 4);
    assert.match(warnings[3].message ?? "", /unknown product/);
    // A replay of it is a duplicate and no new warning.
    assert.equal((await post(s.t, unknownProduct)).body.status, "duplicate");
    assert.equal((await s.tracked()).length, 4);
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: a wrong or missing Authorization is 401 with a warning, and records nothing", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    const body = event({ app_user_id: user.publicId });
    for (const auth of [null, "", "wrong", `Bearer ${SECRET}`, `${SECRET}x`, SECRET.slice(0, -1)]) {
      const res = await post(s.t, body, auth);
      assert.equal(res.status, 401, String(auth));
    }
    assert.equal((await records(s.t)).length, 0);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0);
    const warnings = await s.tracked();
    assert.equal(warnings.length, 6);
    assert.ok(warnings.every((w) => w.level === "warning"));
    assert.equal(warnings[0].message, "billing webhook authorization rejected");
    assert.equal(warnings[0].extra.reason, "missing");
    assert.equal(warnings[2].extra.reason, "mismatch");
    assert.ok(!JSON.stringify(warnings).includes(SECRET.slice(0, -1)));
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: an unset secret answers 401 to everyone, with a warning", async () => {
  const s = await setupBilling({});
  try {
    const res = await post(s.t, event({}), "anything");
    assert.equal(res.status, 401);
    assert.equal((await post(s.t, event({}), null)).status, 401);
    const warnings = await s.tracked();
    assert.equal(warnings.length, 2);
    assert.equal(warnings[0].extra.reason, "secret unset");
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: malformed JSON and bodies without event.id are 400 and record nothing", async () => {
  const s = await setupBilling();
  try {
    for (const bad of ["{", "", "nope", '{"event":'] as const) {
      const res = await post(s.t, bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error, "malformed_json");
    }
    for (
      const bad of [
        "[]",
        "null",
        "{}",
        '{"event":{"type":"RENEWAL"}}',
        '{"event":{"id":12,"type":"RENEWAL"}}',
        JSON.stringify({ event: { id: "x".repeat(300), type: "RENEWAL" } }),
      ]
    ) {
      const res = await post(s.t, bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error, "invalid_body");
    }
    assert.equal((await records(s.t)).length, 0);
    assert.equal(await s.t.app.jobs.runUntilIdle(), 0);
  } finally {
    await s.close();
  }
});

Deno.test("billing webhook: NULs and lone surrogates anywhere are stored safely; an id with one is 400", async () => {
  const s = await setupBilling();
  try {
    const user = await seedUser(s.t.deps.db.sql);
    // Anywhere but the identifying fields: 200, recorded, the raw event kept with U+FFFD.
    const body = event({
      app_user_id: user.publicId,
      currency: "US\u0000D",
      store: "\ud800",
      country_code: "U\u0000S",
      subscriber_attributes: { "$na\u0000me": { value: "x\u0000y" } },
    });
    const res = await post(s.t, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.outcome, "processed");
    const [record] = await records(s.t);
    assert.equal(record.currency, null, "a currency that is not text is absent");
    assert.equal(record.store, null);
    const raw = record.raw_event as { event: Record<string, unknown> };
    assert.equal(raw.event.country_code, "U\ufffdS");
    assert.deepEqual(raw.event.subscriber_attributes, { "$na\ufffdme": { value: "x\ufffdy" } });
    assert.equal(raw.event.store, "\ufffd");
    // A replay of the same bytes is the same event: 200 and nothing more.
    assert.equal((await post(s.t, body)).body.status, "duplicate");

    // event.id (and event.type) identify the event: with a NUL they are refused with a reason.
    for (
      const fields of [
        { id: "evt\u0000" },
        { id: "\ud800" },
        { id: "x".repeat(256) },
        { type: "RENEWAL\u0000" },
      ]
    ) {
      const refused = await post(s.t, event({ app_user_id: user.publicId, ...fields }));
      assert.equal(refused.status, 400, JSON.stringify(fields));
      assert.equal(refused.body.error, "invalid_body");
      assert.match(refused.body.message, /without control characters/);
    }
    assert.equal((await records(s.t)).length, 1);
  } finally {
    await s.close();
  }
});
