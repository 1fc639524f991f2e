/**
 * PostgreSQL killed under a running job worker, on the test's own server: the worker logs one
 * warning when its statements start failing (no stack) and one info line when the server is back,
 * retrying with backoff in between; a job whose handler finished during the outage is completed
 * once the server is back, exactly once, though its lock went stale meanwhile.
 */
// test-plan: once (the test starts and kills a PostgreSQL of its own in either mode)
import assert from "node:assert/strict";
import {
  isDatabaseConnectionFailure,
  observeStatements,
  openDatabase,
} from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { createErrorTracker } from "../../src/platform/errors.ts";
import { createJobSystem } from "../../src/platform/jobs/index.ts";
import { startOwnPostgres } from "../support/servers.ts";
import { waitFor } from "../support/wait.ts";
import { POSTGRES_SERVER, testNeeding } from "../support/requirements.ts";

const test = testNeeding(POSTGRES_SERVER);

const LOCK_TIMEOUT_MS = 2_000;
const DOWN = "job worker: database unavailable, retrying";
const UP = "job worker: database available again";

/** Connection failures the driver rejects where nobody awaits (porsager/postgres#1192). */
function driverOutagesHandled() {
  const handler = (event: PromiseRejectionEvent) => {
    if (isDatabaseConnectionFailure(event.reason)) event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", handler);
  return () => globalThis.removeEventListener("unhandledrejection", handler);
}

test("faults: PostgreSQL killed under the job worker: one warning, one recovery line, the finished job completed once", async () => {
  const stopHandling = driverOutagesHandled();
  const pg = await startOwnPostgres();
  const log = memoryLogger();
  const db = await openDatabase({
    databaseUrl: pg.url,
    dataDir: "/nonexistent",
    poolSize: 4,
    log,
    timeouts: { connectMs: 1000, statementMs: 1000 },
  });
  let failedStatements = 0;
  observeStatements(db.sql, {
    statementStarted() {},
    statementFinished(_seconds, failed) {
      if (failed) failedStatements++;
    },
  });
  const clock = new ManualClock();
  const jobs = createJobSystem({
    db,
    log,
    tracker: createErrorTracker({ log }),
    clock,
    concurrency: 2,
    lockTimeoutMs: LOCK_TIMEOUT_MS,
    pollIntervalMs: 50,
  });
  const runs = new Map<number, number>();
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  let finish!: () => void;
  const finishing = new Promise<void>((resolve) => finish = resolve);
  let finished = false;
  jobs.handle("outage.work", async (payload) => {
    const { n } = payload as { n: number };
    runs.set(n, (runs.get(n) ?? 0) + 1);
    if (n !== 1) return;
    started();
    await finishing;
    finished = true;
  });
  const left = async () =>
    (await db.sql<{ n: number }[]>`select count(*)::int as n from jobs where name = 'outage.work'`)[
      0
    ]
      .n;
  try {
    await migrate(db.sql, log);
    await db.sql.begin((tx) => jobs.enqueue(tx, "outage.work", { n: 1 }));
    await jobs.start();
    await running;

    // Counted from before the kill: the worker may notice it before the kill's own wait ends.
    const killedAt = log.entries.length;
    await pg.kill();
    // The handler finishes while the server is gone: its completion cannot be written.
    finish();
    await waitFor(() => finished, { what: "the handler to finish" });
    // Claims, lock refreshes and the completion keep failing; wait for a good number of them.
    const failedBefore = failedStatements;
    await waitFor(() => failedStatements - failedBefore >= 12, {
      timeoutMs: 30_000,
      intervalMs: 20,
      what: "a dozen failed statements during the outage",
    });
    // The job's lock is stale by the time the server is back: only the worker's own bookkeeping
    // keeps it from claiming the job again.
    clock.advance(3 * LOCK_TIMEOUT_MS);
    const duringOutage = log.entries.slice(killedAt);

    await pg.restart();
    await waitFor(() => log.entries.some((e) => e.msg === UP), {
      timeoutMs: 15_000,
      what: "the recovery line",
    });
    await waitFor(async () => await left() === 0, {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: "the finished job's completion",
    });
    // A job enqueued after the return runs, and with it any claim that would repeat job 1.
    await db.sql.begin((tx) => jobs.enqueue(tx, "outage.work", { n: 2 }));
    await waitFor(async () => runs.get(2) === 1 && await left() === 0, {
      timeoutMs: 15_000,
      intervalMs: 20,
      what: "a job enqueued after the return to run",
    });

    assert.equal(runs.get(1), 1, "the job that finished during the outage ran once");
    const loud = duringOutage.filter((e) => e.level === "warn" || e.level === "error");
    assert.deepEqual(loud.map((e) => e.msg), [DOWN], "one warning while the database is down");
    assert.equal(loud[0].stack, undefined, "no stack for a connection failure");
    const down = log.entries.filter((e) => e.msg === DOWN);
    const up = log.entries.filter((e) => e.msg === UP);
    assert.equal(down.length, 1);
    assert.equal(up.length, 1);
    assert.equal(up[0].level, "info");
    assert.ok((up[0].failed_statements as number) >= 2, `retried: ${JSON.stringify(up[0])}`);
    assert.ok((up[0].outage_ms as number) > 0);
    assert.deepEqual(
      log.entries.filter((e) => e.level === "error").map((e) => e.msg),
      [],
      "nothing logged as an error",
    );
    console.log(
      `outage: ${up[0].outage_ms} ms, ${up[0].failed_statements} failed worker statements, ` +
        `${failedStatements} failed statements in all, log lines while down: ${duringOutage.length}`,
    );
  } finally {
    await jobs.stop();
    await db.close();
    await pg.close();
    stopHandling();
  }
});
