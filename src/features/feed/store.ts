/**
 * SQL for the unified activity feed: one row per item, newest first by (occurred_at, id), paged
 * by a keyset. The cursor is the last item's public id; the page continues strictly below that
 * item's key, so items inserted meanwhile never shift or repeat later pages.
 *
 * A viewer's feed is their own items plus the items of the audiences they follow: every item has
 * an `audience` (by default `<kind>:<actor id>`, e.g. `check_in:42`; community posts use
 * `community:<id>`), and features follow or unfollow audiences for a user (`followAudience`), e.g.
 * on joining a community or starting a partnership.
 */
import type postgres from "postgres";
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import { audienceOf } from "./rules.ts";

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
  /** Who else may see it: followers of this audience (default `<kind>:<userId>`). */
  audience?: string;
}

/** Adds an item to a user's feed, inside the caller's transaction. */
export async function recordFeedItem(tx: Queryable, item: NewFeedItem): Promise<void> {
  await tx`
    insert into feed_items (public_id, user_id, kind, occurred_at, data, audience)
    values (${publicId()}, ${item.userId}, ${item.kind}, ${item.occurredAt},
            ${tx.json(item.data as never)}, ${
    item.audience ?? audienceOf(item.kind, item.userId)
  })`;
}

/** Which of a user's items to remove or change: their kind and what their data holds. */
export interface FeedItemMatch {
  userId: string;
  kind: string;
  /** Pairs the item's data holds (`data @> match.data`), or alternatives of them (any one). */
  data: Record<string, string | number> | Record<string, string | number>[];
  /** The item's time, when known: the lookup is then one index range. */
  occurredAt?: Date;
}

/** The `where` of a match; a goal's items and a known time are read from their indexes. */
const matching = (tx: Queryable, m: FeedItemMatch) => {
  const alternatives = Array.isArray(m.data) ? m.data : [m.data];
  const goalIds = [...new Set(alternatives.map((d) => d.goalId))];
  const goal = goalIds.length === 1 && goalIds[0] !== undefined
    ? tx`and data ? 'goalId' and (data ->> 'goalId') = ${String(goalIds[0])}`
    : tx``;
  return tx`user_id = ${m.userId} and kind = ${m.kind}
    and data @> any(array(select jsonb_array_elements(${tx.json(alternatives as never)}::jsonb)))
    ${goal}
    ${m.occurredAt ? tx`and occurred_at = ${m.occurredAt}` : tx``}`;
};

/** Removes the items that show an activity which no longer exists, inside the caller's tx. */
export async function removeFeedItems(tx: Queryable, match: FeedItemMatch): Promise<void> {
  await tx`delete from feed_items where ${matching(tx, match)}`;
}

/**
 * Removes every item of the user that shows one of the goals (progress, check-ins, completion):
 * one index range per goal.
 */
export async function removeGoalFeedItems(
  tx: Queryable,
  userId: string,
  goalIds: readonly string[],
): Promise<void> {
  if (!goalIds.length) return;
  await tx`
    delete from feed_items
    where user_id = ${userId} and data ? 'goalId'
      and (data ->> 'goalId') = any(${goalIds as string[]}::text[])`;
}

/** Moves and rewrites the matching items after the activity they show was edited. */
export async function reviseFeedItems(
  tx: Queryable,
  match: FeedItemMatch,
  change: { occurredAt: Date; data: Record<string, unknown> },
): Promise<void> {
  await tx`
    update feed_items set occurred_at = ${change.occurredAt},
      data = data || ${tx.json(change.data as never)}::jsonb
    where ${matching(tx, match)}`;
}

/** Makes the audiences' items appear in the user's feed (repeating it changes nothing). */
export async function followAudiences(tx: Queryable, userId: string, audiences: string[]) {
  if (!audiences.length) return;
  await tx`
    insert into feed_follows (user_id, audience)
    select ${userId}, unnest(${audiences}::text[])
    on conflict do nothing`;
}

export async function unfollowAudiences(tx: Queryable, userId: string, audiences: string[]) {
  if (!audiences.length) return;
  await tx`
    delete from feed_follows where user_id = ${userId} and audience = any(${audiences}::text[])`;
}

/**
 * An item of a public id as the viewer's feed holds it: their own, or one of an audience they
 * follow whose actor no block separates from them (`blockedWith`); null otherwise.
 */
export async function visibleFeedItem(
  sql: Queryable,
  userId: string,
  itemPublicId: string,
  blockedWith: (actor: postgres.Fragment) => postgres.Fragment,
): Promise<FeedItemRow | null> {
  return await maybeOne(sql<FeedItemRow[]>`
    select id, public_id as "publicId", user_id as "userId", kind, occurred_at as "occurredAt",
           data
    from feed_items i
    where i.public_id = ${itemPublicId}
      and (i.user_id = ${userId}
        or (i.audience in (select audience from feed_follows where user_id = ${userId})
          and not ${blockedWith(sql`i.user_id`)}))`);
}

/**
 * One window, newest first; `after`/`before` are public ids of items seen (an unknown one, or one
 * the viewer cannot see, gives an empty page); `backward` reads from the other end, oldest first
 * (the caller turns the rows back). One statement: the viewer's own items and, per followed
 * audience, its `limit` items nearest the cursor (each an index range scan) that no block
 * between the viewer and their actor hides (`blockedWith`), merged.
 */
export async function feedPage(
  sql: Queryable,
  userId: string,
  window: { limit: number; after: string | null; before: string | null; backward: boolean },
  blockedWith: (actor: postgres.Fragment) => postgres.Fragment,
): Promise<FeedItemRow[]> {
  const { limit, after, before, backward } = window;
  const order = sql.unsafe(backward ? "asc" : "desc");
  const bound = (alias: string, cursor: string | null, side: "<" | ">") =>
    cursor
      ? sql`and (${sql(alias)}.occurred_at, ${sql(alias)}.id) ${sql.unsafe(side)} (
          select c.occurred_at, c.id from feed_items c
          where c.public_id = ${cursor}
            and (c.user_id = ${userId} or c.audience in (
              select audience from feed_follows where user_id = ${userId})))`
      : sql``;
  const within = (alias: string) => sql`${bound(alias, after, "<")} ${bound(alias, before, ">")}`;
  return await sql<FeedItemRow[]>`
    select id, public_id as "publicId", user_id as "userId", kind, occurred_at as "occurredAt",
           data
    from (
      (select o.* from feed_items o
       where o.user_id = ${userId} ${within("o")}
       order by o.occurred_at ${order}, o.id ${order}
       limit ${limit})
      union all
      (select f.* from feed_follows ff
       cross join lateral (
         select a.* from feed_items a
         where a.audience = ff.audience and a.user_id <> ${userId} ${within("a")}
           and not ${blockedWith(sql`a.user_id`)}
         order by a.occurred_at ${order}, a.id ${order}
         limit ${limit}) f
       where ff.user_id = ${userId})
    ) items
    order by occurred_at ${order}, id ${order}
    limit ${limit}`;
}

/**
 * Deletes up to `limit` items whose activity happened before `before`, oldest first (one range of
 * `feed_items_occurred_idx`, then the rows by primary key); how many. Nothing refers to an item:
 * what it shows lives in its source's own table.
 */
export async function pruneFeedItems(sql: Queryable, before: Date, limit: number): Promise<number> {
  const deleted = await sql`
    delete from feed_items
    where id = any(array(
      select id from feed_items where occurred_at < ${before} order by occurred_at limit ${limit}))`;
  return deleted.count;
}
