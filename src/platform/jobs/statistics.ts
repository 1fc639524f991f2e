/**
 * The planner's statistics of `jobs` lag a burst: autovacuum analyzes at most once per naptime (a
 * minute) and PGlite never, so after an idle spell they say the table is empty, and each claim
 * sorts every ready row instead of walking the ready index (docs/jobs.md "Statistics during a
 * burst"). A claim that comes back full says jobs are waiting; then the table is analyzed in the
 * background, at most once per interval.
 */
import type { Sql } from "../db.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import { analyzeJobs } from "./store.ts";

export function createBacklogAnalyzer(sql: Sql, clock: Clock, log: Logger, intervalMs: number) {
  let lastAnalyzeAt = Number.NEGATIVE_INFINITY;
  let analyzing: Promise<void> | undefined;
  let permitted = true;
  return {
    /** A full claim came back: analyze `jobs` unless it was analyzed within the interval. */
    backlogged(): void {
      const now = clock.now().getTime();
      if (analyzing || !permitted || now - lastAnalyzeAt < intervalMs) return;
      lastAnalyzeAt = now;
      analyzing = analyzeJobs(sql).catch((err) => {
        // Only the table's owner may analyze it; without that, autovacuum's statistics stay.
        if ((err as { code?: string }).code === "42501") permitted = false;
        log.warn("the jobs table could not be analyzed", errorFields(err));
      }).finally(() => analyzing = undefined);
    },
    /** Resolves once an analysis in flight is over. */
    settled: (): Promise<void> => analyzing ?? Promise.resolve(),
  };
}
