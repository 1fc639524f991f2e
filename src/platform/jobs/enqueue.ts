/** Adding jobs: one, or many in one statement, inside the caller's transaction. */
import type { Queryable } from "../db.ts";
import type { Clock } from "../clock.ts";
import { currentTraceparent } from "../tracing.ts";
import { insertJob, insertJobBatch } from "./store.ts";
import type { EnqueueOptions, JobKind, JobMetrics, NewJobSpec } from "./types.ts";

export const DEFAULT_MAX_ATTEMPTS = 25;

export const nameOf = (kind: JobKind<unknown> | string) =>
  typeof kind === "string" ? kind : kind.name;

export interface EnqueueDeps {
  clock: Clock;
  metrics?: JobMetrics;
  /** The database delivers `pg_notify`: inserts wake the workers. */
  notify: boolean;
}

export function createEnqueue({ clock, metrics, notify }: EnqueueDeps) {
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
    if (metrics && added) countBatch(metrics, batch.map((j) => j.queue), added);
    return added;
  }

  return { enqueue, enqueueMany };
}

/** Counts a batch by queue; one whose keys skipped some rows across queues counts as `mixed`. */
function countBatch(metrics: JobMetrics, queues: string[], added: number): void {
  const byQueue = new Map<string, number>();
  for (const queue of queues) byQueue.set(queue, (byQueue.get(queue) ?? 0) + 1);
  if (byQueue.size === 1) return metrics.jobsEnqueued(queues[0], added);
  if (added < queues.length) return metrics.jobsEnqueued("mixed", added);
  for (const [queue, count] of byQueue) metrics.jobsEnqueued(queue, count);
}
