/**
 * Signed-in users' rows, kept for a few seconds so a client's next requests find their user
 * without a query. This instance's writes to a user row invalidate it at once; another
 * instance's writes are seen within `ttlMs` (docs/auth.md).
 */
import type { Clock } from "../../platform/clock.ts";
import type { UserRow } from "./store.ts";

export const VIEWER_CACHE_TTL_MS = 5_000;
export const VIEWER_CACHE_MAX_ENTRIES = 10_000;

export interface ViewerCache {
  bySubject(subject: string): UserRow | null;
  byId(userId: string): UserRow | null;
  /** Bumped by every invalidation: a row read before a bump may be stale, so it is not kept. */
  readonly generation: number;
  /** Keeps `row`, read from the database when the generation was `readAt`. */
  remember(row: UserRow, readAt: number): void;
  invalidate(userId: string): void;
  /** Runs a write to the user's row, invalidating it before and after. */
  changing<T>(userId: string, write: () => Promise<T>): Promise<T>;
  readonly size: number;
}

interface Entry {
  row: UserRow;
  untilMs: number;
}

export function createViewerCache(
  clock: Clock,
  { ttlMs = VIEWER_CACHE_TTL_MS, maxEntries = VIEWER_CACHE_MAX_ENTRIES } = {},
): ViewerCache {
  const bySubject = new Map<string, Entry>();
  const subjectOf = new Map<string, string>();
  let generation = 0;

  function fresh(subject: string | undefined): UserRow | null {
    if (subject === undefined) return null;
    const entry = bySubject.get(subject);
    if (!entry) return null;
    if (clock.now().getTime() < entry.untilMs) return entry.row;
    forget(subject);
    return null;
  }

  function forget(subject: string) {
    const entry = bySubject.get(subject);
    if (!entry) return;
    bySubject.delete(subject);
    subjectOf.delete(entry.row.id);
  }

  function invalidate(userId: string) {
    generation++;
    const subject = subjectOf.get(userId);
    if (subject !== undefined) forget(subject);
  }

  return {
    bySubject: (subject) => fresh(subject),
    byId: (userId) => fresh(subjectOf.get(userId)),
    get generation() {
      return generation;
    },
    remember(row, readAt) {
      if (readAt !== generation) return;
      forget(row.subject);
      bySubject.set(row.subject, { row, untilMs: clock.now().getTime() + ttlMs });
      subjectOf.set(row.id, row.subject);
      while (bySubject.size > maxEntries) forget(bySubject.keys().next().value!);
    },
    invalidate,
    async changing(userId, write) {
      invalidate(userId);
      try {
        return await write();
      } finally {
        invalidate(userId);
      }
    },
    get size() {
      return bySubject.size;
    },
  };
}
