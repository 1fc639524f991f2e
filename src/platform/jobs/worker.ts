/**
 * The worker: claims jobs with `FOR UPDATE SKIP LOCKED` ahead of free slots into a local queue,
 * starts them as slots free up, keeps their locks fresh, and at shutdown hands back what it holds.
 */
import { type Database, sessionSql } from "../db.ts";
import type { Logger } from "../log.ts";
import type { Clock } from "../clock.ts";
import type { ErrorTracker } from "../errors.ts";
import { publicId } from "../ids.ts";
import { createCompletions } from "./completions.ts";
import { createJobRunner, type RunningJob } from "./run-job.ts";
import { failureFields, outageRetryMs, type OutageWatch } from "./outage.ts";
import {
  type ClaimedJob,
  claimJobs,
  READY_CHANNEL,
  refreshLocks,
  releaseJobs,
  returnJobs,
} from "./store.ts";
import type { JobHandler, JobMetrics } from "./types.ts";

const RELEASED_AT_SHUTDOWN = "did not finish before shutdown: released after the grace period";
const COUNTER_SHARDS = 16;

export interface WorkerSettings {
  concurrency: number;
  graceMs: number;
  lockTimeoutMs: number;
  localQueueSize: number;
  pollIntervalMs: number;
  random: () => number;
}

export interface WorkerDeps {
  db: Database;
  log: Logger;
  tracker: ErrorTracker;
  clock: Clock;
  metrics?: JobMetrics;
  handlers: ReadonlyMap<string, JobHandler>;
  /** Shared with the scheduler: one warning per database outage for the whole job system. */
  outage: OutageWatch;
}

interface QueuedJob {
  job: ClaimedJob;
  /** Clock time of the claim. */
  queuedAt: number;
  /** Clock time the lock was last taken or refreshed. */
  lockedAt: number;
}

export function createWorker(deps: WorkerDeps, settings: WorkerSettings) {
  const { db, log, tracker, clock, outage } = deps;
  const { concurrency, graceMs, lockTimeoutMs, localQueueSize, pollIntervalMs } = settings;
  const sql = db.sql;
  // Three refreshes can fail in a row before a live worker's job looks abandoned.
  const heartbeatMs = Math.max(100, Math.floor(lockTimeoutMs / 4));
  const localQueueTtlMs = Math.floor(lockTimeoutMs / 2);
  const notify = db.supportsListen;
  const workerId = `${Deno.hostname()}:${Deno.pid}:${publicId(6)}`;
  const shard = Math.floor(settings.random() * COUNTER_SHARDS);

  const running = new Map<string, RunningJob>();
  /** Claimed jobs waiting for a free slot, oldest claim first. */
  const localQueue: QueuedJob[] = [];
  // After waiting jobs were handed back, claim again only for free slots until a job finishes:
  // the slots are busy with long jobs, and another instance may take the handed-back ones.
  let claimOnlyFreeSlots = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  // A wake-up that arrives while the loop is busy is remembered, not lost.
  let wakeRequested = false;
  let resolveSleep: (() => void) | undefined;
  const wake = () => {
    wakeRequested = true;
    resolveSleep?.();
  };

  const completions = createCompletions(sql, shard, log, outage);
  const runner = createJobRunner({
    sql,
    log,
    tracker,
    clock,
    metrics: deps.metrics,
    random: settings.random,
    shard,
    handlers: deps.handlers,
    running,
    outage,
    completed: completions.add,
  });
  outage.onRecovered(() => wake());

  const staleBefore = (now: Date) => new Date(now.getTime() - lockTimeoutMs);

  async function runUntilIdle(): Promise<number> {
    const worker = `${workerId}:drain`;
    let total = 0;
    for (;;) {
      const now = clock.now();
      const batch = await claimJobs(sql, worker, Math.max(1, concurrency), now, staleBefore(now));
      if (!batch.length) return total;
      total += batch.length;
      await Promise.all(batch.map((job) => runner.execute(job, worker)));
      await completions.drain();
    }
  }

  /** The jobs this worker holds: running, waiting in its local queue, or finished but not deleted. */
  const held = () => [
    ...running.keys(),
    ...localQueue.map((q) => q.job.id),
    ...completions.pending(workerId),
  ];

  let beating: Promise<boolean> | undefined;
  /**
   * Refreshes the locks of the jobs this worker holds (see {@link held}), so no other worker takes
   * them; hands back waiting jobs that waited too long (another instance may be idle). False when
   * the database was out of reach.
   */
  function beat(): Promise<boolean> {
    // A refresh still waiting on a slow database is not joined by another.
    beating ??= refresh().finally(() => beating = undefined);
    return beating;
  }

  async function refresh(): Promise<boolean> {
    if (!held().length) return true;
    try {
      const now = clock.now();
      const stale = takeFromLocalQueue((q) => now.getTime() - q.queuedAt >= localQueueTtlMs);
      if (stale.length) {
        claimOnlyFreeSlots = true;
        await returnJobs(sql, workerId, stale.map((q) => q.job.id));
      }
      const runningIds = [...running.keys()];
      const still = new Set(await refreshLocks(sql, workerId, held(), now));
      outage.succeeded();
      const lost = runningIds.filter((id) => !still.has(id)).length;
      if (lost) log.warn("job locks lost: another worker may run these jobs too", { lost });
      for (const q of localQueue) if (still.has(q.job.id)) q.lockedAt = now.getTime();
      takeFromLocalQueue((q) => !still.has(q.job.id));
      return true;
    } catch (err) {
      // During an outage the next beat tries again; the locks age meanwhile.
      if (outage.failed("heartbeat", err)) return false;
      log.error("job lock refresh failed", failureFields(err));
      return true;
    }
  }

  /** Removes and returns the waiting jobs that match. */
  function takeFromLocalQueue(match: (q: QueuedJob) => boolean): QueuedJob[] {
    const taken = localQueue.filter(match);
    if (taken.length) {
      const kept = localQueue.filter((q) => !match(q));
      localQueue.splice(0, localQueue.length, ...kept);
    }
    return taken;
  }

  /**
   * Starts waiting jobs in free slots, none while the database is out of reach (they would fail
   * for it); a job whose lock may have expired meanwhile is dropped (claimed again later).
   */
  function dispatch(): void {
    let expired = 0;
    while (!stopping && !outage.down && running.size < concurrency && localQueue.length) {
      const { job, lockedAt } = localQueue.shift()!;
      if (clock.now().getTime() - lockedAt >= lockTimeoutMs) {
        expired++;
        continue;
      }
      const entry: RunningJob = {
        done: Promise.resolve(),
        name: job.name,
        started: performance.now(),
        counted: false,
        failed: false,
      };
      running.set(job.id, entry);
      entry.done = runner.execute(job, workerId).finally(() => {
        running.delete(job.id);
        claimOnlyFreeSlots = false;
        dispatch();
        wake();
      });
    }
    if (expired) {
      log.warn("job locks expired while the jobs waited in the local queue", { expired });
    }
  }

  async function workLoop(): Promise<void> {
    // Claims failed in a row because the database was out of reach: they back off.
    let claimRetry = 0;
    while (!stopping) {
      dispatch();
      // Refill once the waiting jobs would no longer fill every slot again, so each claim is
      // large; without look-ahead, claim for each free slot.
      const lookAhead = claimOnlyFreeSlots ? 0 : localQueueSize;
      const room = concurrency + lookAhead - running.size - localQueue.length;
      const low = localQueue.length < Math.min(concurrency, lookAhead / 2) || !localQueue.length;
      const wanted = low && room > 0 ? room : 0;
      let claimed: ClaimedJob[] = [];
      if (wanted > 0) {
        try {
          const now = clock.now();
          // Never the jobs this worker holds, whose locks may have aged during an outage.
          claimed = await claimJobs(sql, workerId, wanted, now, staleBefore(now), held());
          outage.succeeded();
          claimRetry = 0;
        } catch (err) {
          if (stopping) break;
          if (outage.failed("claim", err)) claimRetry++;
          else log.error("job claim failed", failureFields(err));
        }
      } else if (outage.down) {
        // Nothing to claim, and waiting jobs do not start while the database is out of reach:
        // the lock refresh tells when it is back.
        claimRetry = (await beat()) ? 0 : claimRetry + 1;
      }
      const at = clock.now().getTime();
      for (const job of claimed) localQueue.push({ job, queuedAt: at, lockedAt: at });
      dispatch();
      // A full batch suggests more are ready: claim again at once.
      if (wanted > 0 && claimed.length === wanted) continue;
      if (!wakeRequested) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          resolveSleep = resolve;
          timer = setTimeout(resolve, claimRetry ? outageRetryMs(claimRetry) : pollIntervalMs);
        });
        clearTimeout(timer);
        resolveSleep = undefined;
      }
      wakeRequested = false;
    }
    await returnLocalQueue();
  }

  /** At shutdown: jobs that never started go back to the queue at once, attempts unspent. */
  async function returnLocalQueue(): Promise<void> {
    const waiting = localQueue.splice(0).map((q) => q.job.id);
    if (!waiting.length) return;
    try {
      await returnJobs(sql, workerId, waiting);
    } catch (err) {
      // Their locks expire after the lock timeout and another worker runs them.
      log.error("waiting jobs could not be handed back", { ...failureFields(err), ids: waiting });
    }
  }

  async function releaseAtShutdown(): Promise<void> {
    // A failed job is left to the failure being written: its retry is scheduled there.
    const ids = [...running].filter(([, entry]) => !entry.failed).map(([id]) => id);
    const released = await releaseJobs(
      sql,
      workerId,
      ids,
      ids.map(() => publicId()),
      RELEASED_AT_SHUTDOWN,
      clock.now(),
    );
    for (
      const [ids, outcome] of [[released.requeued, "failed"], [released.dead, "dead"]] as const
    ) {
      for (const id of ids) {
        const entry = running.get(id);
        if (entry) runner.countAttempt(id, entry.name, outcome, entry.started);
      }
    }
    if (released.requeued.length) {
      log.warn("jobs released at shutdown", { released: released.requeued.length });
    }
    for (const id of released.dead) {
      log.error("job dead", { job_id: id, error: RELEASED_AT_SHUTDOWN });
      tracker.captureError(new Error(RELEASED_AT_SHUTDOWN), { job_id: id });
    }
  }

  return {
    runUntilIdle,
    /** Starts claiming; `schedules` only names the registered schedules in the start-up line. */
    async start(schedules: string[]): Promise<void> {
      stopping = false;
      outage.resumeRetrying();
      if (concurrency <= 0) {
        log.info("job worker disabled on this instance", { schedules: schedules.length });
        return;
      }
      if (notify) {
        const listener = await sessionSql(db).listen(READY_CHANNEL, () => wake());
        unlisten = () => listener.unlisten();
      }
      log.info("job worker started", {
        worker: workerId,
        concurrency,
        wakeup: notify ? "listen/notify" : `polling every ${pollIntervalMs} ms`,
        schedules,
      });
      heartbeat = setInterval(beat, heartbeatMs);
      loop = workLoop();
    },
    /** Stops claiming, waits up to the grace period for running jobs, then releases the rest. */
    async stop(): Promise<void> {
      stopping = true;
      wake();
      await loop;
      loop = undefined;
      if (running.size) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise((resolve) => timer = setTimeout(resolve, graceMs));
        await Promise.race([Promise.all([...running.values()].map((r) => r.done)), grace]);
        clearTimeout(timer);
      }
      // Outcomes the database cannot take now are logged, not retried past the grace period.
      outage.stopRetrying();
      await completions.drain();
      clearInterval(heartbeat);
      heartbeat = undefined;
      if (running.size) {
        await releaseAtShutdown().catch((err) => {
          // Their locks expire after the lock timeout and another worker runs them.
          log.error("running jobs could not be released", failureFields(err));
        });
      }
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
