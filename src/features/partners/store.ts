/**
 * SQL for allies (`ally_links`: one live link per pair, enforced by a partial unique index) and
 * accountability partnerships (`partnerships`, one pending request per pair; `active_partners`
 * holds one row per user in an active partnership, so "at most one partner" is a primary key).
 */
import type postgres from "postgres";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface LinkRow {
  id: string;
  publicId: string;
  requesterId: string;
  addresseeId: string;
  status: string;
  createdAt: Date;
  respondedAt: Date | null;
  endedAt: Date | null;
}

type Table = "ally_links" | "partnerships";

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", requester_id as "requesterId",
      addressee_id as "addresseeId", status, created_at as "createdAt",
      responded_at as "respondedAt", ended_at as "endedAt"`;

const pair = (sql: Queryable, a: string, b: string) =>
  sql`least(requester_id, addressee_id) = least(${a}::bigint, ${b}::bigint)
      and greatest(requester_id, addressee_id) = greatest(${a}::bigint, ${b}::bigint)`;

/**
 * Inserts a pending request unless `blocked` (a condition on the pair) holds; null when it does
 * or the pair already has a request that stands in the way.
 */
export async function insertRequest(
  tx: Queryable,
  table: Table,
  from: string,
  to: string,
  at: Date,
  blocked: postgres.Fragment,
): Promise<LinkRow | null> {
  return await maybeOne(tx<LinkRow[]>`
    insert into ${tx(table)} (public_id, requester_id, addressee_id, created_at)
    select ${publicId()}, ${from}, ${to}, ${at}
    where not ${blocked}
    on conflict do nothing
    returning ${columns(tx)}`);
}

/**
 * Ends what links the pair (a block between them): the ally link and pending ally requests become
 * `removed`, pending partner requests `cancelled`; the active partnership is left to
 * {@link endPartnership}. Two statements whatever the pair holds.
 */
export async function unlinkPair(tx: Queryable, a: string, b: string, at: Date): Promise<void> {
  await tx`
    update ally_links set status = 'removed', ended_at = ${at}
    where ${pair(tx, a, b)} and status in ('pending', 'accepted')`;
  await tx`
    update partnerships set status = 'cancelled', ended_at = ${at}
    where ${pair(tx, a, b)} and status = 'pending'`;
}

/** The pair's live link (pending, or accepted / active). */
export async function liveLink(
  sql: Queryable,
  table: Table,
  a: string,
  b: string,
): Promise<LinkRow | null> {
  const live = table === "ally_links" ? ["pending", "accepted"] : ["pending", "active"];
  return await maybeOne(sql<LinkRow[]>`
    select ${columns(sql)} from ${sql(table)}
    where ${pair(sql, a, b)} and status = any(${live})
    order by id desc limit 1`);
}

/** A request the user is part of (either side), by public id. */
export async function linkOf(sql: Queryable, table: Table, userId: string, id: string) {
  return await maybeOne(sql<LinkRow[]>`
    select ${columns(sql)} from ${sql(table)}
    where public_id = ${id} and (requester_id = ${userId} or addressee_id = ${userId})`);
}

/** Answers a pending request addressed to the user: one guarded statement. */
export async function answer(
  tx: Queryable,
  table: Table,
  id: string,
  addresseeId: string,
  to: string,
  at: Date,
): Promise<LinkRow | null> {
  return await maybeOne(tx<LinkRow[]>`
    update ${tx(table)} set status = ${to}, responded_at = ${at}
    where id = ${id} and addressee_id = ${addresseeId} and status = 'pending'
    returning ${columns(tx)}`);
}

export async function areAllies(sql: Queryable, a: string, b: string): Promise<boolean> {
  const rows = await sql`
    select 1 from ally_links where ${pair(sql, a, b)} and status = 'accepted'`;
  return rows.length > 0;
}

/**
 * Ends the pair's accepted ally link (returned; null when there was none) and cancels a pending
 * partner request between them.
 */
export async function removeAllyLink(
  tx: Queryable,
  a: string,
  b: string,
  at: Date,
): Promise<LinkRow | null> {
  const removed = await maybeOne(tx<LinkRow[]>`
    update ally_links set status = 'removed', ended_at = ${at}
    where ${pair(tx, a, b)} and status = 'accepted'
    returning ${columns(tx)}`);
  if (!removed) return null;
  await tx`
    update partnerships set status = 'cancelled', ended_at = ${at}
    where ${pair(tx, a, b)} and status = 'pending'`;
  return removed;
}

/** The pair's latest ally connection that was accepted and has ended (removed), or null. */
export async function endedAllyLink(
  sql: Queryable,
  a: string,
  b: string,
): Promise<LinkRow | null> {
  return await maybeOne(sql<LinkRow[]>`
    select ${columns(sql)} from ally_links
    where ${pair(sql, a, b)} and status = 'removed' and responded_at is not null
    order by id desc limit 1`);
}

/** A window of the user's accepted allies, most recent first, keyed by (responded_at, public id). */
export async function allyPage(
  sql: Queryable,
  userId: string,
  window: PageWindow<[string, string]>,
): Promise<LinkRow[]> {
  const k = keyset(
    sql,
    [{ column: "responded_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  return await sql<LinkRow[]>`
    select ${columns(sql)} from (
      select * from ally_links where requester_id = ${userId} and status = 'accepted'
      union all
      select * from ally_links where addressee_id = ${userId} and status = 'accepted'
    ) ally_links
    where ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

export async function allyCount(sql: Queryable, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select ((select count(*) from ally_links where requester_id = ${userId} and status = 'accepted')
          + (select count(*) from ally_links where addressee_id = ${userId} and status = 'accepted')
           )::int as n`;
  return row.n;
}

/** A window of pending requests to (incoming) or from (outgoing) the user, newest first. */
export async function pendingRequests(
  sql: Queryable,
  table: Table,
  userId: string,
  incoming: boolean,
  window: PageWindow<[string, string]>,
): Promise<LinkRow[]> {
  const k = keyset(
    sql,
    [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  return await sql<LinkRow[]>`
    select ${columns(sql)} from ${sql(table)}
    where ${incoming ? sql`addressee_id` : sql`requester_id`} = ${userId} and status = 'pending'
      and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

export async function pendingCount(
  sql: Queryable,
  table: Table,
  userId: string,
  incoming: boolean,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ${sql(table)}
    where ${incoming ? sql`addressee_id` : sql`requester_id`} = ${userId} and status = 'pending'`;
  return row.n;
}

/** Which of the users are in an active partnership. */
export async function withPartners(sql: Queryable, userIds: string[]): Promise<Set<string>> {
  const rows = await sql<{ userId: string }[]>`
    select user_id as "userId" from active_partners where user_id = any(${userIds}::bigint[])`;
  return new Set(rows.map((r) => r.userId));
}

/**
 * Takes both users' partner slots for an accepted partnership; false (nothing written that
 * matters: the caller rolls back) when either already holds one.
 */
export async function takeSlots(
  tx: Queryable,
  link: LinkRow,
  at: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into active_partners (user_id, partner_id, partnership_id, since)
    values (${link.requesterId}, ${link.addresseeId}, ${link.id}, ${at}),
           (${link.addresseeId}, ${link.requesterId}, ${link.id}, ${at})
    on conflict do nothing
    returning user_id`;
  return rows.length === 2;
}

export interface ActivePartnership extends LinkRow {
  partnerId: string;
  since: Date;
}

export async function activePartnership(sql: Queryable, userId: string) {
  return await maybeOne(sql<ActivePartnership[]>`
    select p.id, p.public_id as "publicId", p.requester_id as "requesterId",
           p.addressee_id as "addresseeId", p.status, p.created_at as "createdAt",
           p.responded_at as "respondedAt", p.ended_at as "endedAt",
           a.partner_id as "partnerId", a.since
    from active_partners a join partnerships p on p.id = a.partnership_id
    where a.user_id = ${userId}`);
}

/** Ends the user's active partnership (frees both slots); null when there was none. */
export async function endPartnership(tx: Queryable, userId: string, at: Date) {
  return await maybeOne(tx<LinkRow[]>`
    with mine as (
      delete from active_partners where user_id = ${userId} returning partnership_id, partner_id
    ), theirs as (
      delete from active_partners
      where user_id in (select partner_id from mine)
        and partnership_id in (select partnership_id from mine)
    )
    update partnerships set status = 'ended', ended_at = ${at}
    where id in (select partnership_id from mine) and status = 'active'
    returning ${columns(tx)}`);
}

/** The user's latest partnership that was active and has ended, or null. */
export async function lastEndedPartnership(
  sql: Queryable,
  userId: string,
): Promise<LinkRow | null> {
  return await maybeOne(sql<LinkRow[]>`
    select ${columns(sql)} from partnerships
    where (requester_id = ${userId} or addressee_id = ${userId}) and status = 'ended'
    order by ended_at desc, id desc limit 1`);
}
