import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import { dataOf, gql } from "../../support/graphql.ts";
import { ManualClock } from "../../../src/platform/clock.ts";

async function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({ clock, env: { ...idp.env, ADMIN_SUBJECTS: "admin-1", ...env } });
  return {
    t,
    clock,
    admin: await idp.token({ sub: "admin-1" }),
    user: await idp.token({ sub: "user-1" }),
    async close() {
      await t.close();
      await idp.close();
    },
  };
}

async function health(t: TestApp) {
  const res = await t.request("/health");
  return { status: res.status, body: await res.json() };
}

Deno.test("health: sidekiq figures are the queue's real counts and latency", async () => {
  const ctx = await setup();
  const { t, clock } = ctx;
  try {
    const jobs = t.app.jobs;
    jobs.handle("ok", () => {});
    jobs.handle("bad", () => {
      throw new Error("nope");
    });
    const sql = t.deps.db.sql;
    await jobs.enqueue(sql, "ok", {});
    await jobs.enqueue(sql, "bad", {});
    await jobs.runUntilIdle();
    await jobs.enqueue(sql, "ok", {}, { queue: "mail" });
    await jobs.enqueue(sql, "ok", {}, { queue: "mail" });
    await jobs.enqueue(sql, "ok", {}, { runAt: new Date(clock.now().getTime() + 3_600_000) });
    clock.advance(1_500);
    const { status, body } = await health(t);
    assert.equal(status, 200);
    const sidekiq = body.checks.sidekiq;
    assert.equal(sidekiq.status, "ok");
    assert.deepEqual([sidekiq.processed, sidekiq.failed, sidekiq.dead], [2, 1, 0]);
    // Ready jobs only: the retrying "bad" job and the future one are scheduled, not enqueued.
    assert.equal(sidekiq.enqueued, 2);
    const mail = sidekiq.queues.find((q: { name: string }) => q.name === "mail");
    assert.deepEqual(mail, { name: "mail", size: 2, latency: 1.5 });
    const def = sidekiq.queues.find((q: { name: string }) => q.name === "default");
    assert.deepEqual(def, { name: "default", size: 0, latency: 0 });
  } finally {
    await ctx.close();
  }
});

Deno.test("health: dead jobs above SIDEKIQ_DEAD_THRESHOLD degrade (503); failures alone never do", async () => {
  const ctx = await setup({ SIDEKIQ_DEAD_THRESHOLD: "1" });
  const { t } = ctx;
  try {
    const jobs = t.app.jobs;
    jobs.handle("bad", () => {
      throw new Error("nope");
    });
    for (let i = 0; i < 5; i++) await jobs.enqueue(t.deps.db.sql, "bad", {}, { maxAttempts: 5 });
    await jobs.runUntilIdle();
    let res = await health(t);
    assert.equal(res.body.checks.sidekiq.failed, 5);
    assert.equal(res.body.checks.sidekiq.status, "ok");
    assert.equal(res.status, 200);
    await jobs.enqueue(t.deps.db.sql, "bad", {}, { maxAttempts: 1 });
    await jobs.enqueue(t.deps.db.sql, "bad", {}, { maxAttempts: 1 });
    await jobs.runUntilIdle();
    res = await health(t);
    assert.equal(res.body.checks.sidekiq.dead, 2);
    assert.equal(res.body.checks.sidekiq.status, "degraded");
    assert.equal(res.status, 503);
  } finally {
    await ctx.close();
  }
});

Deno.test("health: the sidekiq check is an error when its query fails", async () => {
  const ctx = await setup();
  try {
    await ctx.t.deps.db.sql`alter table job_counters rename to job_counters_gone`;
    const { status, body } = await health(ctx.t);
    assert.equal(status, 503);
    assert.equal(body.checks.sidekiq.status, "error");
    assert.match(body.checks.sidekiq.message, /job_counters/);
  } finally {
    await ctx.close();
  }
});

const DEAD = `{ deadJobs { id queue name payload attempts lastError failedAt createdAt } }`;
const RETRY = `mutation($id: ID!) { retryDeadJob(id: $id) { ok errors } }`;
const DISCARD = `mutation($id: ID!) { discardDeadJob(id: $id) { ok errors } }`;

Deno.test("admin GraphQL: list, retry and discard dead jobs", async () => {
  const ctx = await setup();
  const { t, admin } = ctx;
  try {
    let healthy = false;
    let runs = 0;
    t.app.jobs.handle("sync", () => {
      runs++;
      if (!healthy) throw new Error("remote down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 1 }, { maxAttempts: 1 });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 2 }, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const dead = dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs;
    assert.equal(dead.length, 2);
    assert.equal(dead[0].name, "sync");
    assert.equal(dead[0].lastError, "Error: remote down");
    const one = dead.find((d: { payload: string }) => JSON.parse(d.payload).n === 1);
    const two = dead.find((d: { payload: string }) => JSON.parse(d.payload).n === 2);
    healthy = true;
    assert.deepEqual(dataOf(await gql(t, RETRY, { id: one.id }, { token: admin })).retryDeadJob, {
      ok: true,
      errors: [],
    });
    await t.app.jobs.runUntilIdle();
    assert.equal(runs, 3);
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      { ok: true, errors: [] },
    );
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      { ok: false, errors: ["no dead job with this id"] },
    );
    assert.deepEqual(dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs, []);
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: dead-job operations are FORBIDDEN to other users and change nothing", async () => {
  const ctx = await setup();
  const { t, user } = ctx;
  try {
    t.app.jobs.handle("sync", () => {
      throw new Error("down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", {}, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const [{ id }] = await t.app.jobs.listDeadJobs();
    for (const [query, vars] of [[DEAD, {}], [RETRY, { id }], [DISCARD, { id }]] as const) {
      const res = await gql(t, query, vars, { token: user });
      assert.equal(res.body.errors[0].extensions.code, "FORBIDDEN");
    }
    const anonymous = await gql(t, DEAD, {});
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
    assert.equal((await t.app.jobs.listDeadJobs()).length, 1);
  } finally {
    await ctx.close();
  }
});
