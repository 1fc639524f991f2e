/**
 * The feed's use cases: reading a user's unified feed, and the writes other features make inside
 * their own transactions (items, audiences followed) through the feed's API.
 */
import type { Database, Queryable } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { type BatchOptions, type BatchResult, pruneOlderThan } from "../../platform/prune.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type Connection, type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import * as store from "./store.ts";
import type { FeedItemMatch, FeedItemRow, NewFeedItem } from "./store.ts";

export type { FeedItemMatch, FeedItemRow, NewFeedItem };

export interface FeedDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  users: Pick<UsersApi, "loadUser" | "blockedBetween">;
  /** `FEED_RETENTION_DAYS`: items whose activity is older are pruned; 0 keeps every item. */
  retentionDays: number;
}

/**
 * A page of the actor's unified feed, newest first: their own items and those of the audiences
 * they follow, but no one blocked either way.
 */
export function unifiedFeed(
  deps: FeedDeps,
  actor: { userId: string },
  args: PageArgs,
): Promise<Connection<FeedItemRow>> {
  const sql = deps.db.sql;
  return paginate(
    args,
    ["publicId"],
    (window) =>
      store.feedPage(sql, actor.userId, {
        limit: window.limit,
        after: window.after?.[0] ?? null,
        before: window.before?.[0] ?? null,
        backward: window.backward,
      }, (other) => deps.users.blockedBetween(sql, actor.userId, other)),
    (r) => [r.publicId],
  );
}

/** An item of a public id that the actor's feed holds (no block between them); null otherwise. */
export async function visibleFeedItem(
  deps: FeedDeps,
  actor: { userId: string },
  id: string,
): Promise<FeedItemRow | null> {
  const sql = deps.db.sql;
  return looksLikePublicId(id)
    ? await store.visibleFeedItem(
      sql,
      actor.userId,
      id,
      (other) => deps.users.blockedBetween(sql, actor.userId, other),
    )
    : null;
}

/** Adds an item to a user's feed, inside the caller's transaction. */
export const recordFeedItem = (tx: Queryable, item: NewFeedItem) => store.recordFeedItem(tx, item);

/** Makes the audiences' items appear in the user's feed (repeating it changes nothing). */
export const followAudiences = (tx: Queryable, userId: string, audiences: string[]) =>
  store.followAudiences(tx, userId, audiences);

export const unfollowAudiences = (tx: Queryable, userId: string, audiences: string[]) =>
  store.unfollowAudiences(tx, userId, audiences);

/** Removes a user's items of one kind whose data holds `match.data`. */
export const removeFeedItems = (tx: Queryable, match: FeedItemMatch) =>
  store.removeFeedItems(tx, match);

/** Removes every item of the user whose data names one of the goals (internal ids). */
export const removeGoalFeedItems = (tx: Queryable, userId: string, goalIds: readonly string[]) =>
  store.removeGoalFeedItems(tx, userId, goalIds);

/** Moves the matching items to `occurredAt` and merges `data` into theirs (an edit). */
export const reviseFeedItems = (
  tx: Queryable,
  match: FeedItemMatch,
  change: { occurredAt: Date; data: Record<string, unknown> },
) => store.reviseFeedItems(tx, match, change);

/**
 * Deletes the items whose activity happened more than `FEED_RETENTION_DAYS` ago, in bounded
 * batches (the schedule's use case); logs how many when any. `options` bound the batches.
 */
export async function pruneOldFeedItems(
  deps: Pick<FeedDeps, "db" | "clock" | "log" | "retentionDays">,
  options: BatchOptions = {},
): Promise<BatchResult> {
  const { before, ...result } = await pruneOlderThan(
    deps.clock.now(),
    deps.retentionDays,
    (before, limit) => store.pruneFeedItems(deps.db.sql, before, limit),
    options,
  );
  if (result.rows) {
    deps.log.info("feed items pruned", { pruned: result.rows, before, more: result.more });
  }
  return result;
}
