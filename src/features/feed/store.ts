/** SQL for the unified activity feed: one row per item, paged newest first by a keyset. */
import type { Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface FeedItemRow {
  id: string;
  publicId: string;
  userId: string;
  kind: string;
  occurredAt: Date;
  /** `occurred_at` to the microsecond, for cursors. */
  cursorAt: string;
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

/** One page, newest first; `after` is the `[cursorAt, publicId]` of the last item seen. */
export async function feedPage(
  sql: Queryable,
  userId: string,
  limit: number,
  after: [string, string] | null,
): Promise<FeedItemRow[]> {
  return await sql<FeedItemRow[]>`
    select id, public_id as "publicId", user_id as "userId", kind, occurred_at as "occurredAt",
           to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorAt",
           data
    from feed_items
    where user_id = ${userId}
      ${after ? sql`and (occurred_at, public_id) < (${after[0]}::timestamptz, ${after[1]})` : sql``}
    order by occurred_at desc, public_id desc
    limit ${limit}`;
}
