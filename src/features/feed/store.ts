/**
 * SQL for the unified activity feed: one row per item, newest first by (occurred_at, id), paged
 * by a keyset. The cursor is the last item's public id; the page continues strictly below that
 * item's key, so items inserted meanwhile never shift or repeat later pages.
 */
import type { Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface FeedItemRow {
  id: string;
  publicId: string;
  userId: string;
  kind: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export interface NewFeedItem {
  userId: string;
  /** The source, e.g. `goal_event`; its GraphQL type is the PascalCase form plus `Activity`. */
  kind: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** Adds an item to a user's feed, inside the caller's transaction. */
export async function recordFeedItem(tx: Queryable, item: NewFeedItem): Promise<void> {
  await tx`
    insert into feed_items (public_id, user_id, kind, occurred_at, data)
    values (${publicId()}, ${item.userId}, ${item.kind}, ${item.occurredAt},
            ${tx.json(item.data as never)})`;
}

/**
 * One page, newest first; `after` is the public id of the last item seen (an unknown one, or
 * another user's, gives an empty page).
 */
export async function feedPage(
  sql: Queryable,
  userId: string,
  limit: number,
  after: string | null,
): Promise<FeedItemRow[]> {
  const below = after
    ? sql`and (occurred_at, id) < (select occurred_at, id from feed_items
                                   where public_id = ${after} and user_id = ${userId})`
    : sql``;
  return await sql<FeedItemRow[]>`
    select id, public_id as "publicId", user_id as "userId", kind, occurred_at as "occurredAt",
           data
    from feed_items
    where user_id = ${userId} ${below}
    order by occurred_at desc, id desc
    limit ${limit}`;
}
