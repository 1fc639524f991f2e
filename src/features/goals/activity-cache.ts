/**
 * What a goal's activity derives (its figures and streak runs for a zone and day, pages of its
 * events), kept per goal for as long as its `activity_version` stays the same. Every change to a
 * goal's events, check-ins or freeze uses bumps that version in the same transaction, whoever
 * writes (statement triggers, migration 0012). A reader passes the version it read with the
 * goal's row, so any other version is a miss: an entry never outlives the activity it was read
 * from, on this instance or on another. A goal keeps a few variants (zones, days, pages); the
 * least recently used goals go first.
 *
 * Values are shared between requests: callers must not change them.
 */
import { LRUCache } from "lru-cache";

export const ACTIVITY_CACHE_MAX_GOALS = 5_000;
/** Variants kept per goal: the time zones, days and event pages read lately. */
export const ACTIVITY_CACHE_MAX_VARIANTS = 4;

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

export function createGoalActivityCache(
  { maxGoals = ACTIVITY_CACHE_MAX_GOALS, maxVariants = ACTIVITY_CACHE_MAX_VARIANTS } = {},
): GoalActivityCache {
  const goals = new LRUCache<string, Entry>({ max: maxGoals });
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
      let entry = goals.get(goalId);
      if (entry && entry.version !== version && BigInt(entry.version) > BigInt(version)) return;
      if (entry?.version !== version) {
        entry = { version, values: new Map() };
        goals.set(goalId, entry);
      }
      entry.values.delete(key);
      entry.values.set(key, value);
      if (entry.values.size > maxVariants) {
        entry.values.delete(entry.values.keys().next().value!);
      }
    },
    get size() {
      return goals.size;
    },
  };
}
