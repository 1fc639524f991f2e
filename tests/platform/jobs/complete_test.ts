/**
 * `job.complete(tx?)`: a handler that completes its own job leaves nothing to run again once it
 * has returned, even when its worker is killed before the worker's batched completion is written;
 * completed inside a transaction, the job's completion commits or rolls back with the effect.
 */
import assert from "node:assert/strict";
import { createTestDatabase } from "../../support/db.ts";
import { createTestJobs, killable } from "../../support/jobs.ts";
import type { Database } from "../../../src/platform/db.ts";
import type { ManualClock } from "../../../src/platform/clock.ts";
import type { JobInfo } from "../../../src/platform/jobs/types.ts";

const LOCK_TIMEOUT_MS = 1_000;

type Handler = (db: Database, payload: { n: number }, job: JobInfo) => Promise<void>;

/**
 * Runs the one queued `effect` job on a worker that is killed as soon as `handler` returns, then
 * lets its lock go stale and has a second worker run whatever is left; the effects recorded.
 */
async function killedAfterHandler(handler: Handler): Promise<number[]> {
  const db = await createTestDatabase();
  try {
    await db.sql`create table effects (n int not null)`;
    const survivor = createTestJobs(db, { lockTimeoutMs: LOCK_TIMEOUT_MS, concurrency: 1 });
    const clock = survivor.clock as ManualClock;
    const victim = killable(db);
    const doomed = createTestJobs(victim.db, {
      clock,
      lockTimeoutMs: LOCK_TIMEOUT_MS,
      concurrency: 1,
    });
    doomed.jobs.handle("effect", async (payload, job) => {
      await handler(victim.db, payload as { n: number }, job);
      victim.kill();
    });
    survivor.jobs.handle("effect", (payload, job) => handler(db, payload as { n: number }, job));
    await db.sql.begin((tx) => survivor.jobs.enqueue(tx, "effect", { n: 1 }));
    // The killed worker's next statement (its completion, its next claim) fails.
    await assert.rejects(doomed.jobs.runUntilIdle(), /killed/);
    clock.advance(LOCK_TIMEOUT_MS + 1);
    await survivor.jobs.runUntilIdle();
    const [{ left }] = await db.sql`select count(*)::int as left from jobs`;
    assert.equal(left, 0, "nothing left in the queue");
    return (await db.sql<{ n: number }[]>`select n from effects`).map((r) => r.n);
  } finally {
    await db.close();
  }
}

Deno.test("jobs: a job completed by the worker's batch runs again when the worker is killed right after its handler", async () => {
  const effects = await killedAfterHandler(async (db, { n }) => {
    await db.sql`insert into effects (n) values (${n})`;
  });
  assert.deepEqual(effects, [1, 1], "the effect happened twice: the batch never got written");
});

Deno.test("jobs: a job its handler completed is not run again when the worker is killed right after", async () => {
  const effects = await killedAfterHandler(async (db, { n }, job) => {
    await db.sql`insert into effects (n) values (${n})`;
    assert.equal(await job.complete(), true);
  });
  assert.deepEqual(effects, [1]);
});

Deno.test("jobs: a job completed in the transaction of its effect is not run again when the worker is killed right after", async () => {
  const effects = await killedAfterHandler(async (db, { n }, job) => {
    await db.sql.begin(async (tx) => {
      await tx`insert into effects (n) values (${n})`;
      assert.equal(await job.complete(tx), true);
    });
  });
  assert.deepEqual(effects, [1]);
});

Deno.test("jobs: completed in a transaction that rolls back, the job fails and is retried, its effect undone", async () => {
  const db = await createTestDatabase();
  try {
    await db.sql`create table effects (n int not null)`;
    const { jobs, clock } = createTestJobs(db);
    let runs = 0;
    jobs.handle("effect", async (_payload, job) => {
      runs++;
      await db.sql.begin(async (tx) => {
        await tx`insert into effects (n) values (${runs})`;
        await job.complete(tx);
        if (runs === 1) throw new Error("the effect failed");
      });
    });
    await db.sql.begin((tx) => jobs.enqueue(tx, "effect", {}));
    await jobs.runUntilIdle();
    assert.equal((await jobs.listRetryingJobs()).length, 1, "the job waits for its retry");
    assert.deepEqual((await db.sql`select n from effects`).map((r) => r.n), []);
    (clock as ManualClock).advance(60_000);
    await jobs.runUntilIdle();
    assert.deepEqual((await db.sql`select n from effects`).map((r) => r.n), [2]);
    const figures = await jobs.figures();
    assert.deepEqual([figures.processed, figures.failed, figures.enqueued], [2, 1, 0]);
  } finally {
    await db.close();
  }
});
