/** Finished jobs are deleted in batches: while one delete is in flight, the next ones gather. */
import type { Sql } from "../db.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import { completeJobs } from "./store.ts";

export function createCompletions(sql: Sql, shard: number, log: Logger) {
  const finished: { id: string; worker: string }[] = [];
  let flushing: Promise<void> | undefined;

  function flush(): Promise<void> {
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
    /** Resolves once every recorded completion is written. */
    async drain(): Promise<void> {
      while (flushing || finished.length) await (flushing ?? flush());
    },
  };
}
