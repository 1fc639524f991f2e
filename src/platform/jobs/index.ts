/**
 * The job system on PostgreSQL: a worker that claims jobs with `FOR UPDATE SKIP LOCKED`, retries
 * with backoff and moves exhausted jobs to a dead set; domain events as a transactional outbox
 * (one job per subscriber); and a croner scheduler whose ticks fire once across instances.
 * See {@link JobSystem} for the API and docs/jobs.md for the behaviour.
 */
import type { Database } from "../db.ts";
import type { Logger } from "../log.ts";
import type { Clock } from "../clock.ts";
import type { ErrorTracker } from "../errors.ts";
import { createEnqueue, nameOf } from "./enqueue.ts";
import { createEventOutbox } from "./events.ts";
import { createScheduler } from "./scheduler.ts";
import { createWorker } from "./worker.ts";
import { createOutageWatch } from "./outage.ts";
import { pruneScheduleSlots, queueFigures } from "./store.ts";
import {
  countDeadJobs,
  deadJobKinds,
  deadJobs,
  discardDead,
  discardDeadMany,
  pruneDeadBefore,
  pruneDeadBeyond,
  retryDead,
  retryDeadMany,
} from "./dead-set.ts";
import { inBatches, pruneOlderThan } from "../prune.ts";
import {
  countRetryingJobs,
  deleteRetrying,
  deleteRetryingMany,
  failedJob,
  retryingJobKinds,
  retryingJobs,
  retryNow,
  retryNowMany,
} from "./retry-set.ts";
import type { EventMap, JobHandler, JobInfo, JobKind, JobMetrics, JobSystem } from "./types.ts";

export { jobKind } from "./types.ts";
export type {
  DeadJob,
  DeadJobKey,
  DeadJobPage,
  EnqueueOptions,
  EventMap,
  FailedJob,
  JobHandler,
  JobInfo,
  JobKind,
  JobMetrics,
  JobOutcome,
  JobSystem,
  NewJobSpec,
  QueueFigures,
  RetryingJob,
  RetryingJobKey,
  RetryingJobPage,
  ScheduleInfo,
} from "./types.ts";

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
  /** Source of randomness for backoff jitter. */
  random?: () => number;
  /** Cron time zone (default UTC). */
  timezone?: string;
  /**
   * The dead set is pruned hourly to jobs that died within `days` (0: any age) and to the newest
   * `max` (0: any number), in bounded batches (default 180 days and 10,000, as Sidekiq keeps).
   */
  deadRetention?: { days: number; max: number; batchSize?: number };
}

const DEFAULT_LOCK_TIMEOUT_MS = 60_000;

/** Rows one read of a set of failed jobs may ask for. */
const rowLimit = (page: { limit: number }) => Math.min(Math.max(1, page.limit), 500);

export function createJobSystem<Events extends EventMap = EventMap>(
  options: JobSystemOptions,
): JobSystem<Events> & {
  readonly wakeup: "listen/notify" | "polling";
} {
  const { db, log, clock, metrics } = options;
  const sql = db.sql;
  const concurrency = options.concurrency ?? 4;
  const notify = db.supportsListen;

  const handlers = new Map<string, JobHandler>();
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

  const outage = createOutageWatch(log);
  const { enqueue, enqueueMany } = createEnqueue({ clock, metrics, notify });
  const events = createEventOutbox<Events>({ clock, log, metrics, notify, register });
  const scheduler = createScheduler({
    sql,
    clock,
    log,
    timezone: options.timezone ?? "UTC",
    register,
    enqueue,
    outage,
  });
  const worker = createWorker({
    db,
    log,
    tracker: options.tracker,
    clock,
    metrics,
    handlers,
    outage,
  }, {
    concurrency,
    graceMs: options.graceMs ?? 10_000,
    lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    localQueueSize: Math.max(0, options.localQueueSize ?? 4 * concurrency),
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    random: options.random ?? Math.random,
  });

  // Fired slots only guard against re-firing the current slot; a week of history is plenty.
  scheduler.schedule("jobs.prune_schedule_slots", "17 3 * * *", async (slot) => {
    const pruned = await pruneScheduleSlots(sql, new Date(slot.getTime() - 7 * 86_400_000));
    log.info("schedule slots pruned", { pruned });
  });

  const dead = options.deadRetention ?? { days: 180, max: 10_000 };
  const pruneDead = async (now: Date) => {
    const batch = { batchSize: dead.batchSize };
    const old = await pruneOlderThan(
      now,
      dead.days,
      (before, limit) => pruneDeadBefore(sql, before, limit),
      batch,
    );
    const beyond = dead.max > 0
      ? await inBatches((limit) => pruneDeadBeyond(sql, dead.max, limit), batch)
      : { rows: 0, more: false };
    if (old.rows || beyond.rows) {
      log.info("dead jobs pruned", {
        older: old.rows,
        beyond_max: beyond.rows,
        more: old.more || beyond.more,
      });
    }
    return old.rows + beyond.rows;
  };
  scheduler.schedule("jobs.prune_dead", "41 * * * *", async (slot) => void await pruneDead(slot));

  return {
    get wakeup() {
      return notify ? "listen/notify" as const : "polling" as const;
    },
    enqueue,
    enqueueMany,
    handle: register,
    publish: events.publish,
    subscribe: events.subscribe,
    schedule: scheduler.schedule,
    fireSchedule: scheduler.fireSchedule,
    figures: () => queueFigures(sql, clock.now()),
    schedules: scheduler.infos,
    listDeadJobs: (page = { limit: 50 }) => deadJobs(sql, { ...page, limit: rowLimit(page) }),
    countDeadJobs: (search) => countDeadJobs(sql, search),
    listRetryingJobs: (page = { limit: 50 }) =>
      retryingJobs(sql, { ...page, limit: rowLimit(page) }, clock.now()),
    countRetryingJobs: (search) => countRetryingJobs(sql, clock.now(), search),
    failedJob: (id) => failedJob(sql, id, clock.now()),
    retryJobNow: (id) => retryNow(sql, id, clock.now(), notify),
    deleteRetryingJob: (id) => deleteRetrying(sql, id, clock.now()),
    retryingJobKinds: () => retryingJobKinds(sql, clock.now()),
    retryJobsNow: (name) => retryNowMany(sql, name ?? null, clock.now(), notify),
    deleteRetryingJobs: (name) => deleteRetryingMany(sql, name ?? null, clock.now()),
    retryDeadJob: (id) => retryDead(sql, id, clock.now()),
    discardDeadJob: (id) => discardDead(sql, id),
    deadJobKinds: () => deadJobKinds(sql),
    registeredKinds: () => [...handlers.keys()].sort(),
    retryDeadJobs: (name) => retryDeadMany(sql, name ?? null, clock.now(), notify),
    discardDeadJobs: (name) => discardDeadMany(sql, name ?? null),
    runUntilIdle: worker.runUntilIdle,
    async start() {
      scheduler.start();
      await worker.start(scheduler.names());
    },
    async stop() {
      scheduler.stop();
      await worker.stop();
    },
  };
}
