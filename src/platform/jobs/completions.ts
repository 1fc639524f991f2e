/**
 * Finished jobs are deleted in batches: while one delete is in flight, the next ones gather, so a
 * finished job waits at most for the delete in flight and its own. A batch that fails because the
 * database is out of reach is kept and retried with backoff until it is written (or the worker
 * stops retrying at shutdown); meanwhile its jobs count as held by the worker, whose heartbeat
 * keeps their locks.
 */
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import { failureFields, type OutageWatch } from "./outage.ts";
import { completeJobs } from "./store.ts";

interface Finished {
  id: string;
  worker: string;
}

export function createCompletions(sql: Sql, shard: number, log: Logger, outage: OutageWatch) {
  /** Waiting for the next batch. */
  const finished: Finished[] = [];
  /** In the batch being written. */
  let writing: Finished[] = [];
  let flushing: Promise<void> | undefined;

  /** Writes one worker's batch; false when the database is out of reach (keep it, retry). */
  async function write(worker: string, ids: string[]): Promise<boolean> {
    try {
      const done = await completeJobs(sql, ids, worker, shard);
      outage.succeeded();
      if (done < ids.length) {
        log.warn("jobs finished after their lock was lost", { lost: ids.length - done });
      }
    } catch (err) {
      if (outage.failed("complete", err) && outage.retrying) return false;
      // The jobs stay locked; after the lock timeout they run again (at-least-once).
      log.error("job completion could not be recorded", { ...failureFields(err), ids });
    }
    return true;
  }

  function flush(): Promise<void> {
    flushing ??= (async () => {
      for (let retry = 0; finished.length;) {
        writing = finished.splice(0);
        const kept: Finished[] = [];
        for (const worker of new Set(writing.map((f) => f.worker))) {
          const mine = writing.filter((f) => f.worker === worker);
          if (!(await write(worker, mine.map((f) => f.id)))) kept.push(...mine);
        }
        writing = [];
        if (!kept.length) {
          retry = 0;
          continue;
        }
        finished.unshift(...kept);
        await outage.pause(++retry);
      }
    })().finally(() => {
      flushing = undefined;
      if (finished.length) flush();
    });
    return flushing;
  }

  return {
    /** Records a finished job; its delete goes out with the next batch. */
    add(id: string, worker: string): void {
      finished.push({ id, worker });
      flush();
    },
    /** The jobs of `worker` whose completion is not written yet. */
    pending(worker: string): string[] {
      return [...writing, ...finished].filter((f) => f.worker === worker).map((f) => f.id);
    },
    /** Resolves once every recorded completion is written (or given up). */
    async drain(): Promise<void> {
      while (flushing || finished.length) await (flushing ?? flush());
    },
  };
}
