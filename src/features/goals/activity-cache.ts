/**
 * What a goal's activity derives (its figures and streak runs for a zone and day, pages of its
 * events), kept per goal for as long as its `activity_version` stays the same. Every change to a
 * goal's events, check-ins or freeze uses bumps that version in the same transaction, whoever
 * writes (statement triggers, migration 0012). A reader passes the version it read with the
 * goal's row, so any other version is a miss: an entry never outlives the activity it was read
 * from, on this instance or on another. A goal keeps a few variants (zones, days, pages); the
 * least recently used goals go first, bounded both in goals and in the items (event rows) held.
 *
 * Values are shared between requests: callers must not change them.
 */
import { LRUCache } from "lru-cache";

export const ACTIVITY_CACHE_MAX_GOALS = 5_000;
/** Variants kept per goal: the time zones, days and event pages read lately. */
export const ACTIVITY_CACHE_MAX_VARIANTS = 4;
/**
 * Bound of the whole cache in items: a value counts 1, a list (a page of events) 1 plus its rows,
 * so that pages of up to 100 events cannot make 5,000 goals hold millions of rows.
 */
export const ACTIVITY_CACHE_MAX_ITEMS = 50_000;

export interface GoalActivityCache {
  /** The value kept for `goalId` at `version` under `key`, if any. */
  get<T>(goalId: string, version: string, key: string): T | undefined;
  /** Keeps `value`; a goal's entries of older versions are dropped (a newer one stays). */
  set(goalId: string, version: string, key: string, value: unknown): void;
  readonly size: number;
}

interface Entry {
  version: string;
  /** In order of use, oldest first. */
  values: Map<string, unknown>;
}

const itemsOf = (value: unknown) => Array.isArray(value) ? 1 + value.length : 1;

export function createGoalActivityCache({
  maxGoals = ACTIVITY_CACHE_MAX_GOALS,
  maxVariants = ACTIVITY_CACHE_MAX_VARIANTS,
  maxItems = ACTIVITY_CACHE_MAX_ITEMS,
} = {}): GoalActivityCache {
  const goals = new LRUCache<string, Entry>({
    max: maxGoals,
    maxSize: maxItems,
    sizeCalculation: (entry) => {
      let items = 0;
      for (const value of entry.values.values()) items += itemsOf(value);
      return Math.max(1, items);
    },
  });
  return {
    get<T>(goalId: string, version: string, key: string): T | undefined {
      const entry = goals.get(goalId);
      if (entry?.version !== version || !entry.values.has(key)) return undefined;
      const value = entry.values.get(key);
      entry.values.delete(key);
      entry.values.set(key, value);
      return value as T;
    },
    set(goalId, version, key, value) {
      const entry = goals.get(goalId);
      if (entry && entry.version !== version && BigInt(entry.version) > BigInt(version)) return;
      const values = entry?.version === version ? entry.values : new Map<string, unknown>();
      values.delete(key);
      values.set(key, value);
      if (values.size > maxVariants) values.delete(values.keys().next().value!);
      // A new entry object: the cache counts a value's size only when the value it holds changes
      // (an entry over the whole bound is not kept).
      goals.set(goalId, { version, values });
    },
    get size() {
      return goals.size;
    },
  };
}
