/**
 * The features' services as the demo loader calls them: the same use cases a request reaches,
 * built from the loader's database and a clock the loader moves to each moment of the history,
 * so the rules judge every write as they judge a user's at that moment.
 */
import { type Clock, ManualClock } from "../platform/clock.ts";
import type { Database } from "../platform/db.ts";
import type { EventPublisher } from "../features/events.ts";
import { badgesFeature } from "../features/badges/mod.ts";
import { funnelFeature } from "../features/funnel/mod.ts";
import { activityLedger } from "../features/challenges/mod.ts";
import type { GoalsDeps } from "../features/goals/mod.ts";
import type { MoodDeps } from "../features/mood/mod.ts";
import { feedFeature } from "../features/feed/mod.ts";

/**
 * History is not live activity: no event handler runs for it (the loader credits points and
 * challenge scores itself), so the events the use cases publish go nowhere.
 */
const historyEvents: EventPublisher = { publish: () => Promise.resolve() };

/** A seam none of the use cases the loader calls reaches: calling it is a loader bug. */
function unwired<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_, key) => () => {
      throw new Error(`demo loader: ${name}.${String(key)} is not wired`);
    },
  });
}

export interface DemoServices {
  db: Database;
  /** Where the history's writes happen: moved to each moment before a write. */
  at: ManualClock;
  /** Now: the end of the history. */
  now: Date;
  goals: GoalsDeps;
  mood: MoodDeps;
}

export function demoServices(db: Database, clock: Clock): DemoServices {
  const now = clock.now();
  const at = new ManualClock(now);
  const funnel = funnelFeature({
    config: {},
    db,
    clock: at,
    tracker: unwired("tracker"),
    users: unwired("users"),
  }).api;
  const feedApi = feedFeature({ db, users: unwired("users") }).api;
  const badgesApi = badgesFeature({ db, events: historyEvents, feed: feedApi, funnel }).api;
  return {
    db,
    at,
    now,
    goals: {
      db,
      clock: at,
      log: unwired("log"),
      events: historyEvents,
      users: unwired("users"),
      badges: badgesApi,
      feed: feedApi,
      funnel,
      activity: activityLedger,
      notifications: unwired("notifications"),
    },
    mood: { db, clock: at, events: historyEvents, badges: badgesApi },
  };
}
