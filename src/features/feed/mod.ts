/**
 * The unified activity feed: `unifiedFeed`, and the seam other features write through (items in
 * their own transaction, audiences a user follows).
 */
import type { Queryable } from "../../platform/db.ts";
import type { Feature } from "../feature.ts";
import { audienceOf } from "./rules.ts";
import { feedModule } from "./schema.ts";
import { feedNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import {
  type FeedDeps,
  type FeedItemMatch,
  followAudiences,
  type NewFeedItem,
  pruneOldFeedItems,
  recordFeedItem,
  removeFeedItems,
  removeGoalFeedItems,
  reviseFeedItems,
  unfollowAudiences,
} from "./service.ts";
import { feedPersonalData } from "./personal-data.ts";

export type { FeedDeps, FeedItemMatch, NewFeedItem };

export interface FeedApi {
  /** Adds an item to a user's feed, inside the caller's transaction. */
  record(tx: Queryable, item: NewFeedItem): Promise<void>;
  /** Makes the audiences' items appear in the user's feed (repeating it changes nothing). */
  follow(tx: Queryable, userId: string, audiences: string[]): Promise<void>;
  unfollow(tx: Queryable, userId: string, audiences: string[]): Promise<void>;
  /**
   * Removes a user's items of one kind whose data holds `match.data` (the activity they show was
   * undone or deleted), inside the caller's transaction.
   */
  remove(tx: Queryable, match: FeedItemMatch): Promise<void>;
  /** Removes every item of the user whose data names one of the goals (internal ids). */
  removeOfGoals(tx: Queryable, userId: string, goalIds: readonly string[]): Promise<void>;
  /** Moves the matching items to `occurredAt` and merges `data` into theirs (an edit). */
  revise(
    tx: Queryable,
    match: FeedItemMatch,
    change: { occurredAt: Date; data: Record<string, unknown> },
  ): Promise<void>;
  /** The default audience of a user's items of one kind (`<kind>:<userId>`). */
  audienceOf(kind: string, userId: string): string;
}

export function feedFeature(deps: FeedDeps): Feature<FeedApi> {
  return {
    name: "feed",
    personalData: feedPersonalData(deps.db.sql),
    graphql: mergeModules(feedModule(deps), feedNodesModule(deps)),
    schedules: [{
      name: "feed.prune_old_items",
      cron: "3-59/10 * * * *",
      run: async () => void await pruneOldFeedItems(deps),
    }],
    api: {
      record: recordFeedItem,
      follow: followAudiences,
      unfollow: unfollowAudiences,
      remove: removeFeedItems,
      removeOfGoals: removeGoalFeedItems,
      revise: reviseFeedItems,
      audienceOf,
    },
  };
}
