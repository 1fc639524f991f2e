/**
 * Per-request figures gathered while a request runs (database time and statement count), kept in
 * AsyncLocalStorage so the database layer can add to them without being handed the request.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestStats {
  requestId: string;
  dbMs: number;
  statements: number;
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
