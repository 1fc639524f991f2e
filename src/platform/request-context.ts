/**
 * Per-request figures gathered while a request runs (database time and statement count), kept in
 * AsyncLocalStorage so the database layer can add to them without being handed the request.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestStats {
  requestId: string;
  /**
   * Wall time during which at least one statement of the request was in flight, in ms: statements
   * run side by side count once, so it never exceeds the request's own duration.
   */
  dbMs: number;
  statements: number;
  /** Statements in flight now (kept by {@link statementStarted}). */
  inFlight?: number;
  /** When the current stretch with a statement in flight began (`performance.now()`). */
  busySince?: number;
  userId?: string;
  graphqlOperation?: string;
}

const storage = new AsyncLocalStorage<RequestStats>();

export function runWithRequestStats<T>(stats: RequestStats, fn: () => T): T {
  return storage.run(stats, fn);
}

export function currentRequestStats(): RequestStats | undefined {
  return storage.getStore();
}

/**
 * Marks a statement of the request started; call the function it returns once the statement has
 * settled. `dbMs` grows by the stretches during which any statement was in flight.
 */
export function statementStarted(
  stats: RequestStats,
  now = performance.now(),
): (end?: number) => void {
  if (!stats.inFlight) stats.busySince = now;
  stats.inFlight = (stats.inFlight ?? 0) + 1;
  let finished = false;
  return (end = performance.now()) => {
    if (finished) return;
    finished = true;
    stats.inFlight! -= 1;
    if (stats.inFlight === 0) stats.dbMs += end - stats.busySince!;
  };
}
