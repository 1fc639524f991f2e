/** `jobsOverview` (src/features/jobs/schema.ts): counts, queues with latency, schedules. */
import assert from "node:assert/strict";
import { dataOf, gql } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const OVERVIEW = `{ jobsOverview {
  processed failed enqueued dead
  queues { name size latencySeconds }
  schedules { name cron lastRunAt nextRunAt } } }`;

Deno.test("jobsOverview: counts, queue sizes and latency, schedules with last and next run", async () => {
  const s = await setup({ start: "2026-01-05T12:01:30Z", admins: ["admin-1"] });
  try {
    const overview = async () =>
      dataOf(await s.run(OVERVIEW, {}, "admin-1")).jobsOverview as {
        processed: number;
        failed: number;
        enqueued: number;
        dead: number;
        queues: { name: string; size: number; latencySeconds: number }[];
        schedules: { name: string; cron: string; lastRunAt: string | null; nextRunAt: string }[];
      };
    const before = await overview();
    const jobs = s.t.app.jobs;
    jobs.handle("overview.ok", () => {});
    jobs.handle("overview.broken", () => {
      throw new Error("down");
    });
    const sql = s.t.deps.db.sql;
    await jobs.enqueue(sql, "overview.ok", {});
    await jobs.enqueue(sql, "overview.broken", {}, { maxAttempts: 1 });
    await jobs.runUntilIdle();
    // Two jobs wait in their own queue for 30 seconds.
    await jobs.enqueue(sql, "overview.ok", {}, { queue: "overview_mail" });
    await jobs.enqueue(sql, "overview.ok", {}, { queue: "overview_mail" });
    s.clock.advance(30_000);

    const after = await overview();
    assert.equal(after.processed - before.processed, 2);
    assert.equal(after.failed - before.failed, 1);
    assert.equal(after.dead - before.dead, 1);
    assert.equal(after.enqueued - before.enqueued, 2);
    assert.deepEqual(after.queues.find((q) => q.name === "overview_mail"), {
      name: "overview_mail",
      size: 2,
      latencySeconds: 30,
    });

    const tick = after.schedules.find((x) => x.name === "ai_workforce.scheduler_tick");
    assert.deepEqual(tick, {
      name: "ai_workforce.scheduler_tick",
      cron: "*/5 * * * *",
      lastRunAt: null,
      nextRunAt: "2026-01-05T12:05:00.000Z",
    });
    const names = after.schedules.map((x) => x.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes("jobs.prune_schedule_slots"));

    // A fired slot is the last run; the next one follows the clock.
    assert.equal(
      await jobs.fireSchedule("ai_workforce.scheduler_tick", new Date("2026-01-05T12:00:00Z")),
      true,
    );
    s.clock.advance(4 * 60_000);
    const fired = (await overview()).schedules.find((x) =>
      x.name === "ai_workforce.scheduler_tick"
    );
    assert.equal(fired?.lastRunAt, "2026-01-05T12:00:00.000Z");
    assert.equal(fired?.nextRunAt, "2026-01-05T12:10:00.000Z");
  } finally {
    await s.close();
  }
});

Deno.test("jobsOverview: FORBIDDEN to a user who is not an admin, UNAUTHENTICATED without a session", async () => {
  const s = await setup({ admins: ["admin-1"] });
  try {
    const user = await gql(s.t, OVERVIEW, {}, { token: await s.token("user-1") });
    assert.equal(user.body.errors[0].extensions.code, "FORBIDDEN");
    assert.equal(user.body.data, null);
    const anonymous = await s.run(OVERVIEW, {}, null);
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
  } finally {
    await s.close();
  }
});
