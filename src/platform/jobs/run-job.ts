/** Runs one claimed job to its outcome: done, failed with a retry, or dead. */
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import type { Clock } from "../clock.ts";
import type { ErrorTracker } from "../errors.ts";
import { publicId } from "../ids.ts";
import { inSpan, SpanKind } from "../tracing.ts";
import { retryDelayMs } from "./backoff.ts";
import { failureFields, isOutage, type OutageWatch } from "./outage.ts";
import { type ClaimedJob, completeJobs, failJob, WORKER_LOST } from "./store.ts";
import type { JobHandler, JobInfo, JobMetrics, JobOutcome } from "./types.ts";

/** A job this worker runs now (not through `runUntilIdle`). */
export interface RunningJob {
  done: Promise<void>;
  name: string;
  /** `performance.now()` when it started. */
  started: number;
  /** Its attempt is in the metrics already (finished, or released at shutdown). */
  counted: boolean;
  /** Its handler threw: only its failure is left to write (it is not released at shutdown). */
  failed: boolean;
}

export interface JobRunnerDeps {
  sql: Sql;
  log: Logger;
  tracker: ErrorTracker;
  clock: Clock;
  metrics?: JobMetrics;
  random: () => number;
  /** The counter shard this worker's completions and failures are counted in. */
  shard: number;
  handlers: ReadonlyMap<string, JobHandler>;
  /** The jobs this worker runs now, by id. */
  running: ReadonlyMap<string, RunningJob>;
  outage: OutageWatch;
  /** Records a finished job (deleted in the next batch). */
  completed(id: string, worker: string): void;
}

class WorkerLostError extends Error {
  constructor() {
    super(WORKER_LOST);
    this.name = "WorkerLostError";
  }
}

function errorMessage(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 4_000);
}

export function createJobRunner(deps: JobRunnerDeps) {
  const { sql, log, tracker, clock, metrics, random, shard, handlers, running, outage } = deps;

  /** Runs one claimed job in a span continuing its enqueuer's trace; never throws. */
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
    let completedByHandler = false;
    const info: JobInfo = {
      id: job.id,
      name: job.name,
      queue: job.queue,
      attempt: job.attempts,
      maxAttempts: job.maxAttempts,
      async complete(tx) {
        const held = await completeJobs(tx ?? sql, [job.id], worker, shard) === 1;
        completedByHandler = true;
        return held;
      },
    };
    const fields = { job_id: job.id, job: job.name, queue: job.queue, attempt: job.attempts };
    const started = performance.now();
    try {
      // Claiming spends an attempt; past the last one, the previous holder died on the last try.
      if (job.attempts > job.maxAttempts) throw new WorkerLostError();
      const handler = handlers.get(job.name);
      if (!handler) throw new Error(`no handler registered for job "${job.name}"`);
      await handler(job.payload, info);
    } catch (err) {
      const entry = running.get(job.id);
      if (entry) entry.failed = true;
      await recordFailure(job, worker, err, fields, started);
      return;
    }
    log.debug("job done", { ...fields, duration_ms: performance.now() - started });
    countAttempt(job.id, job.name, "processed", started);
    if (!completedByHandler) deps.completed(job.id, worker);
  }

  async function recordFailure(
    job: ClaimedJob,
    worker: string,
    err: unknown,
    fields: Record<string, unknown>,
    started: number,
  ): Promise<void> {
    const now = clock.now();
    const dead = job.attempts >= job.maxAttempts;
    const error = err instanceof WorkerLostError ? err.message : errorMessage(err);
    countAttempt(job.id, job.name, dead ? "dead" : "failed", started);
    const failed = {
      id: job.id,
      worker,
      shard,
      error,
      now,
      retryAt: new Date(now.getTime() + retryDelayMs(job.attempts, random)),
      dead,
      publicId: publicId(),
    };
    // While the database is out of reach the failure is retried, the job kept in its slot.
    let duringOutage = outage.down;
    for (let retry = 1;; retry++) {
      try {
        await failJob(sql, failed);
        outage.succeeded();
        break;
      } catch (recordErr) {
        const unreachable = outage.failed("fail", recordErr);
        duringOutage ||= unreachable;
        if (!unreachable || !outage.retrying) {
          log.error("job failure could not be recorded", {
            ...fields,
            ...failureFields(recordErr),
          });
          break;
        }
        await outage.pause(retry);
      }
    }
    if (dead) {
      log.error("job dead", { ...fields, ...failureFields(err) });
      tracker.captureError(err, { job: job.name, job_id: job.id, attempts: job.attempts });
    } else if (duringOutage && isOutage(err)) {
      // The outage's own warning said it: one line, not one per job it failed.
      log.debug("job failed, will retry", { ...fields, ...failureFields(err) });
    } else {
      log.warn("job failed, will retry", { ...fields, ...failureFields(err) });
    }
  }

  /**
   * Counts a finished attempt, unless it was counted when it was released at shutdown (it ran on
   * after the grace period, and its completion is refused now that the lock is gone).
   */
  function countAttempt(id: string, name: string, outcome: JobOutcome, started: number): void {
    const entry = running.get(id);
    if (entry?.counted) return;
    if (entry) entry.counted = true;
    metrics?.jobFinished(name, outcome, (performance.now() - started) / 1000);
  }

  return { execute, countAttempt };
}
