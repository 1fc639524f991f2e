/**
 * kill -9 of a service instance while it drains the job queue: the other instance runs the dead
 * one's jobs again within the lock timeout (plus one poll), and no job is lost.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { startOwnPostgres } from "../support/servers.ts";
import { waitFor } from "../support/wait.ts";
import { enqueueFaultJobs, readRuns, startFaultService } from "../support/fault-jobs.ts";
import { POSTGRES_SERVER, testNeeding } from "../support/requirements.ts";

const test = testNeeding(POSTGRES_SERVER);

const JOBS = 300;
const LOCK_TIMEOUT_MS = 3_000;
// Stale after the lock timeout, counted from the last heartbeat (a quarter of it before the
// kill at worst), then found by the next poll (every second): 4 s; the rest is slack for a
// loaded machine.
const ORPHAN_BOUND_MS = LOCK_TIMEOUT_MS + 1_000 + 2_000;

test("faults: kill -9 of an instance mid-drain; the other runs its orphans within the lock timeout, nothing lost", async () => {
  const pg = await startOwnPostgres();
  const runLog = await Deno.makeTempFile({ prefix: "fault-jobs-" });
  const env = {
    DATABASE_URL: pg.url,
    JOB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
    JOB_CONCURRENCY: "4",
    FAULT_JOB_LOG: runLog,
    FAULT_JOB_MS: "150",
  };
  const victim = await startFaultService(env);
  const survivor = await startFaultService(env);
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    await enqueueFaultJobs(sql, JOBS);
    // Both instances are working on the queue; the victim holds jobs when it dies.
    await waitFor(async () => {
      const runs = await readRuns(runLog);
      const startedBy = (pid: number) => runs.filter((r) => r.event === "start" && r.pid === pid);
      return startedBy(victim.child.pid).length >= 8 && startedBy(survivor.child.pid).length > 0;
    }, { timeoutMs: 30_000, intervalMs: 20, what: "both instances running jobs" });
    victim.child.kill("SIGKILL");
    const killedAt = Date.now();
    assert.equal((await victim.child.status).signal, "SIGKILL");

    await waitFor(async () => {
      const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from jobs`;
      return count === 0;
    }, { timeoutMs: 60_000, intervalMs: 100, what: "the queue to be empty" });

    const runs = await readRuns(runLog);
    const done = new Set(runs.filter((r) => r.event === "done").map((r) => r.n));
    assert.equal(done.size, JOBS, "every job finished at least once");
    const victimDone = new Set(
      runs.filter((r) => r.event === "done" && r.pid === victim.child.pid).map((r) => r.n),
    );
    const orphans = runs.filter((r) =>
      r.event === "start" && r.pid === victim.child.pid && !victimDone.has(r.n)
    ).map((r) => r.n);
    assert.ok(orphans.length > 0, "the victim held jobs when it was killed");
    const rerunDelays = orphans.map((n) => {
      const rerun = runs.find((r) =>
        r.event === "start" && r.n === n && r.pid === survivor.child.pid
      );
      assert.ok(rerun, `orphan ${n} ran again`);
      assert.equal(rerun.attempt, 2, `orphan ${n}'s lost attempt counted`);
      return rerun.at - killedAt;
    });
    const slowest = Math.max(...rerunDelays);
    console.log(
      `orphans: ${orphans.length}, rerun after kill -9: ${Math.min(...rerunDelays)}..${slowest} ms`,
    );
    assert.ok(slowest <= ORPHAN_BOUND_MS, `orphans ran again after ${slowest} ms`);
    const [{ dead }] = await sql<{ dead: number }[]>`
      select count(*)::int as dead from jobs where dead_at is not null`;
    assert.equal(dead, 0);
  } finally {
    await sql.end();
    try {
      victim.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await victim.child.status;
    await survivor.stop();
    await Promise.all([victim.cleanup(), survivor.cleanup()]);
    await pg.close();
    await Deno.remove(runLog).catch(() => {});
  }
});
