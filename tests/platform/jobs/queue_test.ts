import assert from "node:assert/strict";
import { createTestDatabase } from "../../support/db.ts";
import { createTestJobs } from "../../support/jobs.ts";
import type { ManualClock } from "../../../src/platform/clock.ts";
import { refreshLocks, WORKER_LOST } from "../../../src/platform/jobs/store.ts";

async function withJobs(
  fn: (ctx: Awaited<ReturnType<typeof setup>>) => void | Promise<void>,
): Promise<void> {
  const ctx = await setup();
  try {
    await fn(ctx);
  } finally {
    await ctx.db.close();
  }
}

async function setup() {
  const db = await createTestDatabase();
  const { jobs, log, clock } = createTestJobs(db);
  return { db, jobs, log, clock: clock as ManualClock };
}

Deno.test("jobs: an enqueued job runs once with its payload and counts as processed", async () => {
  await withJobs(async ({ db, jobs }) => {
    const seen: unknown[] = [];
    jobs.handle("greet", (payload, job) => {
      seen.push({ payload, attempt: job.attempt, queue: job.queue });
    });
    await db.sql.begin((tx) => jobs.enqueue(tx, "greet", { to: "ada" }, { queue: "mail" }));
    assert.equal(await jobs.runUntilIdle(), 1);
    assert.deepEqual(seen, [{ payload: { to: "ada" }, attempt: 1, queue: "mail" }]);
    assert.equal(await jobs.runUntilIdle(), 0);
    const figures = await jobs.figures();
    assert.equal(figures.processed, 1);
    assert.equal(figures.failed, 0);
    const [{ count }] = await db.sql`select count(*)::int from jobs`;
    assert.equal(count, 0);
  });
});

Deno.test("jobs: a job enqueued in a rolled-back transaction never runs", async () => {
  await withJobs(async ({ db, jobs }) => {
    let runs = 0;
    jobs.handle("count", () => {
      runs++;
    });
    await assert.rejects(
      db.sql.begin(async (tx) => {
        await jobs.enqueue(tx, "count", {});
        throw new Error("the change failed");
      }),
      /the change failed/,
    );
    assert.equal(await jobs.runUntilIdle(), 0);
    assert.equal(runs, 0);
  });
});

Deno.test("jobs: a key makes enqueue idempotent while the job exists", async () => {
  await withJobs(async ({ db, jobs }) => {
    let runs = 0;
    jobs.handle("once", () => {
      runs++;
    });
    const first = await jobs.enqueue(db.sql, "once", {}, { key: "k1" });
    const second = await jobs.enqueue(db.sql, "once", {}, { key: "k1" });
    assert.ok(first);
    assert.equal(second, null);
    await jobs.runUntilIdle();
    assert.equal(runs, 1);
  });
});

Deno.test("jobs: runAt delays a job until it is due", async () => {
  await withJobs(async ({ db, jobs, clock }) => {
    let runs = 0;
    jobs.handle("later", () => {
      runs++;
    });
    await jobs.enqueue(db.sql, "later", {}, { runAt: new Date(clock.now().getTime() + 60_000) });
    assert.equal(await jobs.runUntilIdle(), 0);
    clock.advance(60_000);
    assert.equal(await jobs.runUntilIdle(), 1);
    assert.equal(runs, 1);
  });
});

Deno.test("jobs: failures retry with backoff, then the job is dead", async () => {
  await withJobs(async ({ db, jobs, clock, log }) => {
    const attempts: number[] = [];
    jobs.handle("flaky", (_p, job) => {
      attempts.push(job.attempt);
      throw new Error(`boom ${job.attempt}`);
    });
    await jobs.enqueue(db.sql, "flaky", { n: 1 }, { maxAttempts: 3 });
    assert.equal(await jobs.runUntilIdle(), 1);
    const [row] = await db.sql`select run_at, attempts, last_error, locked_by from jobs`;
    // random() = 0.5 in tests: the first retry waits exactly 2 s.
    assert.equal(row.run_at.getTime() - clock.now().getTime(), 2_000);
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, "Error: boom 1");
    assert.equal(row.locked_by, null);
    clock.advance(1_999);
    assert.equal(await jobs.runUntilIdle(), 0);
    clock.advance(1);
    assert.equal(await jobs.runUntilIdle(), 1);
    clock.advance(4_000);
    assert.equal(await jobs.runUntilIdle(), 1);
    clock.advance(3_600_000);
    assert.equal(await jobs.runUntilIdle(), 0, "a dead job is never claimed");
    assert.deepEqual(attempts, [1, 2, 3]);
    const figures = await jobs.figures();
    assert.deepEqual([figures.processed, figures.failed, figures.dead], [3, 3, 1]);
    const dead = await jobs.listDeadJobs();
    assert.equal(dead.length, 1);
    assert.equal(dead[0].name, "flaky");
    assert.equal(dead[0].attempts, 3);
    assert.equal(dead[0].lastError, "Error: boom 3");
    assert.deepEqual(dead[0].payload, { n: 1 });
    assert.match(dead[0].id, /^[A-Za-z0-9_-]{16,}$/);
    assert.equal(log.entries.filter((e) => e.msg === "job failed, will retry").length, 2);
    assert.equal(log.entries.filter((e) => e.msg === "job dead").length, 1);
  });
});

Deno.test("jobs: a dead job can be retried or discarded, once", async () => {
  await withJobs(async ({ db, jobs }) => {
    let fail = true;
    let ok = 0;
    jobs.handle("x", () => {
      if (fail) throw new Error("no");
      ok++;
    });
    await jobs.enqueue(db.sql, "x", { a: 1 }, { maxAttempts: 1 });
    await jobs.enqueue(db.sql, "x", { a: 2 }, { maxAttempts: 1 });
    await jobs.runUntilIdle();
    const dead = await jobs.listDeadJobs();
    assert.equal(dead.length, 2);
    const byPayload = (a: number) => dead.find((d) => (d.payload as { a: number }).a === a)!;
    fail = false;
    assert.deepEqual((await jobs.retryDeadJob(byPayload(1).id))?.payload, { a: 1 });
    assert.equal(await jobs.retryDeadJob(byPayload(1).id), null);
    assert.equal(await jobs.runUntilIdle(), 1);
    assert.equal(ok, 1);
    assert.deepEqual(await jobs.discardDeadJob(byPayload(2).id), byPayload(2));
    assert.equal(await jobs.discardDeadJob(byPayload(2).id), null);
    assert.equal(await jobs.retryDeadJob("no-such-id"), null);
    assert.equal((await jobs.figures()).dead, 0);
  });
});

Deno.test("jobs: a job without a handler fails and is retried, not lost", async () => {
  await withJobs(async ({ db, jobs }) => {
    await jobs.enqueue(db.sql, "unknown.job", {});
    await jobs.runUntilIdle();
    const [row] = await db.sql`select attempts, last_error from jobs`;
    assert.equal(row.attempts, 1);
    assert.match(row.last_error, /no handler registered for job "unknown.job"/);
  });
});

Deno.test("jobs: a job whose lock is not refreshed for the lock timeout is run again, the lost attempt counted", async () => {
  await withJobs(async ({ db, jobs, clock }) => {
    const ran: { tag: string; attempt: number }[] = [];
    jobs.handle("work", (p, job) => {
      ran.push({ tag: (p as { tag: string }).tag, attempt: job.attempt });
    });
    const now = clock.now().getTime();
    // The default lock timeout is one minute.
    for (const [tag, lockedAgoMs] of [["stale", 61_000], ["fresh", 30_000]] as const) {
      await db.sql`
        insert into jobs (name, payload, run_at, attempts, locked_at, locked_by, created_at)
        values ('work', ${db.sql.json({ tag })}, ${new Date(now - 20 * 60_000)}, 1,
                ${new Date(now - lockedAgoMs)}, 'crashed-worker', ${new Date(now - 20 * 60_000)})`;
    }
    assert.equal(await jobs.runUntilIdle(), 1);
    assert.deepEqual(ran, [{ tag: "stale", attempt: 2 }]);
    const rows = await db.sql`select payload->>'tag' as tag, locked_by from jobs`;
    assert.deepEqual(rows.map((r) => [r.tag, r.locked_by]), [["fresh", "crashed-worker"]]);
  });
});

Deno.test("jobs: an orphan that was on its last attempt goes to the dead set as worker lost, not run again", async () => {
  await withJobs(async ({ db, jobs, clock }) => {
    let runs = 0;
    jobs.handle("work", () => {
      runs++;
    });
    const now = clock.now().getTime();
    await db.sql`
      insert into jobs (name, payload, run_at, attempts, max_attempts, locked_at, locked_by,
                        created_at)
      values ('work', '{}', ${new Date(now - 10 * 60_000)}, 3, 3, ${new Date(now - 5 * 60_000)},
              'crashed-worker', ${new Date(now - 10 * 60_000)})`;
    assert.equal(await jobs.runUntilIdle(), 1);
    assert.equal(runs, 0);
    const [dead] = await jobs.listDeadJobs();
    assert.equal(dead.attempts, 3);
    assert.match(dead.lastError!, /^worker lost/);
    assert.equal(await jobs.runUntilIdle(), 0);
  });
});

Deno.test("jobs: an orphan reclaimed with attempts left records the loss as its last error", async () => {
  await withJobs(async ({ db, jobs, clock }) => {
    const seen: unknown[] = [];
    jobs.handle("work", async (_p, job) => {
      const [row] = await db.sql`select last_error from jobs where id = ${job.id}`;
      seen.push([job.attempt, row.last_error]);
    });
    const now = clock.now().getTime();
    await db.sql`
      insert into jobs (name, payload, run_at, attempts, locked_at, locked_by, created_at)
      values ('work', '{}', ${new Date(now - 10 * 60_000)}, 1, ${new Date(now - 5 * 60_000)},
              'crashed-worker', ${new Date(now - 10 * 60_000)})`;
    await jobs.runUntilIdle();
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0], [2, WORKER_LOST]);
  });
});

Deno.test("jobs: a lock refresh touches only the jobs the worker still holds", async () => {
  await withJobs(async ({ db, clock }) => {
    const then = new Date(clock.now().getTime() - 30_000);
    const [{ id }] = await db.sql`
      insert into jobs (name, payload, run_at, attempts, locked_at, locked_by, created_at)
      values ('work', '{}', ${then}, 1, ${then}, 'new-holder', ${then}) returning id`;
    assert.deepEqual(await refreshLocks(db.sql, "old-holder", [id], clock.now()), []);
    const [row] = await db.sql`select locked_at, locked_by from jobs`;
    assert.deepEqual([row.locked_at.getTime(), row.locked_by], [then.getTime(), "new-holder"]);
    assert.deepEqual(await refreshLocks(db.sql, "new-holder", [id], clock.now()), [id]);
    const [after] = await db.sql`select locked_at from jobs`;
    assert.equal(after.locked_at.getTime(), clock.now().getTime());
  });
});

Deno.test("jobs: handler names are unique", async () => {
  await withJobs(({ jobs }) => {
    jobs.handle("a", async () => {});
    assert.throws(() => jobs.handle("a", async () => {}), /already registered/);
  });
});

Deno.test("jobs: enqueueMany adds every job in one call, each runs once as enqueue would run it", async () => {
  await withJobs(async ({ db, jobs }) => {
    const seen: unknown[] = [];
    jobs.handle("greet", (payload, job) => {
      seen.push({ payload, queue: job.queue, maxAttempts: job.maxAttempts });
    });
    const added = await db.sql.begin((tx) =>
      jobs.enqueueMany(tx, [
        { kind: "greet", payload: { to: "ada" } },
        { kind: "greet", payload: { to: "bob" }, options: { queue: "mail", maxAttempts: 3 } },
        { kind: "greet", payload: null },
      ])
    );
    assert.equal(added, 3);
    assert.equal(await jobs.runUntilIdle(), 3);
    const byName = (a: unknown, b: unknown) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;
    assert.deepEqual(
      seen.sort(byName),
      [
        { payload: {}, queue: "default", maxAttempts: 25 },
        { payload: { to: "ada" }, queue: "default", maxAttempts: 25 },
        { payload: { to: "bob" }, queue: "mail", maxAttempts: 3 },
      ].sort(byName),
    );
    assert.equal((await jobs.figures()).processed, 3);
  });
});

Deno.test("jobs: enqueueMany in a rolled-back transaction adds nothing", async () => {
  await withJobs(async ({ db, jobs }) => {
    await assert.rejects(
      db.sql.begin(async (tx) => {
        await jobs.enqueueMany(tx, [{ kind: "a", payload: {} }, { kind: "b", payload: {} }]);
        throw new Error("the change failed");
      }),
      /the change failed/,
    );
    const [{ count }] = await db.sql`select count(*)::int from jobs`;
    assert.equal(count, 0);
  });
});

Deno.test("jobs: enqueueMany skips a job whose key exists, in the queue or earlier in the list", async () => {
  await withJobs(async ({ db, jobs, clock }) => {
    await jobs.enqueue(db.sql, "mail", { n: 0 }, { key: "k1" });
    const later = new Date(clock.now().getTime() + 60_000);
    const added = await jobs.enqueueMany(db.sql, [
      { kind: "mail", payload: { n: 1 }, options: { key: "k1" } },
      { kind: "mail", payload: { n: 2 }, options: { key: "k2", runAt: later } },
      { kind: "mail", payload: { n: 3 }, options: { key: "k2" } },
      { kind: "mail", payload: { n: 4 } },
    ]);
    assert.equal(added, 2);
    const rows = await db.sql`select key, payload, run_at from jobs order by id`;
    assert.deepEqual(rows.map((r) => [r.key, r.payload]), [
      ["k1", { n: 0 }],
      ["k2", { n: 2 }],
      [null, { n: 4 }],
    ]);
    assert.equal(rows[1].run_at.getTime(), later.getTime());
    assert.equal(await jobs.enqueueMany(db.sql, []), 0);
  });
});
