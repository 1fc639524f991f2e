import assert from "node:assert/strict";
import { createTestDatabase, DB_MODE, secondPool } from "../../support/db.ts";
import { createTestJobs, shutDownMidJob } from "../../support/jobs.ts";
import { waitFor } from "../../support/wait.ts";
import { ManualClock, systemClock } from "../../../src/platform/clock.ts";
import type { Database } from "../../../src/platform/db.ts";

const JOBS = 2_000;

Deno.test("jobs: 2,000 jobs, 4 workers on 2 pools: each runs exactly once", async () => {
  const db = await createTestDatabase({ poolSize: 3 });
  // Real PostgreSQL: a second, independent pool, as a second instance would have. Embedded mode
  // is one session by design, so both workers share it.
  const other: Database = DB_MODE === "postgres"
    ? { ...db, sql: secondPool(db, 3), close: async () => {} }
    : db;
  const runs = new Map<number, number>();
  const systems = [db, other].map((d) =>
    createTestJobs(d, { clock: systemClock, concurrency: 2, pollIntervalMs: 20 }).jobs
  );
  for (const jobs of systems) {
    jobs.handle("tick", async (payload) => {
      const n = (payload as { n: number }).n;
      runs.set(n, (runs.get(n) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 0));
    });
  }
  try {
    await db.sql`
      insert into jobs (name, payload, run_at, created_at)
      select 'tick', jsonb_build_object('n', n), now(), now() from generate_series(1, ${JOBS}) n`;
    await Promise.all(systems.map((j) => j.start()));
    await waitFor(async () => (await systems[0].figures()).processed >= JOBS, {
      timeoutMs: 120_000,
      intervalMs: 100,
      what: `${JOBS} processed jobs`,
    });
    await Promise.all(systems.map((j) => j.stop()));
    assert.equal(runs.size, JOBS, "no job lost");
    assert.deepEqual([...runs.values()].filter((c) => c !== 1), [], "no job ran twice");
    const figures = await systems[0].figures();
    assert.equal(figures.processed, JOBS);
    assert.equal(figures.enqueued, 0);
  } finally {
    await Promise.all(systems.map((j) => j.stop()));
    if (other !== db) await other.sql.end();
    await db.close();
  }
});

Deno.test("jobs: stop waits for running jobs within the grace period", async () => {
  const db = await createTestDatabase();
  // Grace far longer than the test: stop() returns because the job ended, not because grace did.
  const { jobs } = createTestJobs(db, { clock: systemClock, pollIntervalMs: 10, graceMs: 60_000 });
  let finished = 0;
  let started!: () => void;
  const running = new Promise<void>((r) => started = r);
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  jobs.handle("short", async () => {
    started();
    await hang;
    finished++;
  });
  try {
    await jobs.enqueue(db.sql, "short", {});
    await jobs.start();
    await running;
    let stopped = false;
    const stopping = jobs.stop().then(() => (stopped = true));
    // The job is still held by the worker, and stop() has not returned without it.
    const [row] = await db.sql`select locked_by from jobs`;
    assert.notEqual(row.locked_by, null);
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.equal(finished, 1);
    assert.equal((await jobs.figures()).processed, 1);
  } finally {
    release();
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: stop releases a job that outlives the grace period, its attempt counted", async () => {
  const db = await createTestDatabase();
  const { jobs, log } = createTestJobs(db, {
    clock: systemClock,
    pollIntervalMs: 10,
    graceMs: 50,
  });
  let started!: () => void;
  const running = new Promise<void>((r) => started = r);
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  jobs.handle("slow", async () => {
    started();
    await hang;
  });
  try {
    await jobs.enqueue(db.sql, "slow", {});
    await jobs.start();
    await running;
    await jobs.stop();
    const [row] = await db.sql`select attempts, locked_by, locked_at, last_error from jobs`;
    assert.deepEqual([row.attempts, row.locked_by, row.locked_at], [1, null, null]);
    assert.match(row.last_error, /did not finish before shutdown/);
    assert.equal(log.entries.filter((e) => e.msg === "jobs released at shutdown").length, 1);
    // The released job's late completion must not delete the job someone else may now hold.
    release();
    // Its completion is attempted, finds the lock gone, and says so: only then is the row checked.
    await waitFor(
      () => log.entries.some((e) => e.msg === "jobs finished after their lock was lost"),
      { what: "the late completion to be refused" },
    );
    const [{ count }] = await db.sql`select count(*)::int from jobs`;
    assert.equal(count, 1);
  } finally {
    release();
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: a job that never finishes before shutdown goes dead after its last attempt", async () => {
  const db = await createTestDatabase();
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  try {
    await db.sql`insert into jobs (name, payload, run_at, max_attempts, created_at)
                 values ('endless', '{}', now(), 2, now())`;
    for (let deploy = 1; deploy <= 2; deploy++) {
      const { log } = await shutDownMidJob(db, "endless", hang, { clock: systemClock });
      const expected = deploy === 1 ? "jobs released at shutdown" : "job dead";
      assert.ok(log.entries.some((e) => e.msg === expected), `deploy ${deploy}: ${expected}`);
    }
    const { jobs } = createTestJobs(db, { clock: systemClock });
    const dead = await jobs.listDeadJobs();
    assert.equal(dead.length, 1);
    assert.equal(dead[0].attempts, 2);
    assert.match(dead[0].lastError!, /did not finish before shutdown/);
    assert.equal(await jobs.runUntilIdle(), 0);
  } finally {
    release();
    await db.close();
  }
});

Deno.test("jobs: a live worker keeps the lock of a job that runs longer than the lock timeout", async () => {
  const db = await createTestDatabase({ poolSize: 3 });
  // Lock ages are read on the injected clock; the heartbeat itself fires every 100 ms of real time.
  const clock = new ManualClock();
  const options = { clock, pollIntervalMs: 20, lockTimeoutMs: 400 };
  const first = createTestJobs(db, options).jobs;
  const second = createTestJobs(db, options).jobs;
  const runs: string[] = [];
  let firstStarted!: () => void;
  const started = new Promise<void>((r) => firstStarted = r);
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  first.handle("long", async () => {
    runs.push("first");
    firstStarted();
    await hang;
  });
  second.handle("long", () => {
    runs.push("second");
  });
  try {
    await first.enqueue(db.sql, "long", {});
    await first.start();
    await started;
    // Six steps of 300 ms (4.5 lock timeouts): without heartbeats the lock would be stale from the
    // second step on. Each step the second worker claims all it can, with the lock as old as it
    // gets between two heartbeats, then waits for the first worker's heartbeat to refresh it.
    for (let step = 1; step <= 6; step++) {
      clock.advance(300);
      const at = clock.now().getTime();
      assert.equal(await second.runUntilIdle(), 0, `step ${step}: the job was taken over`);
      await waitFor(async () => {
        const [row] = await db.sql<{ locked_at: Date }[]>`select locked_at from jobs`;
        return row.locked_at.getTime() === at;
      }, { timeoutMs: 10_000, what: `the heartbeat to refresh the lock at step ${step}` });
    }
    release();
    await waitFor(async () => (await first.figures()).processed === 1, {
      timeoutMs: 10_000,
      what: "the long job to finish",
    });
    assert.deepEqual(runs, ["first"]);
  } finally {
    release();
    await Promise.all([first.stop(), second.stop()]);
    await db.close();
  }
});

Deno.test("jobs: the start-up log says how workers wake up", async () => {
  const db = await createTestDatabase();
  const { jobs, log } = createTestJobs(db, { clock: systemClock });
  try {
    await jobs.start();
    const [entry] = log.entries.filter((e) => e.msg === "job worker started");
    assert.equal(
      entry.wakeup,
      DB_MODE === "postgres" ? "listen/notify" : "polling every 1000 ms",
    );
  } finally {
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: a new job wakes an idle worker (PostgreSQL: by notification; embedded: by polling)", async () => {
  const db = await createTestDatabase();
  // With a one-minute poll on PostgreSQL, only the notification can wake the worker in time.
  const pollIntervalMs = DB_MODE === "postgres" ? 60_000 : 50;
  const { jobs } = createTestJobs(db, { clock: systemClock, pollIntervalMs });
  let done!: () => void;
  const ran = new Promise<void>((r) => done = r);
  jobs.handle("wake", () => done());
  // A first job that runs until the end of the test: once it has started, the worker has claimed
  // it and gone to sleep (it claims, dispatches and sleeps in one step), so no claim is in
  // flight when "wake" is enqueued.
  let firstStarted!: () => void;
  const first = new Promise<void>((r) => firstStarted = r);
  let release!: () => void;
  const hold = new Promise<void>((r) => release = r);
  jobs.handle("first", async () => {
    firstStarted();
    await hold;
  });
  try {
    await jobs.enqueue(db.sql, "first", {});
    await jobs.start();
    await first;
    await db.sql.begin((tx) => jobs.enqueue(tx, "wake", {}));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise((_, reject) =>
      timer = setTimeout(() => reject(new Error("not woken")), 10_000)
    );
    await Promise.race([ran, timeout]);
    clearTimeout(timer);
  } finally {
    release();
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: jobs claimed ahead into the local queue go back at shutdown, their attempt unspent", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db, {
    clock: systemClock,
    pollIntervalMs: 10,
    concurrency: 1,
    localQueueSize: 4,
    graceMs: 60_000,
  });
  let started!: () => void;
  const running = new Promise<void>((r) => started = r);
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  let runs = 0;
  jobs.handle("held", async () => {
    runs++;
    started();
    await hang;
  });
  try {
    await jobs.enqueueMany(
      db.sql,
      Array.from({ length: 5 }, () => ({ kind: "held", payload: {} })),
    );
    await jobs.start();
    await running;
    // One claim took the running job and four more to wait behind it.
    const locked = await db.sql`select attempts from jobs where locked_by is not null`;
    assert.deepEqual(locked.map((r) => r.attempts), [1, 1, 1, 1, 1]);
    const stopping = jobs.stop();
    await waitFor(async () => {
      const [{ count }] = await db.sql`
        select count(*)::int from jobs where locked_by is null and attempts = 0`;
      return count === 4;
    }, { what: "the waiting jobs to be handed back" });
    release();
    await stopping;
    assert.equal(runs, 1);
    const rows = await db.sql`select attempts, locked_by from jobs`;
    assert.deepEqual(rows.map((r) => [r.attempts, r.locked_by]), [[0, null], [0, null], [0, null], [
      0,
      null,
    ]]);
  } finally {
    release();
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: jobs waiting behind a long job are handed back after half the lock timeout, for another worker", async () => {
  const db = await createTestDatabase({ poolSize: 3 });
  const clock = new ManualClock();
  const options = { clock, pollIntervalMs: 20, lockTimeoutMs: 400 };
  const first = createTestJobs(db, { ...options, concurrency: 1, localQueueSize: 4 }).jobs;
  const second = createTestJobs(db, { ...options, concurrency: 1 }).jobs;
  const ranBy: string[] = [];
  let firstStarted!: () => void;
  const started = new Promise<void>((r) => firstStarted = r);
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  first.handle("work", async (payload) => {
    ranBy.push(`first:${(payload as { n: number }).n}`);
    firstStarted();
    await hang;
  });
  second.handle("work", (payload) => {
    ranBy.push(`second:${(payload as { n: number }).n}`);
  });
  try {
    await first.enqueueMany(
      db.sql,
      [1, 2, 3, 4, 5].map((n) => ({ kind: "work", payload: { n } })),
    );
    await first.start();
    await started;
    // One claim took all five: one runs, four wait in the first worker's local queue.
    assert.equal(await second.runUntilIdle(), 0, "the waiting jobs are held");
    clock.advance(199);
    assert.equal(await second.runUntilIdle(), 0, "still held just before half the lock timeout");
    clock.advance(1);
    await waitFor(async () => {
      const [{ count }] = await db.sql`select count(*)::int from jobs where locked_by is null`;
      return count === 4;
    }, { timeoutMs: 10_000, what: "the next heartbeat to hand the four waiting jobs back" });
    assert.equal(await second.runUntilIdle(), 4);
    release();
    await waitFor(async () => (await first.figures()).processed === 5, {
      timeoutMs: 10_000,
      what: "all five jobs to finish",
    });
    assert.deepEqual(ranBy.sort(), ["first:1", "second:2", "second:3", "second:4", "second:5"]);
    const [{ count }] = await db.sql`select count(*)::int from jobs`;
    assert.equal(count, 0);
  } finally {
    release();
    await Promise.all([first.stop(), second.stop()]);
    await db.close();
  }
});
