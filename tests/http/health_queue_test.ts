/** The `sidekiq` check of `GET /health`: the job queue's real figures through the app. */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { ManualClock } from "../../src/platform/clock.ts";

async function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const t = await createTestApp({ clock, env });
  return { t, clock, close: () => t.close() };
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
    await ctx.t.deps.db.sql`alter table if exists job_counters_gone rename to job_counters`;
    await ctx.close();
  }
});
