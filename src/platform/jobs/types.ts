/**
 * The background job system's public surface: a PostgreSQL job queue (enqueue inside the caller's
 * transaction), domain events through a transactional outbox, and a cron scheduler that fires each
 * slot once across instances.
 *
 * Job payloads and event payloads are typed: a {@link JobKind} binds a job name to its payload,
 * and the system's event map (`Events`) binds each event name to its payload, so neither
 * enqueuers nor handlers cast.
 *
 * @example
 * ```ts
 * const sendEmail = jobKind<{ to: string }>("email.send");
 * jobs.handle(sendEmail, async (payload, job) => send(payload.to));
 * await sql.begin(async (tx) => {
 *   await tx`insert into ...`;
 *   await jobs.enqueue(tx, sendEmail, { to: "a@b" }, { key: "welcome:42" });
 * });
 * // with Events = { "billing.payment_processed": { userId: string } }
 * jobs.subscribe("billing.payment_processed", "users.grant_tier", async (payload) => { ... });
 * await sql.begin((tx) => jobs.publish(tx, "billing.payment_processed", { userId: "1" }));
 * jobs.schedule("ai.tick", "* * * * *", async (slot) => { ... });
 * ```
 */
import type { Queryable } from "../db.ts";

/** A job name bound to the type of its payload. */
export interface JobKind<P> {
  readonly name: string;
  /** Never set: carries the payload type for the compiler. */
  readonly payloadType?: P;
}

/** Declares a job kind: one name, one payload type, shared by who enqueues and who handles. */
export function jobKind<P>(name: string): JobKind<P> {
  return { name };
}

/** Counts jobs as they are added and run (the metrics, `src/platform/metrics.ts`). */
export interface JobMetrics {
  jobsEnqueued(queue: string, count: number): void;
  jobFinished(name: string, outcome: JobOutcome, seconds: number): void;
}

/** How an attempt ended. */
export type JobOutcome = "processed" | "failed" | "dead";

/** Event names mapped to their payload types; every payload is stored as JSON. */
export type EventMap = Record<string, unknown>;

export interface QueueFigures {
  processed: number;
  failed: number;
  enqueued: number;
  dead: number;
  queues: { name: string; size: number; latency: number }[];
}

/** A registered cron schedule with its last fired slot and its next one. */
export interface ScheduleInfo {
  name: string;
  /** Five-field cron expression. */
  cron: string;
  /** The last slot fired (by any instance) that is still recorded; null when none is. */
  lastRunAt: Date | null;
  /** The next cron slot after now. */
  nextRunAt: Date;
}

export interface EnqueueOptions {
  /** Queue name (default `default`). */
  queue?: string;
  /** Earliest start (default now). */
  runAt?: Date;
  /** Attempts before the job is dead (default 25). */
  maxAttempts?: number;
  /** Idempotency key: a second enqueue with the same key is a no-op while the first exists. */
  key?: string;
}

/** One job of an {@link JobSystem.enqueueMany} call. */
export interface NewJobSpec<P> {
  kind: JobKind<P> | string;
  payload: P;
  options?: EnqueueOptions;
}

export interface JobInfo {
  id: string;
  name: string;
  queue: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  /**
   * Completes the job now, inside `tx` when given, instead of in the worker's next batch after
   * the handler returns. For a handler whose effect must not happen twice and that no guard of
   * its own can make idempotent (a message sent elsewhere, jobs it enqueues): called with the
   * transaction that records the effect, or right after the call that makes it, the job cannot
   * run again once its handler has returned, even if the worker is killed before its batch is
   * written. False when this worker no longer holds the job (its lock was taken over): inside a
   * transaction, throw to roll the effect back.
   */
  complete(tx?: Queryable): Promise<boolean>;
}

export type JobHandler = (payload: unknown, job: JobInfo) => void | Promise<void>;

/** A job that failed at least once, as the admin API shows it (`id` is its public id). */
interface FailedJobFields {
  id: string;
  queue: string;
  name: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: Date;
}

/** A job that ran out of attempts (the dead set). */
export interface DeadJob extends FailedJobFields {
  failedAt: Date;
}

/** A job that failed and waits for its next attempt (Sidekiq's retry set). */
export interface RetryingJob extends FailedJobFields {
  nextAttemptAt: Date;
}

/** A dead or retrying job looked up by its id. */
export type FailedJob =
  | (DeadJob & { state: "dead"; nextAttemptAt: null })
  | (RetryingJob & { state: "retrying"; failedAt: null });

/** A dead job's place in the dead set: `[failedAt as ISO 8601, id]`. */
export type DeadJobKey = [failedAt: string, id: string];

/** A retrying job's place in the retry set: `[nextAttemptAt as ISO 8601, id]`. */
export type RetryingJobKey = [nextAttemptAt: string, id: string];

/** A window of a set of failed jobs, in the set's order. */
export interface JobSetPage<K> {
  /** Rows to read (1..500). */
  limit: number;
  after?: K | null;
  before?: K | null;
  /** Read from the other end (for paging backward): rows come in reverse order. */
  backward?: boolean;
  /** Only jobs whose name or last error contains this text (any case); null or "" for all. */
  search?: string | null;
}

/** A window of the dead set (most recently failed first). */
export type DeadJobPage = JobSetPage<DeadJobKey>;

/** A window of the retry set (next attempt soonest first). */
export type RetryingJobPage = JobSetPage<RetryingJobKey>;

export interface JobSystem<Events extends EventMap = EventMap> {
  /** Adds a job inside `tx` (a rolled-back transaction leaves no job). Returns its id, or null
   * when `key` matched an existing job. */
  enqueue<P>(
    tx: Queryable,
    kind: JobKind<P> | string,
    payload: P,
    options?: EnqueueOptions,
  ): Promise<string | null>;
  /** Adds many jobs inside `tx` in one statement, each as {@link enqueue} would (same defaults
   * and keys; a rolled-back transaction leaves none). Returns how many were added: a job whose
   * `key` matched an existing job, or an earlier one in the list, is not. */
  enqueueMany<P>(tx: Queryable, jobs: readonly NewJobSpec<P>[]): Promise<number>;
  /** Registers the handler for a job kind (one per name). */
  handle<P>(kind: JobKind<P>, handler: (payload: P, job: JobInfo) => void | Promise<void>): void;
  handle(name: string, handler: JobHandler): void;
  /** Publishes a domain event inside `tx`: one job per subscriber, so each subscriber retries on
   * its own. */
  publish<E extends keyof Events & string>(
    tx: Queryable,
    event: E,
    payload: Events[E],
  ): Promise<void>;
  /** Subscribes `subscriber` (a stable name) to `event`. */
  subscribe<E extends keyof Events & string>(
    event: E,
    subscriber: string,
    handler: (payload: Events[E]) => void | Promise<void>,
  ): void;
  /** Runs `task` at each cron slot, once per slot across all instances. */
  schedule(name: string, cron: string, task: (slot: Date) => void | Promise<void>): void;
  figures(): Promise<QueueFigures>;
  /** Every registered schedule, by name, with its last fired and next slot. */
  schedules(): Promise<ScheduleInfo[]>;
  /** Dead jobs, most recently failed first (default: the first 50). */
  listDeadJobs(page?: DeadJobPage): Promise<DeadJob[]>;
  /** The dead set's size, or with `search` how many of it match (as {@link JobSetPage}). */
  countDeadJobs(search?: string | null): Promise<number>;
  /** Jobs waiting for a retry, next attempt soonest first (default: the first 50). */
  listRetryingJobs(page?: RetryingJobPage): Promise<RetryingJob[]>;
  /** The retry set's size, or with `search` how many of it match. */
  countRetryingJobs(search?: string | null): Promise<number>;
  /** A dead or retrying job by id; null when it is neither (gone, queued, running). */
  failedJob(id: string): Promise<FailedJob | null>;
  /** Makes a retrying job due now; returns it as it is now, or null when no job waits under
   * this id. */
  retryJobNow(id: string): Promise<RetryingJob | null>;
  /** Deletes a retrying job; returns it, or null when no job waits under this id. */
  deleteRetryingJob(id: string): Promise<RetryingJob | null>;
  /** The retry set by job name (kind) with counts, most first. */
  retryingJobKinds(): Promise<{ name: string; count: number }[]>;
  /** Makes every retrying job, or every one named `name`, due now (one statement); returns how
   * many. */
  retryJobsNow(name?: string): Promise<number>;
  /** Deletes every retrying job, or every one named `name` (one statement); returns how many. */
  deleteRetryingJobs(name?: string): Promise<number>;
  /** Moves a dead job back to the queue; returns it as it was, or null when there is no such
   * dead job. */
  retryDeadJob(id: string): Promise<DeadJob | null>;
  /** Deletes a dead job; returns it, or null when there is no such dead job. */
  discardDeadJob(id: string): Promise<DeadJob | null>;
  /** The dead set by job name (kind) with counts, most first. */
  deadJobKinds(): Promise<{ name: string; count: number }[]>;
  /** The job names this system has a handler for (events' subscribers included), sorted. */
  registeredKinds(): string[];
  /** Moves every dead job, or every one named `name`, back to its queue with fresh attempts
   * (one statement); returns how many. */
  retryDeadJobs(name?: string): Promise<number>;
  /** Deletes every dead job, or every one named `name` (one statement); returns how many. */
  discardDeadJobs(name?: string): Promise<number>;
  /** Fires one slot of a registered schedule (what each cron tick does); false when the slot
   * was already fired, by this or another instance. */
  fireSchedule(name: string, slot: Date): Promise<boolean>;
  /** Runs due jobs until none is left (schedule slots fire only by tick or `fireSchedule`); for
   * tests and the CLI. */
  runUntilIdle(): Promise<number>;
  /** Starts the worker and scheduler loops. */
  start(): Promise<void>;
  /** Stops claiming, waits for running jobs up to the grace period, releases the rest (their
   * attempt stays spent; a job on its last attempt goes to the dead set). */
  stop(): Promise<void>;
}
