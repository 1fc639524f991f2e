/**
 * SQL for points: a ledger of changes, each recorded once per `ref`, and the balance that is its
 * sum (never below zero).
 */
import type { Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";

/** A change of a user's points, recorded once per `ref` in the ledger. */
export interface PointEntry {
  userId: string;
  points: number;
  /** Why: `check_in`, `goal_event`, `challenge_entry`, `challenge_refund`. */
  reason: string;
  ref: string;
  at: Date;
}

/** Adds points once per `ref` (a repeat changes nothing); true when added now. */
export async function earnPoints(sql: Queryable, e: PointEntry): Promise<boolean> {
  const rows = await sql`
    with entry as (
      insert into point_ledger (user_id, delta, reason, ref, created_at)
      values (${e.userId}, ${e.points}, ${e.reason}, ${e.ref}, ${e.at})
      on conflict (ref) do nothing
      returning user_id, delta
    )
    insert into user_points (user_id, balance, updated_at)
    select user_id, delta, ${e.at} from entry
    on conflict (user_id) do update
      set balance = user_points.balance + excluded.balance, updated_at = excluded.updated_at
    returning user_id`;
  return rows.length > 0;
}

/** {@link earnPoints} for many entries of one user in one statement. */
export async function earnPointsMany(
  sql: Queryable,
  userId: string,
  entries: readonly Omit<PointEntry, "userId">[],
): Promise<number> {
  if (!entries.length) return 0;
  const rows = await sql<{ added: number }[]>`
    with entry as (
      insert into point_ledger (user_id, delta, reason, ref, created_at)
      select ${userId}, d, r, f, a
      from unnest(${entries.map((e) => e.points)}::int[], ${
    entries.map((e) => e.reason)
  }::text[], ${entries.map((e) => e.ref)}::text[], ${
    entries.map((e) => e.at.toISOString())
  }::timestamptz[]) as e(d, r, f, a)
      on conflict (ref) do nothing
      returning delta, created_at
    ), total as (
      select sum(delta)::int as delta, max(created_at) as at, count(*)::int as added from entry
    ), balance as (
      insert into user_points (user_id, balance, updated_at)
      select ${userId}, delta, at from total where added > 0
      on conflict (user_id) do update
        set balance = user_points.balance + excluded.balance, updated_at = excluded.updated_at
    )
    select added from total`;
  return rows[0].added;
}

/**
 * Takes back the points earned under `earnRefs` (activities that no longer exist), once per ref
 * (`undo:<ref>` rows). The balance never goes below zero: points already spent are kept, and an
 * `undo_shortfall` row records what could not be taken back, so the balance stays the ledger's
 * sum. One statement.
 */
export async function takeBackPoints(
  sql: Queryable,
  userId: string,
  earnRefs: readonly string[],
  at: Date,
): Promise<void> {
  if (!earnRefs.length) return;
  await sql`
    with earned as (
      select ref, delta from point_ledger
      where ref = any(${earnRefs as string[]}::text[]) and user_id = ${userId} and delta > 0
    ), undone as (
      insert into point_ledger (user_id, delta, reason, ref, created_at)
      select ${userId}, -delta, 'undo', 'undo:' || ref, ${at} from earned
      on conflict (ref) do nothing
      returning -delta as owed
    ), owed as (
      select coalesce(sum(owed), 0)::int as n from undone
    ), held as (
      select balance from user_points where user_id = ${userId} for update
    ), taken as (
      update user_points p set balance = greatest(p.balance - owed.n, 0), updated_at = ${at}
      from owed, held
      where p.user_id = ${userId} and owed.n > 0
      returning greatest(owed.n - held.balance, 0) as shortfall
    )
    insert into point_ledger (user_id, delta, reason, ref, created_at)
    select ${userId}, shortfall, 'undo_shortfall', ${`undo_shortfall:${publicId()}`}, ${at}
    from taken where shortfall > 0`;
}

/** Spends points when the balance covers them (one guarded statement); false otherwise. */
export async function spendPoints(sql: Queryable, e: PointEntry): Promise<boolean> {
  const rows = await sql`
    with spent as (
      update user_points set balance = balance - ${e.points}, updated_at = ${e.at}
      where user_id = ${e.userId} and balance >= ${e.points}
      returning user_id
    )
    insert into point_ledger (user_id, delta, reason, ref, created_at)
    select user_id, ${-e.points}, ${e.reason}, ${e.ref}, ${e.at} from spent
    returning id`;
  return rows.length > 0;
}

export async function pointBalances(sql: Queryable, userIds: readonly string[]) {
  return await sql<{ userId: string; balance: number }[]>`
    select user_id as "userId", balance from user_points
    where user_id = any(${userIds as string[]}::bigint[])`;
}
