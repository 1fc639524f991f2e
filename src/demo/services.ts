/**
 * The features' services as the demo loader calls them: the same use cases a request reaches,
 * built from the loader's database and a clock the loader moves to each moment of the history,
 * so the rules judge every write as they judge a user's at that moment.
 */
import { type Clock, ManualClock } from "../platform/clock.ts";
import type { Database } from "../platform/db.ts";
import { createLogger } from "../platform/log.ts";
import type { Config } from "../config.ts";
import type { EventPublisher } from "../features/events.ts";
import type { FeatureJobs, JobQueue } from "../features/feature.ts";
import { badgesFeature } from "../features/badges/mod.ts";
import { funnelFeature } from "../features/funnel/mod.ts";
import { activityLedger, type ChallengesDeps } from "../features/challenges/mod.ts";
import type { GoalsDeps } from "../features/goals/mod.ts";
import type { MoodDeps } from "../features/mood/mod.ts";
import { feedFeature } from "../features/feed/mod.ts";
import { notificationsFeature } from "../features/notifications/mod.ts";
import { type CommunitiesDeps, communitiesFeature } from "../features/communities/mod.ts";
import type { TeamsDeps } from "../features/teams/service.ts";
import type { FeedbackServiceDeps } from "../features/feedback/service.ts";
import type { WorkforceServiceDeps } from "../features/workforce/service.ts";
import { usersApi, type UsersServiceDeps } from "../features/users/service.ts";

/**
 * History is not live activity: no event handler runs for it (the loader credits points and
 * challenge scores itself), so the events the use cases publish go nowhere.
 */
const historyEvents: EventPublisher = { publish: () => Promise.resolve() };

/** Nobody is connected to watch the history happen: its jobs (broadcasts, dispatches) are dropped. */
const historyJobs = {
  enqueue: () => Promise.resolve(),
  enqueueMany: () => Promise.resolve(0),
} as unknown as JobQueue & Pick<FeatureJobs, "enqueueMany">;

/** The loader keeps no signed-in users: every write to a user row goes straight through. */
const noViewerCache: UsersServiceDeps["viewers"] = {
  bySubject: () => null,
  byId: () => null,
  generation: 0,
  remember: () => {},
  invalidate: () => {},
  changing: (_userId, write) => write(),
  size: 0,
};

/** What moderation answers with no model configured: nothing checked, everything allowed. */
const unmoderated: FeedbackServiceDeps["moderation"] = {
  check: () => Promise.resolve({ allowed: true, checked: false, reason: null, categories: [] }),
};

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
  users: Pick<UsersServiceDeps, "db" | "clock" | "viewers">;
  goals: GoalsDeps;
  mood: MoodDeps;
  communities: CommunitiesDeps;
  challenges: ChallengesDeps;
  teams: TeamsDeps;
  feedback: FeedbackServiceDeps;
  workforce: WorkforceServiceDeps;
}

export function demoServices(db: Database, clock: Clock): DemoServices {
  const now = clock.now();
  const at = new ManualClock(now);
  const users = { db, clock: at, viewers: noViewerCache };
  const usersApiOf = usersApi(users);
  const funnel = funnelFeature({
    config: {},
    db,
    clock: at,
    tracker: unwired("tracker"),
    users: unwired("users"),
  }).api;
  const feedApi = feedFeature({
    db,
    clock: at,
    log: unwired("log"),
    users: unwired("users"),
    retentionDays: 0,
  }).api;
  const badgesApi = badgesFeature({ db, events: historyEvents, feed: feedApi, funnel }).api;
  const notifications = notificationsFeature({
    db,
    pubsub: unwired("pubsub"),
    jobs: historyJobs,
    clock: at,
    log: unwired("log"),
    users: unwired("users"),
    adminSubjects: [],
    // The demo's history is written as it happened long ago: nothing is pushed.
    providers: {},
    webAllowedHosts: [],
    webPushPublicKey: null,
    readRetentionDays: 0,
  }).api;
  const communities: CommunitiesDeps = {
    db,
    clock: at,
    users: usersApiOf,
    feed: feedApi,
    notifications,
  };
  return {
    db,
    at,
    now,
    users,
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
      jobs: historyJobs,
      fanOutBatchSize: 1_000,
    },
    mood: { db, clock: at, events: historyEvents, badges: badgesApi },
    communities,
    challenges: {
      db,
      clock: at,
      users: usersApiOf,
      communities: communitiesFeature(communities).api,
      goals: unwired("goals"),
      notifications,
      jobs: historyJobs,
      fanOutBatchSize: 1_000,
    },
    teams: { db, clock: at, users: usersApiOf, notifications },
    feedback: { db, clock: at, notifications, moderation: unmoderated },
    workforce: {
      config: unwired<Config>("config"),
      db,
      clock: at,
      log: createLogger({ level: "warn" }),
      fetch: unwired("fetch"),
      jobs: historyJobs,
      events: historyEvents,
      runner: unwired("runner"),
    },
  };
}
