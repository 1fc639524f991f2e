/** SQL of a team's members: lookups, pages, role changes, removals and ownership transfers. */
import { maybeOne, one, type Queryable } from "../../../platform/db.ts";
import { keyset } from "../../../graphql/pagination.ts";
import type { TeamRole } from "../rules.ts";
import { actorMay, type Authority } from "./guards.ts";
import { cursorTime, type MemberRow, type Window } from "./rows.ts";

export async function memberOfTeam(
  sql: Queryable,
  teamId: string,
  userPublicId: string,
): Promise<MemberRow | null> {
  return await maybeOne(sql<MemberRow[]>`
    select m.user_id as "userId", u.public_id as "userPublicId", m.role, m.joined_at as "joinedAt"
    from team_members m join users u on u.id = m.user_id
    where m.team_id = ${teamId} and u.public_id = ${userPublicId}`);
}

/**
 * The membership of the user of `userPublicId` in the team as it ended, when they left it or were
 * removed and are not back; `userId` narrows it to that user (leaving again), null: anyone.
 */
export async function departure(
  sql: Queryable,
  team: { id: string } | { publicId: string },
  userPublicId: string,
  userId: string | null = null,
): Promise<MemberRow | null> {
  return await maybeOne(sql<MemberRow[]>`
    select d.user_id as "userId", u.public_id as "userPublicId", d.role, d.joined_at as "joinedAt"
    from team_departures d join users u on u.id = d.user_id join teams t on t.id = d.team_id
    where ${"id" in team ? sql`t.id = ${team.id}` : sql`t.public_id = ${team.publicId}`}
      and u.public_id = ${userPublicId} ${userId === null ? sql`` : sql`and d.user_id = ${userId}`}
      and not exists (select 1 from team_members m
                      where m.team_id = d.team_id and m.user_id = d.user_id)`);
}

/** One window of the members in join order, keyed by (joined_at, user public id). */
export async function membersPage(sql: Queryable, teamId: string, w: Window): Promise<MemberRow[]> {
  const k = keyset(
    sql,
    [{ column: "m.joined_at", cast: "timestamptz" }, { column: "u.public_id" }],
    "asc",
    w,
  );
  return await sql<MemberRow[]>`
    select m.user_id as "userId", u.public_id as "userPublicId", m.role, m.joined_at as "joinedAt",
           ${cursorTime(sql, "m.joined_at")} as "cursorAt"
    from team_members m join users u on u.id = m.user_id
    where m.team_id = ${teamId} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

const ownerDelta = (from: TeamRole, to: TeamRole | null) =>
  (to === "owner" ? 1 : 0) - (from === "owner" ? 1 : 0);

/**
 * Moves a member whose role is still `from` to role `to`, or out of the team (`to` null, with
 * their sub-community memberships), adjusting the team's owner count in the same statement; the
 * check on owner_count refuses the last owner (a check violation) even when two owners demote or
 * remove each other at the same moment. A removal records the membership as it ended (`at`) in
 * `team_departures`. "stale" when the member's role or the actor's authority changed meanwhile.
 */
export async function moveMember(
  sql: Queryable,
  actor: Authority,
  teamId: string,
  userId: string,
  from: TeamRole,
  to: TeamRole | null,
  at: Date,
): Promise<"moved" | "stale"> {
  const change = to === null
    ? sql`delete from team_members`
    : sql`update team_members set role = ${to}`;
  const leave = to === null
    ? sql`, s as (
        delete from team_sub_community_members sm
        using team_sub_communities sc, m
        where sc.team_id = ${teamId} and sm.sub_community_id = sc.id and sm.user_id = m.user_id
        returning 1
      ), d as (
        insert into team_departures (team_id, user_id, role, joined_at, left_at)
        select ${teamId}, m.user_id, m.role, m.joined_at, ${at} from m
        on conflict (team_id, user_id) do update
          set role = excluded.role, joined_at = excluded.joined_at, left_at = excluded.left_at
        returning 1
      )`
    : sql``;
  const row = await one(sql<{ n: number }[]>`
    with m as (
      ${change}
      where team_id = ${teamId} and user_id = ${userId} and role = ${from}
        and ${actorMay(sql, teamId, actor, true)}
      returning user_id, role, joined_at
    ), c as (
      update teams set owner_count = owner_count + ${ownerDelta(from, to)}, updated_at = now()
      where id = ${teamId} and exists (select 1 from m)
      returning id
    ) ${leave}
    select count(*)::int as n from m`);
  return row.n === 0 ? "stale" : "moved";
}

/**
 * Hands ownership from the actor (an owner now) to a member whose role is still `from`, in one
 * statement: the actor becomes an admin, and only then the member becomes an owner, so the owner
 * count does not change. "stale" when a part found its row changed meanwhile (a repeated
 * transfer, the member removed or their role changed): the other part may have been written, so
 * the caller rolls its transaction back.
 */
export async function transferOwnership(
  sql: Queryable,
  teamId: string,
  actorId: string,
  userId: string,
  from: TeamRole,
): Promise<"moved" | "stale"> {
  const row = await one(sql<{ stepped: number; took: number }[]>`
    with stepped as (
      update team_members set role = 'admin'
      where team_id = ${teamId} and user_id = ${actorId} and role = 'owner'
      returning 1
    ), took as (
      update team_members set role = 'owner'
      where team_id = ${teamId} and user_id = ${userId} and role = ${from}
        and exists (select 1 from stepped)
      returning 1
    )
    select (select count(*) from stepped)::int as stepped, (select count(*) from took)::int as took`);
  return row.stepped === 1 && row.took === 1 ? "moved" : "stale";
}
