/**
 * The job system on PostgreSQL: a worker that claims jobs with `FOR UPDATE SKIP LOCKED`, retries
 * with backoff and moves exhausted jobs to a dead set; domain events as a transactional outbox
 * (one job per subscriber); and a croner scheduler whose ticks fire once across instances.
 * See {@link JobSystem} for the API and docs/jobs.md for the behaviour.
 */
import { Cron } from "croner";
import { cronZone, scheduledSlot } from "../cron.ts";
import { type Database, type Queryable, sessionSql } from "../db.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import type { Clock } from "../clock.ts";
import type { ErrorTracker } from "../errors.ts";
import { publicId } from "../ids.ts";
import { retryDelayMs } from "./backoff.ts";
import { currentTraceparent, inSpan, SpanKind } from "../tracing.ts";
import {
  analyzeJobs,
  type ClaimedJob,
  claimJobs,
  completeJobs,
  countDeadJobs,
  deadJobKinds,
  deadJobs,
  discardDead,
  discardDeadMany,
  failJob,
  fireScheduleSlot,
  insertJob,
  insertJobBatch,
  insertJobs,
  lastScheduleSlots,
  pruneScheduleSlots,
  queueFigures,
  READY_CHANNEL,
  refreshLocks,
  releaseJobs,
  retryDead,
  retryDeadMany,
  returnJobs,
  WORKER_LOST,
} from "./store.ts";
import type {
  EnqueueOptions,
  EventMap,
  JobHandler,
  JobInfo,
  JobKind,
  JobSystem,
  NewJobSpec,
  ScheduleInfo,
} from "./types.ts";

export { jobKind } from "./types.ts";
export type {
  DeadJob,
  DeadJobKey,
  DeadJobPage,
  EnqueueOptions,
  EventMap,
  JobHandler,
  JobInfo,
  JobKind,
  JobSystem,
  NewJobSpec,
  QueueFigures,
  ScheduleInfo,
} from "./types.ts";

/** Counts jobs as they are added and run (the metrics, `src/platform/metrics.ts`). */
export interface JobMetrics {
  jobsEnqueued(queue: string, count: number): void;
  jobFinished(name: string, outcome: "processed" | "failed" | "dead", seconds: number): void;
}

export interface JobSystemOptions {
  db: Database;
  metrics?: JobMetrics;
  log: Logger;
  tracker: ErrorTracker;
  clock: Clock;
  /** Jobs run at once by this instance's worker (0: this instance runs no worker). */
  concurrency?: number;
  /** How long `stop()` waits for running jobs before releasing them. */
  graceMs?: number;
  /**
   * A job whose lock was not refreshed for this long belongs to a dead worker and is claimed
   * again. A running worker refreshes its locks every quarter of it.
   */
  lockTimeoutMs?: number;
  /**
   * Jobs claimed ahead of free slots and kept waiting in this worker's local queue, so a freed
   * slot starts the next job without a round trip (default 4 × concurrency; 0: claim only for
   * free slots). They are locked by this worker: heartbeats refresh them, and a job that waited
   * longer than half the lock timeout is handed back.
   */
  localQueueSize?: number;
  /** Wake-up interval when no notification arrives. */
  pollIntervalMs?: number;
  /**
   * While jobs are waiting (a claim came back full), `jobs` is analyzed at most this often by
   * this worker (default a minute), so the claim's plan follows a burst.
   */
  analyzeIntervalMs?: number;
  /** Source of randomness for backoff jitter. */
  random?: () => number;
  /** Cron time zone (default UTC). */
  timezone?: string;
}

const DEFAULT_MAX_ATTEMPTS = 25;
const DEFAULT_LOCK_TIMEOUT_MS = 60_000;
const RELEASED_AT_SHUTDOWN = "did not finish before shutdown: released after the grace period";
const EVENT_QUEUE = "events";
const SCHEDULE_QUEUE = "scheduled";
const COUNTER_SHARDS = 16;

const eventJobName = (event: string, subscriber: string) => `event:${event}:${subscriber}`;
const scheduleJobName = (name: string) => `schedule:${name}`;

function errorMessage(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 4_000);
}

class WorkerLostError extends Error {
  constructor() {
    super(WORKER_LOST);
    this.name = "WorkerLostError";
  }
}

/** A job this worker runs now (not through `runUntilIdle`). */
interface RunningJob {
  done: Promise<void>;
  name: string;
  /** `performance.now()` when it started. */
  started: number;
  /** Its attempt is in the metrics already (finished, or released at shutdown). */
  counted: boolean;
}

interface QueuedJob {
  job: ClaimedJob;
  /** Clock time of the claim. */
  queuedAt: number;
  /** Clock time the lock was last taken or refreshed. */
  lockedAt: number;
}

const nameOf = (kind: JobKind<unknown> | string) => typeof kind === "string" ? kind : kind.name;

export function createJobSystem<Events extends EventMap = EventMap>(
  options: JobSystemOptions,
): JobSystem<Events> & {
  readonly wakeup: "listen/notify" | "polling";
} {
  const { db, log, tracker, clock, metrics } = options;
  const sql = db.sql;
  const concurrency = options.concurrency ?? 4;
  const graceMs = options.graceMs ?? 10_000;
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  // Three refreshes can fail in a row before a live worker's job looks abandoned.
  const heartbeatMs = Math.max(100, Math.floor(lockTimeoutMs / 4));
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const analyzeIntervalMs = options.analyzeIntervalMs ?? 60_000;
  const localQueueSize = Math.max(0, options.localQueueSize ?? 4 * concurrency);
  const localQueueTtlMs = Math.floor(lockTimeoutMs / 2);
  const random = options.random ?? Math.random;
  const zone = cronZone(options.timezone ?? "UTC");
  const notify = db.supportsListen;
  const workerId = `${Deno.hostname()}:${Deno.pid}:${publicId(6)}`;
  const shard = Math.floor(random() * COUNTER_SHARDS);

  const handlers = new Map<string, JobHandler>();
  const subscribers = new Map<string, string[]>();
  const schedules = new Map<string, string>();
  const running = new Map<string, RunningJob>();
  /** Claimed jobs waiting for a free slot, oldest claim first. */
  const localQueue: QueuedJob[] = [];
  // After waiting jobs were handed back, claim again only for free slots until a job finishes:
  // the slots are busy with long jobs, and another instance may take the handed-back ones.
  let claimOnlyFreeSlots = false;
  const crons: Cron[] = [];
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

  // Finished jobs are deleted in batches: while one delete is in flight, the next ones gather.
  const finished: { id: string; worker: string }[] = [];
  let flushing: Promise<void> | undefined;
  function flushCompletions(): Promise<void> {
    flushing ??= (async () => {
      while (finished.length) {
        const batch = finished.splice(0);
        for (const worker of new Set(batch.map((f) => f.worker))) {
          const ids = batch.filter((f) => f.worker === worker).map((f) => f.id);
          try {
            const done = await completeJobs(sql, ids, worker, shard);
            if (done < ids.length) {
              log.warn("jobs finished after their lock was lost", { lost: ids.length - done });
            }
          } catch (err) {
            // The jobs stay locked; after the lock timeout they run again (at-least-once).
            log.error("job completion could not be recorded", { ...errorFields(err), ids });
          }
        }
      }
    })().finally(() => {
      flushing = undefined;
      if (finished.length) flushCompletions();
    });
    return flushing;
  }
  async function drainCompletions(): Promise<void> {
    while (flushing || finished.length) await (flushing ?? flushCompletions());
  }

  const staleBefore = (now: Date) => new Date(now.getTime() - lockTimeoutMs);

  function newJob<P>(kind: JobKind<P> | string, payload: P, opts: EnqueueOptions, now: Date) {
    return {
      queue: opts.queue ?? "default",
      name: nameOf(kind),
      payload: payload ?? {},
      runAt: opts.runAt ?? now,
      maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      key: opts.key ?? null,
      traceContext: currentTraceparent(),
    };
  }

  async function enqueue<P>(
    tx: Queryable,
    kind: JobKind<P> | string,
    payload: P,
    opts: EnqueueOptions = {},
  ): Promise<string | null> {
    const now = clock.now();
    const job = newJob(kind, payload, opts, now);
    const id = await insertJob(tx, { ...job, now }, notify);
    if (id !== null) metrics?.jobsEnqueued(job.queue, 1);
    return id;
  }

  async function enqueueMany<P>(tx: Queryable, specs: readonly NewJobSpec<P>[]): Promise<number> {
    const now = clock.now();
    const batch = specs.map((j) => newJob(j.kind, j.payload, j.options ?? {}, now));
    const added = await insertJobBatch(tx, batch, now, notify);
    if (metrics && added) countBatch(batch.map((j) => j.queue), added);
    return added;
  }

  /** Counts a batch by queue; one whose keys skipped some rows across queues counts as `mixed`. */
  function countBatch(queues: string[], added: number): void {
    const byQueue = new Map<string, number>();
    for (const queue of queues) byQueue.set(queue, (byQueue.get(queue) ?? 0) + 1);
    if (byQueue.size === 1) return metrics!.jobsEnqueued(queues[0], added);
    if (added < queues.length) return metrics!.jobsEnqueued("mixed", added);
    for (const [queue, count] of byQueue) metrics!.jobsEnqueued(queue, count);
  }

  // A job's payload is the JSON of what was enqueued under the same kind (or subscribed event),
  // so the handler receives it as that kind's payload type: the one place this is asserted.
  function register<P>(
    kind: JobKind<P> | string,
    handler: (payload: P, job: JobInfo) => void | Promise<void>,
  ) {
    const name = nameOf(kind);
    if (handlers.has(name)) throw new Error(`a handler for job "${name}" is already registered`);
    handlers.set(name, handler as JobHandler);
  }

  /** Runs one claimed job to its outcome in a span continuing its enqueuer's trace; never throws. */
  function execute(job: ClaimedJob, worker: string): Promise<void> {
    return inSpan(`job ${job.name}`, {
      kind: SpanKind.CONSUMER,
      parent: job.traceContext,
      attributes: {
        "job.id": job.id,
        "job.name": job.name,
        "job.queue": job.queue,
        "job.attempt": job.attempts,
      },
    }, () => runJob(job, worker));
  }

  async function runJob(job: ClaimedJob, worker: string): Promise<void> {
    const info: JobInfo = {
      id: job.id,
      name: job.name,
      queue: job.queue,
      attempt: job.attempts,
      maxAttempts: job.maxAttempts,
    };
    const fields = { job_id: job.id, job: job.name, queue: job.queue, attempt: job.attempts };
    const started = performance.now();
    try {
      // Claiming spends an attempt; past the last one, the previous holder died on the last try.
      if (job.attempts > job.maxAttempts) throw new WorkerLostError();
      const handler = handlers.get(job.name);
      if (!handler) throw new Error(`no handler registered for job "${job.name}"`);
      await handler(job.payload, info);
      log.debug("job done", { ...fields, duration_ms: performance.now() - started });
      countAttempt(job.id, job.name, "processed", started);
      finished.push({ id: job.id, worker });
      flushCompletions();
    } catch (err) {
      const now = clock.now();
      const dead = job.attempts >= job.maxAttempts;
      const error = err instanceof WorkerLostError ? err.message : errorMessage(err);
      countAttempt(job.id, job.name, dead ? "dead" : "failed", started);
      try {
        await failJob(sql, {
          id: job.id,
          worker,
          shard,
          error,
          now,
          retryAt: new Date(now.getTime() + retryDelayMs(job.attempts, random)),
          deadPublicId: dead ? publicId() : null,
        });
      } catch (recordErr) {
        log.error("job failure could not be recorded", { ...fields, ...errorFields(recordErr) });
      }
      if (dead) {
        log.error("job dead", { ...fields, ...errorFields(err) });
        tracker.captureError(err, { job: job.name, job_id: job.id, attempts: job.attempts });
      } else {
        log.warn("job failed, will retry", { ...fields, ...errorFields(err) });
      }
    }
  }

  /**
   * Counts a finished attempt, unless it was counted when it was released at shutdown (it ran on
   * after the grace period, and its completion is refused now that the lock is gone).
   */
  function countAttempt(
    id: string,
    name: string,
    outcome: "processed" | "failed" | "dead",
    started: number,
  ): void {
    const entry = running.get(id);
    if (entry?.counted) return;
    if (entry) entry.counted = true;
    metrics?.jobFinished(name, outcome, (performance.now() - started) / 1000);
  }

  async function runUntilIdle(): Promise<number> {
    const worker = `${workerId}:drain`;
    let total = 0;
    for (;;) {
      const now = clock.now();
      const batch = await claimJobs(sql, worker, Math.max(1, concurrency), now, staleBefore(now));
      if (!batch.length) return total;
      total += batch.length;
      await Promise.all(batch.map((job) => execute(job, worker)));
      await drainCompletions();
    }
  }

  let beating = false;
  /**
   * Refreshes the locks of the jobs this worker holds, running or waiting, so no other worker
   * takes them; hands back waiting jobs that waited too long (another instance may be idle).
   */
  async function beat(): Promise<void> {
    // A refresh still waiting on a slow database is not joined by another.
    if (beating || (!running.size && !localQueue.length)) return;
    beating = true;
    try {
      const now = clock.now();
      const stale = takeFromLocalQueue((q) => now.getTime() - q.queuedAt >= localQueueTtlMs);
      if (stale.length) {
        claimOnlyFreeSlots = true;
        await returnJobs(sql, workerId, stale.map((q) => q.job.id));
      }
      const runningIds = [...running.keys()];
      const ids = [...runningIds, ...localQueue.map((q) => q.job.id)];
      const held = new Set(await refreshLocks(sql, workerId, ids, now));
      const lost = runningIds.filter((id) => !held.has(id)).length;
      if (lost) log.warn("job locks lost: another worker may run these jobs too", { lost });
      for (const q of localQueue) if (held.has(q.job.id)) q.lockedAt = now.getTime();
      takeFromLocalQueue((q) => !held.has(q.job.id));
    } catch (err) {
      log.error("job lock refresh failed", errorFields(err));
    } finally {
      beating = false;
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

  /** Starts waiting jobs in free slots; a job whose lock may have expired meanwhile is dropped. */
  function dispatch(): void {
    while (!stopping && running.size < concurrency && localQueue.length) {
      const { job, lockedAt } = localQueue.shift()!;
      if (clock.now().getTime() - lockedAt >= lockTimeoutMs) {
        log.warn("job lock expired while it waited in the local queue", { job_id: job.id });
        continue;
      }
      const entry: RunningJob = {
        done: Promise.resolve(),
        name: job.name,
        started: performance.now(),
        counted: false,
      };
      running.set(job.id, entry);
      entry.done = execute(job, workerId).finally(() => {
        running.delete(job.id);
        claimOnlyFreeSlots = false;
        dispatch();
        wake();
      });
    }
  }

  /**
   * The planner's statistics of `jobs` lag a burst: autovacuum analyzes at most once per naptime
   * (a minute) and PGlite never, so after an idle spell they say the table is empty, and each claim
   * sorts every ready row instead of walking the ready index (bench/README.md "bench:jobs"). A
   * claim that comes back full says jobs are waiting; then the table is analyzed in the
   * background, at most once per interval.
   */
  let lastAnalyzeAt = Number.NEGATIVE_INFINITY;
  let analyzing: Promise<void> | undefined;
  let analyzePermitted = true;
  function analyzeWhileBacklogged(): void {
    const now = clock.now().getTime();
    if (analyzing || !analyzePermitted || now - lastAnalyzeAt < analyzeIntervalMs) return;
    lastAnalyzeAt = now;
    analyzing = analyzeJobs(sql).catch((err) => {
      // Only the table's owner may analyze it; without that, autovacuum's statistics stay.
      if ((err as { code?: string }).code === "42501") analyzePermitted = false;
      log.warn("the jobs table could not be analyzed", errorFields(err));
    }).finally(() => analyzing = undefined);
  }

  async function workLoop(): Promise<void> {
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
          claimed = await claimJobs(sql, workerId, wanted, now, staleBefore(now));
          if (claimed.length === wanted && wanted >= concurrency) analyzeWhileBacklogged();
        } catch (err) {
          if (stopping) break;
          log.error("job claim failed", errorFields(err));
        }
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
          timer = setTimeout(resolve, pollIntervalMs);
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
      log.error("waiting jobs could not be handed back", { ...errorFields(err), ids: waiting });
    }
  }

  function subscribe<E extends keyof Events & string>(
    event: E,
    subscriber: string,
    handler: (payload: Events[E]) => void | Promise<void>,
  ) {
    register<Events[E]>(eventJobName(event, subscriber), (payload) => handler(payload));
    subscribers.set(event, [...(subscribers.get(event) ?? []), subscriber]);
  }

  async function publish<E extends keyof Events & string>(
    tx: Queryable,
    event: E,
    payload: Events[E],
  ): Promise<void> {
    const names = (subscribers.get(event) ?? []).map((s) => eventJobName(event, s));
    if (!names.length) {
      log.debug("event has no subscribers", { event });
      return;
    }
    const now = clock.now();
    await insertJobs(tx, names, {
      queue: EVENT_QUEUE,
      payload: payload ?? {},
      runAt: now,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
      traceContext: currentTraceparent(),
      now,
    }, notify);
    metrics?.jobsEnqueued(EVENT_QUEUE, names.length);
  }

  function schedule(name: string, cron: string, task: (slot: Date) => void | Promise<void>) {
    // Validates the expression at registration, not at the first tick.
    new Cron(cron, { paused: true, ...zone });
    if (schedules.has(name)) throw new Error(`schedule "${name}" is already registered`);
    schedules.set(name, cron);
    register<{ slot: string }>(scheduleJobName(name), (payload) => task(new Date(payload.slot)));
  }

  async function fireSchedule(name: string, slot: Date): Promise<boolean> {
    if (!schedules.has(name)) throw new Error(`unknown schedule "${name}"`);
    const key = `${scheduleJobName(name)}:${slot.toISOString()}`;
    const fired = await fireScheduleSlot(
      sql,
      name,
      slot,
      clock.now(),
      (tx) =>
        enqueue(tx, scheduleJobName(name), { slot: slot.toISOString() }, {
          queue: SCHEDULE_QUEUE,
          key,
        }),
    );
    if (fired) log.info("schedule fired", { schedule: name, slot: slot.toISOString() });
    return fired;
  }

  async function scheduleInfos(): Promise<ScheduleInfo[]> {
    const last = await lastScheduleSlots(sql);
    const now = clock.now();
    return [...schedules].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([name, pattern]) => ({
      name,
      cron: pattern,
      lastRunAt: last.get(name) ?? null,
      nextRunAt: new Cron(pattern, { paused: true, ...zone }).nextRun(now)!,
    }));
  }

  function startScheduler() {
    for (const [name, pattern] of schedules) {
      const cron = new Cron(pattern, { ...zone, protect: true }, async (self: Cron) => {
        const slot = scheduledSlot(self, self.currentRun() ?? clock.now());
        try {
          await fireSchedule(name, slot);
        } catch (err) {
          log.error("schedule tick failed", { schedule: name, ...errorFields(err) });
        }
      });
      crons.push(cron);
    }
  }

  // Fired slots only guard against re-firing the current slot; a week of history is plenty.
  schedule("jobs.prune_schedule_slots", "17 3 * * *", async (slot) => {
    const pruned = await pruneScheduleSlots(sql, new Date(slot.getTime() - 7 * 86_400_000));
    log.info("schedule slots pruned", { pruned });
  });

  async function releaseAtShutdown(): Promise<void> {
    const ids = [...running.keys()];
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
        if (entry) countAttempt(id, entry.name, outcome, entry.started);
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
    get wakeup() {
      return notify ? "listen/notify" as const : "polling" as const;
    },
    enqueue,
    enqueueMany,
    handle: register,
    publish,
    subscribe,
    schedule,
    fireSchedule,
    figures: () => queueFigures(sql, clock.now()),
    schedules: scheduleInfos,
    listDeadJobs: (page = { limit: 50 }) =>
      deadJobs(sql, { ...page, limit: Math.min(Math.max(1, page.limit), 500) }),
    countDeadJobs: () => countDeadJobs(sql),
    retryDeadJob: (id) => retryDead(sql, id, clock.now()),
    discardDeadJob: (id) => discardDead(sql, id),
    deadJobKinds: () => deadJobKinds(sql),
    registeredKinds: () => [...handlers.keys()].sort(),
    retryDeadJobs: (name) => retryDeadMany(sql, name ?? null, clock.now(), notify),
    discardDeadJobs: (name) => discardDeadMany(sql, name ?? null),
    runUntilIdle,
    async start() {
      stopping = false;
      startScheduler();
      if (concurrency <= 0) {
        log.info("job worker disabled on this instance", { schedules: schedules.size });
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
        schedules: [...schedules.keys()],
      });
      heartbeat = setInterval(beat, heartbeatMs);
      loop = workLoop();
    },
    async stop() {
      stopping = true;
      for (const cron of crons.splice(0)) cron.stop();
      wake();
      await loop;
      loop = undefined;
      await analyzing;
      if (running.size) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise((resolve) => timer = setTimeout(resolve, graceMs));
        await Promise.race([Promise.all([...running.values()].map((r) => r.done)), grace]);
        clearTimeout(timer);
      }
      await drainCompletions();
      clearInterval(heartbeat);
      heartbeat = undefined;
      if (running.size) await releaseAtShutdown();
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
