/**
 * The guards of the teams store's admin writes: each write carries the actor's authority in its
 * own statement, so an admin demoted while a request runs is refused by the statement itself.
 */
import type postgres from "postgres";
import type { Queryable } from "../../../platform/db.ts";
import { unlessViolated } from "../../../platform/db-errors.ts";
import type { TeamRole } from "../rules.ts";

/** Who acts, with the role the request was authorised with. */
export interface Authority {
  userId: string;
  role: TeamRole;
}

/**
 * Guards a write with the actor's authority at the moment of the write, not of the earlier read.
 * `exact` requires the very role the rules were applied to (role changes and removals depend on
 * it); otherwise any owner or admin passes.
 */
export function actorMay(sql: Queryable, teamId: string, actor: Authority, exact = false) {
  return sql`exists (
    select 1 from team_members a where a.team_id = ${teamId} and a.user_id = ${actor.userId}
      and ${exact ? sql`a.role = ${actor.role}` : sql`a.role in ('owner', 'admin')`})`;
}

/** The actor is an owner of the team at the moment of the write. */
export const ownerNow = (sql: Queryable, teamId: string, actorId: string) =>
  sql`exists (select 1 from team_members a
              where a.team_id = ${teamId} and a.user_id = ${actorId} and a.role = 'owner')`;

/** A guarded write's outcome: done, refused by its own rule, or the actor may no longer act. */
export type GuardedResult = "done" | "refused" | "forbidden";

/**
 * Runs a write ending in its `where` clause (`update`, `delete`, `insert ... select`) only while
 * the actor may act, in one statement, and says which of the two refused it; `returning` gives
 * the written row (the first, for writes of one row).
 */
export async function guardedWrite<T extends object>(
  sql: Queryable,
  teamId: string,
  actor: Authority,
  write: postgres.PendingQuery<postgres.Row[]>,
  returning: postgres.PendingQuery<postgres.Row[]>,
): Promise<{ result: GuardedResult; row: T | null }> {
  const [row] = await sql<(T & { allowedNow: boolean; written: number })[]>`
    with allowed as (select ${actorMay(sql, teamId, actor)} as ok),
    w as (${write} and (select ok from allowed) returning ${returning})
    select w.*, (select ok from allowed) as "allowedNow", (select count(*) from w)::int as written
    from (select 1) one left join w on true`;
  const { allowedNow, written, ...rest } = row;
  if (!allowedNow) return { result: "forbidden", row: null };
  return written > 0 ? { result: "done", row: rest as T } : { result: "refused", row: null };
}

/**
 * {@link guardedWrite} when only the outcome matters; a constraint violation `refusedBy` accepts
 * is the write's own refusal too.
 */
export async function guardedUpdate(
  sql: Queryable,
  teamId: string,
  actor: Authority,
  write: postgres.PendingQuery<postgres.Row[]>,
  refusedBy: (err: unknown) => boolean = () => false,
): Promise<GuardedResult> {
  return await unlessViolated(
    refusedBy,
    "refused",
    async () => (await guardedWrite(sql, teamId, actor, write, sql`1 as done`)).result,
  );
}
