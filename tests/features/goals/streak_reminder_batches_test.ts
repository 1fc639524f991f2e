/**
 * The streak reminder in bounded batches (docs/jobs.md, "Fan-out"), with a batch of 3: each zone's
 * users are walked in id order, zone after zone; every user at risk is reminded once, a batch run
 * twice writes nothing more and queues its next batch once, and payloads stay small.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN } from "../../support/social.ts";
import type { ReminderBatch } from "../../../src/features/goals/rules.ts";
import {
  remindBatch,
  reminderBatchJob,
  remindStreaksAtRisk,
} from "../../../src/features/goals/service.ts";

const SET_ZONE = `mutation($tz: String!) { updateMe(timeZone: $tz) { errors { code } } }`;
const MUTE = `mutation { setNotificationPreference(kind: "streak.at_risk", enabled: false) {
  errors { code } } }`;
const SLOT = "2026-03-02T20:00:00Z";

/** `who` in `timeZone` with a daily habit, checked in yesterday (a streak at risk) or never. */
async function habitUser(s: TestSetup, who: string, timeZone: string, streak: boolean) {
  assert.deepEqual((await s.as(who).data(SET_ZONE, { tz: timeZone })).updateMe.errors, []);
  const habit = (await s.as(who).data(ADD_HABIT, { title: `Habit of ${who}` })).addGoal.goal;
  if (streak) {
    const done = (await s.as(who).data(CHECK_IN, { goalId: habit.id, date: "2026-03-01" }))
      .checkInHabit;
    assert.deepEqual(done.errors, []);
  }
}

async function reminded(s: TestSetup) {
  const rows = await s.t.deps.db.sql<{ who: string; n: number }[]>`
    select u.subject as who, count(*)::int as n from notifications n
    join users u on u.id = n.user_id
    where n.kind = 'streak.at_risk' group by u.subject order by u.subject`;
  return rows.map((r) => [r.who, r.n]);
}

async function queuedBatches(s: TestSetup) {
  return await s.t.deps.db.sql<{ id: string; payload: ReminderBatch; bytes: number }[]>`
    select id, payload, octet_length(payload::text) as bytes from jobs
    where name = ${reminderBatchJob.name} and dead_at is null order by id`;
}

Deno.test("streak reminder batches: each user at risk once, zone after zone, whatever runs twice", async () => {
  const s = await setup({ start: "2026-03-02T10:00:00Z", env: { FAN_OUT_BATCH_SIZE: "3" } });
  try {
    // UTC: ten users (ids ascending) with two without a streak and one muted among them; London
    // (UTC+0 in March): three, a full batch.
    const utc = ["a0", "f0", "a1", "a2", "m0", "a3", "f1", "a4", "a5", "a6"];
    for (const who of utc) await habitUser(s, who, "UTC", !who.startsWith("f"));
    assert.deepEqual((await s.as("m0").data(MUTE)).setNotificationPreference.errors, []);
    for (const who of ["l0", "l1", "l2"]) await habitUser(s, who, "Europe/London", true);
    // Evening elsewhere is not now: Tokyo's users are not walked.
    await habitUser(s, "t0", "Asia/Tokyo", true);
    await s.t.app.jobs.runUntilIdle();

    const deps = {
      db: s.t.deps.db,
      jobs: s.t.app.jobs,
      notifications: s.t.app.features.notifications.api,
      fanOutBatchSize: s.t.deps.config.fanOutBatchSize,
    };
    assert.equal(deps.fanOutBatchSize, 3, "FAN_OUT_BATCH_SIZE");
    s.clock.set(SLOT);
    await remindStreaksAtRisk(deps, new Date(SLOT));

    const walked: { zone: string; users: number }[] = [];
    const payloadBytes: number[] = [];
    for (let round = 0; round < 20; round++) {
      const queued = await queuedBatches(s);
      if (!queued.length) break;
      assert.equal(queued.length, 1, "one batch waits at a time");
      const [job] = queued;
      payloadBytes.push(job.bytes);
      await s.t.deps.db.sql`delete from jobs where id = ${job.id}`;
      const written = await remindBatch(deps, job.payload);
      assert.equal(await remindBatch(deps, job.payload), 0, "the batch again writes nothing");
      assert.ok((await queuedBatches(s)).length <= 1, "and queues its next batch once");
      walked.push({ zone: job.payload.zones[0].timeZone, users: written });
    }

    const byZone = (zone: string) => walked.filter((w) => w.zone === zone).map((w) => w.users);
    // UTC: [a0 f0 a1] [a2 m0 a3] [f1 a4 a5] [a6]; London: [l0 l1 l2], then an empty page.
    assert.deepEqual(byZone("UTC"), [2, 2, 2, 1]);
    assert.deepEqual(byZone("Europe/London"), [3, 0]);
    assert.equal(walked.length, 6);
    assert.ok(Math.max(...payloadBytes) < 512, `batch payloads of ${payloadBytes} bytes`);

    const expected = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "l0", "l1", "l2"]
      .map((who) => [who, 1]);
    assert.deepEqual(await reminded(s), expected);

    // The slot fired through the worker as well: the walk again, no one reminded twice.
    await s.t.app.jobs.fireSchedule("goals.streak_at_risk", new Date(SLOT));
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(await reminded(s), expected);
  } finally {
    await s.close();
  }
});
