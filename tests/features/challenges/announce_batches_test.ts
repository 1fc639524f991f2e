/**
 * Challenge announcements in bounded batches (docs/jobs.md, "Fan-out"), with a batch of 3: every
 * participant is told once, a batch run twice writes nothing more and queues its next batch once,
 * payloads stay small, and end ranks carry across batches.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, createCommunity, JOIN, SOCIAL } from "../../support/social.ts";
import type { AnnounceBatch } from "../../../src/features/challenges/rules.ts";
import {
  announce,
  announceBatch,
  announceBatchJob,
} from "../../../src/features/challenges/service.ts";

const BATCH = 3;
const PEOPLE = Array.from({ length: 10 }, (_, i) => `p${i}`);
const CREATE = `mutation($id: String!) { createCommunityChallenge(communityId: $id,
  title: "Spring", metric: check_ins, startsAt: "2026-03-02T13:00:00Z",
  endsAt: "2026-03-05T13:00:00Z") { challenge { id } errors { code } } }`;
const ENTER = `mutation($id: String!) {
  joinCommunityChallenge(challengeId: $id) { errors { code } } }`;
const MUTE = `mutation($kind: String!) {
  setNotificationPreference(kind: $kind, enabled: false) { errors { code } } }`;

/** Ten participants, joined in order (so their user ids ascend). */
async function challengeOfTen(s: TestSetup) {
  const c = await createCommunity(s, "owner", { name: "Runners", visibility: "public" });
  const created = (await s.as("owner").data(CREATE, { id: c.id })).createCommunityChallenge;
  assert.deepEqual(created.errors, []);
  for (const who of PEOPLE) {
    assert.deepEqual((await s.as(who).data(JOIN, { id: c.id })).joinCommunity.errors, []);
    assert.deepEqual(
      (await s.as(who).data(ENTER, { id: created.challenge.id })).joinCommunityChallenge.errors,
      [],
    );
  }
}

/** Stored notifications of `kind`: [recipient, content], by recipient. */
async function told(s: TestSetup, kind: string) {
  const rows = await s.t.deps.db.sql<{ who: string; content: string }[]>`
    select u.subject as who, n.content from notifications n join users u on u.id = n.user_id
    where n.kind = ${kind} order by u.subject, n.id`;
  return rows.map((r) => [r.who, r.content]);
}

async function queuedBatches(s: TestSetup) {
  return await s.t.deps.db.sql<{ id: string; payload: AnnounceBatch; bytes: number }[]>`
    select id, payload, octet_length(payload::text) as bytes from jobs
    where name = ${announceBatchJob.name} and dead_at is null order by id`;
}

Deno.test("announce batches: a start is told once to each participant, whatever runs twice", async () => {
  const s = await setup({ ...SOCIAL, env: { FAN_OUT_BATCH_SIZE: String(BATCH) } });
  try {
    await challengeOfTen(s);
    // Three in a row muted: a batch that writes nothing still goes on.
    for (const who of ["p3", "p4", "p5"]) {
      assert.deepEqual(
        (await s.as(who).data(MUTE, { kind: "challenge.started" })).setNotificationPreference
          .errors,
        [],
      );
    }
    const sql = s.t.deps.db.sql;
    await s.t.app.jobs.runUntilIdle();
    const deps = {
      db: s.t.deps.db,
      clock: s.clock,
      jobs: s.t.app.jobs,
      notifications: s.t.app.features.notifications.api,
      fanOutBatchSize: s.t.deps.config.fanOutBatchSize,
    };
    assert.equal(deps.fanOutBatchSize, BATCH, "FAN_OUT_BATCH_SIZE");
    s.clock.set("2026-03-02T13:00:00Z");
    await announce(deps);
    await announce(deps);

    const written: number[] = [];
    const payloadBytes: number[] = [];
    for (let round = 0; round < 10; round++) {
      const queued = await queuedBatches(s);
      if (!queued.length) break;
      assert.equal(queued.length, 1, "one batch waits at a time");
      const [job] = queued;
      payloadBytes.push(job.bytes);
      // The worker's part: the job is taken; then the batch runs, and runs again (a retry).
      await sql`delete from jobs where id = ${job.id}`;
      written.push(await announceBatch(deps, job.payload));
      assert.equal(await announceBatch(deps, job.payload), 0, "the batch again writes nothing");
      assert.ok((await queuedBatches(s)).length <= 1, "and queues its next batch once");
    }
    assert.deepEqual(written, [3, 0, 3, 1], "10 participants, 3 a batch, p3-p5 muted");
    assert.ok(Math.max(...payloadBytes) < 256, `batch payloads of ${payloadBytes} bytes`);

    const broadcasts = await sql<{ ids: string[] }[]>`
      select payload -> 'ids' as ids from jobs where name = 'notifications.broadcast' order by id`;
    assert.deepEqual(broadcasts.map((b) => b.ids.length), [3, 3, 1], "a broadcast per batch");

    const expected = PEOPLE.filter((p) => !["p3", "p4", "p5"].includes(p))
      .map((p) => [p, 'The challenge "Spring" has started.']);
    assert.deepEqual(await told(s, "challenge.started"), expected, "each participant once");
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(await told(s, "challenge.started"), expected, "the schedule marked it done");
  } finally {
    await s.close();
  }
});

Deno.test("announce batches: an end carries ranks across batches, and a rerun tells no one twice", async () => {
  const s = await setup({ ...SOCIAL, env: { FAN_OUT_BATCH_SIZE: String(BATCH) } });
  try {
    await challengeOfTen(s);
    const fire = async (at: string) => {
      s.clock.set(at);
      await s.t.app.jobs.fireSchedule("challenges.announce", new Date(at));
      await s.t.app.jobs.runUntilIdle();
    };
    await fire("2026-03-02T13:00:00Z");
    // Scores: p0 2, p1-p4 1, the others 0 (ties on both sides of batch edges).
    s.clock.set("2026-03-03T12:00:00Z");
    const habits = new Map<string, string>();
    for (const who of PEOPLE.slice(0, 5)) {
      const habit = (await s.as(who).data(ADD_HABIT, { title: "Run" })).addGoal.goal;
      habits.set(who, habit.id);
      assert.deepEqual(
        (await s.as(who).data(CHECK_IN, { goalId: habit.id })).checkInHabit.errors,
        [],
      );
    }
    s.clock.set("2026-03-04T12:00:00Z");
    assert.deepEqual(
      (await s.as("p0").data(CHECK_IN, { goalId: habits.get("p0") })).checkInHabit.errors,
      [],
    );
    await s.t.app.jobs.runUntilIdle();

    const batchesRun = () =>
      s.t.log.entries.filter((e) => e.msg === "job done" && e.job === announceBatchJob.name)
        .length;
    const before = batchesRun();
    await fire("2026-03-05T13:00:00Z");
    assert.equal(batchesRun() - before, 4, "10 participants in batches of 3");
    const ended = (rank: number, score: number) =>
      `The challenge "Spring" has ended: you finished #${rank} of 10 with a score of ${score}.`;
    const expected = PEOPLE.map((
      p,
      i,
    ) => [p, i === 0 ? ended(1, 2) : i < 5 ? ended(2, 1) : ended(6, 0)]);
    assert.deepEqual(await told(s, "challenge.ended"), expected);

    // The whole announcement delivered again from its first batch: nothing more.
    const [challenge] = await s.t.deps.db.sql<{ id: string }[]>`
      select id from community_challenges`;
    await s.t.app.jobs.enqueue(s.t.deps.db.sql, announceBatchJob, {
      challengeId: challenge.id,
      kind: "ended",
      after: null,
      size: BATCH,
    });
    await s.t.app.jobs.runUntilIdle();
    assert.equal(batchesRun() - before, 8, "the whole walk again");
    assert.deepEqual(await told(s, "challenge.ended"), expected, "no one told twice");
    assert.equal((await told(s, "challenge.started")).length, 10);
  } finally {
    await s.close();
  }
});
