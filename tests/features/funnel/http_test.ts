import assert from "node:assert/strict";
import { logged, type TestApp } from "../../support/app.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";
import { seedUser } from "../../support/seed.ts";
import { setup } from "../../support/setup.ts";
import { recordActivationStep } from "../../../src/features/funnel/store.ts";

const PATH = "/integrations/activation-funnel";
const AS_OF = "2026-01-15T00:00:00.000Z";

async function withApp(env: Record<string, string>, fn: (t: TestApp) => Promise<void>) {
  const s = await setup({ env, start: AS_OF });
  try {
    await fn(s.t);
  } finally {
    await s.close();
  }
}

const ENV = { WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET };
const at = (s: string) => new Date(s);

Deno.test("activation funnel: counts each step by first reach, in the current and previous windows", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    // current = (Jan 8, Jan 15], previous = (Jan 1, Jan 8]
    const u1 = await seedUser(sql, {
      createdAt: "2026-01-10T09:00:00Z",
      onboardedAt: "2026-01-10T09:30:00Z",
    });
    await recordActivationStep(sql, u1.id, "first_goal", at("2026-01-11T00:00:00Z"));
    await recordActivationStep(sql, u1.id, "first_check_in", at("2026-01-12T00:00:00Z"));
    await recordActivationStep(sql, u1.id, "first_badge", at("2026-01-14T00:00:00Z"));
    await recordActivationStep(sql, u1.id, "first_badge", at("2026-01-13T00:00:00Z"));
    const u2 = await seedUser(sql, {
      createdAt: "2026-01-03T00:00:00Z",
      onboardedAt: "2026-01-09T00:00:00Z",
    });
    await recordActivationStep(sql, u2.id, "first_goal", at("2026-01-04T00:00:00Z"));
    await recordActivationStep(sql, u2.id, "first_goal", at("2026-01-12T00:00:00Z"));
    await recordActivationStep(sql, u2.id, "first_check_in", at("2026-01-09T00:00:00Z"));
    await seedUser(sql, { createdAt: "2026-01-08T00:00:00Z" }); // last instant of previous
    const u4 = await seedUser(sql, { createdAt: "2025-12-20T00:00:00Z" });
    await recordActivationStep(sql, u4.id, "first_badge", at("2026-01-14T23:59:59Z"));
    await seedUser(sql, { createdAt: "2026-01-15T00:00:00.001Z" }); // after as_of
    await seedUser(sql, { createdAt: "2026-01-01T00:00:00Z" }); // first instant before previous

    const res = await signedPost(t, PATH, {});
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      as_of: AS_OF,
      window_days: 7,
      current: {
        signed_in: 1,
        wizard_completed: 2,
        first_goal: 1,
        first_check_in: 2,
        first_badge: 2,
      },
      previous: {
        signed_in: 2,
        wizard_completed: 0,
        first_goal: 1,
        first_check_in: 0,
        first_badge: 0,
      },
      wow_pct: {
        signed_in: -50,
        wizard_completed: null,
        first_goal: 0,
        first_check_in: null,
        first_badge: null,
      },
      skip_run: false,
    });
    const [entry] = logged(t.log, "request").filter((e) => e.path === PATH);
    assert.ok((entry.statements as number) <= 3, `statements: ${entry.statements}`);
  });
});

Deno.test("activation funnel: rounding to one decimal across seeded windows", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    for (let i = 0; i < 3; i++) await seedUser(sql, { createdAt: `2026-01-0${2 + i}T00:00:00Z` });
    for (let i = 0; i < 4; i++) await seedUser(sql, { createdAt: `2026-01-1${i}T00:00:00Z` });
    const res = await signedPost(t, PATH, {});
    assert.equal(res.body.previous.signed_in, 3);
    assert.equal(res.body.current.signed_in, 4);
    assert.equal(res.body.wow_pct.signed_in, 33.3);
  });
});

Deno.test("activation funnel: a week without sign-ins skips the run; wow_pct is null where previous is 0", async () => {
  await withApp(ENV, async (t) => {
    await seedUser(t.deps.db.sql, { createdAt: "2026-01-05T00:00:00Z" });
    const res = await signedPost(t, PATH, {});
    assert.equal(res.status, 200);
    assert.equal(res.body.skip_run, true);
    assert.equal(res.body.current.signed_in, 0);
    assert.equal(res.body.previous.signed_in, 1);
    assert.deepEqual(res.body.wow_pct, {
      signed_in: -100,
      wizard_completed: null,
      first_goal: null,
      first_check_in: null,
      first_badge: null,
    });
  });
});

Deno.test("activation funnel: 401 for bad or missing signatures or an unset secret, 400 for malformed JSON", async () => {
  await withApp(ENV, async (t) => {
    assert.equal((await signedPost(t, PATH, {}, { signature: null })).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { secret: "other" })).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { signature: "f".repeat(64) })).status, 401);
    for (const bad of ["{", "", "{}}"]) {
      const res = await signedPost(t, PATH, bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error, "malformed_json");
    }
    assert.equal((await signedPost(t, PATH, "[]")).status, 400);
    const before = JSON.stringify(await t.deps.db.sql`select * from users`);
    assert.equal((await signedPost(t, PATH, {})).status, 200);
    assert.equal(JSON.stringify(await t.deps.db.sql`select * from users`), before);
  });
  await withApp({}, async (t) => {
    assert.equal((await signedPost(t, PATH, {})).status, 401);
  });
});

Deno.test("activation funnel: a failed computation is 422 with a JSON error and is reported", async () => {
  await withApp(ENV, async (t) => {
    await t.deps.db.sql`drop table activation_steps`;
    const res = await signedPost(t, PATH, {});
    assert.equal(res.status, 422);
    assert.equal(res.body.error, "computation_failed");
    assert.equal(typeof res.body.request_id, "string");
    assert.ok(!res.text.includes("activation_steps"), "no internals in the answer");
    assert.ok(
      t.log.entries.some((e) => e.level === "error" && e.request_id === res.body.request_id),
    );
  });
});

Deno.test("activation funnel: recording a step keeps the earliest time", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const user = await seedUser(sql);
    await recordActivationStep(sql, user.id, "first_goal", at("2026-01-10T00:00:00Z"));
    await recordActivationStep(sql, user.id, "first_goal", at("2026-01-12T00:00:00Z"));
    await recordActivationStep(sql, user.id, "first_goal", at("2026-01-09T00:00:00Z"));
    const rows = await sql<{ reached_at: Date }[]>`select reached_at from activation_steps`;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].reached_at.toISOString(), "2026-01-09T00:00:00.000Z");
  });
});
