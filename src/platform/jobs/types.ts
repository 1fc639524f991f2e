/**
 * The background job system's public surface: a PostgreSQL job queue (enqueue inside the caller's
 * transaction), domain events through a transactional outbox, and a cron scheduler that fires each
 * slot once across instances.
 *
 * @example
 * ```ts
 * jobs.handle("email.send", async (payload, job) => { ... });
 * await sql.begin(async (tx) => {
 *   await tx`insert into ...`;
 *   await jobs.enqueue(tx, "email.send", { to: "a@b" }, { key: "welcome:42" });
 * });
 * jobs.subscribe("billing.payment_processed", "users.grant_tier", async (payload) => { ... });
 * await sql.begin((tx) => jobs.publish(tx, "billing.payment_processed", { userId: "1" }));
 * jobs.schedule("ai.tick", "* * * * *", async (slot) => { ... });
 * ```
 */
import type { Queryable } from "../db.ts";
import type { QueueFigures } from "../../http/health.ts";

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

export interface JobInfo {
  id: string;
  name: string;
  queue: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export type JobHandler = (payload: unknown, job: JobInfo) => void | Promise<void>;

export interface DeadJob {
  id: string;
  queue: string;
  name: string;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  failedAt: Date;
  createdAt: Date;
}

export interface JobSystem {
  /** Adds a job inside `tx` (a rolled-back transaction leaves no job). Returns its id, or null
   * when `key` matched an existing job. */
  enqueue(
    tx: Queryable,
    name: string,
    payload: unknown,
    options?: EnqueueOptions,
  ): Promise<string | null>;
  /** Registers the handler for a job name (one per name). */
  handle(name: string, handler: JobHandler): void;
  /** Publishes a domain event inside `tx`: one job per subscriber, so each subscriber retries on
   * its own. */
  publish(tx: Queryable, event: string, payload: unknown): Promise<void>;
  /** Subscribes `subscriber` (a stable name) to `event`. */
  subscribe(
    event: string,
    subscriber: string,
    handler: (payload: unknown) => void | Promise<void>,
  ): void;
  /** Runs `task` at each cron slot, once per slot across all instances. */
  schedule(name: string, cron: string, task: (slot: Date) => void | Promise<void>): void;
  figures(): Promise<QueueFigures>;
  listDeadJobs(limit?: number): Promise<DeadJob[]>;
  /** Moves a dead job back to the queue; false when there is no such dead job. */
  retryDeadJob(id: string): Promise<boolean>;
  discardDeadJob(id: string): Promise<boolean>;
  /** Fires one slot of a registered schedule (what each cron tick does); false when the slot
   * was already fired, by this or another instance. */
  fireSchedule(name: string, slot: Date): Promise<boolean>;
  /** Runs due jobs until none is left (schedule slots fire only by tick or `fireSchedule`); for
   * tests and the CLI. */
  runUntilIdle(): Promise<number>;
  /** Starts the worker and scheduler loops. */
  start(): Promise<void>;
  /** Stops claiming, waits for running jobs up to the grace period, releases the rest. */
  stop(): Promise<void>;
}
