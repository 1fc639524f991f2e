/** SQL of teams themselves: lookups, creation, renaming, deletion, the opt-out and its stats. */
import { maybeOne, one, type Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";
import { keyset } from "../../../graphql/pagination.ts";
import type { TeamRole } from "../rules.ts";
import { ownerNow } from "./guards.ts";
import {
  membershipColumns,
  type MembershipRow,
  type OptOutStatRow,
  teamColumns,
  type TeamRow,
  type Window,
} from "./rows.ts";

export async function membershipOf(sql: Queryable, userId: string): Promise<MembershipRow | null> {
  return await maybeOne(sql<MembershipRow[]>`
    select ${membershipColumns(sql)} from team_members where user_id = ${userId}`);
}

/** The team with that public id and the viewer's membership of it (null role: not a member). */
export async function teamWithRole(
  sql: Queryable,
  teamPublicId: string,
  userId: string,
): Promise<{ team: TeamRow; role: TeamRole | null } | null> {
  const [row] = await sql<(TeamRow & { role: TeamRole | null })[]>`
    select ${teamColumns(sql)}, m.role
    from teams t left join team_members m on m.team_id = t.id and m.user_id = ${userId}
    where t.public_id = ${teamPublicId}`;
  if (!row) return null;
  const { role, ...team } = row;
  return { team, role };
}

export async function teamsByIds(sql: Queryable, ids: readonly string[]): Promise<TeamRow[]> {
  return await sql<TeamRow[]>`
    select ${teamColumns(sql)} from teams t where t.id = any(${ids as string[]})`;
}

export async function memberCounts(sql: Queryable, teamIds: readonly string[]) {
  return await sql<{ teamId: string; count: number }[]>`
    select team_id as "teamId", count(*)::int as count from team_members
    where team_id = any(${teamIds as string[]}) group by team_id`;
}

/** Inserts a team with one owner (its members and sub-communities follow: {@link foundTeam}). */
export async function insertTeam(
  sql: Queryable,
  userId: string,
  name: string,
  at: Date,
): Promise<{ id: string }> {
  return await one(sql<{ id: string }[]>`
    insert into teams (public_id, name, owner_count, created_by, created_at, updated_at)
    values (${publicId()}, ${name}, 1, ${userId}, ${at}, ${at}) returning id`);
}

/**
 * Makes the creator of a new team its owner, adds its default open sub-community "General" with
 * the creator as its first member, and sets it as the team's default, in one statement. The
 * team_members key refuses a user who already belongs to a team (a unique violation).
 */
export async function foundTeam(
  sql: Queryable,
  teamId: string,
  userId: string,
  at: Date,
): Promise<TeamRow> {
  return await one(sql<TeamRow[]>`
    with owner as (
      insert into team_members (user_id, team_id, role, joined_at)
      values (${userId}, ${teamId}, 'owner', ${at})
      returning 1
    ), sc as (
      insert into team_sub_communities (public_id, team_id, name, open, created_by, created_at)
      values (${publicId()}, ${teamId}, 'General', true, ${userId}, ${at}) returning id
    ), scm as (
      insert into team_sub_community_members (sub_community_id, user_id, joined_at)
      select id, ${userId}, ${at} from sc
      returning 1
    )
    update teams t set default_sub_community_id = (select id from sc) where t.id = ${teamId}
    returning ${teamColumns(sql)}`);
}

/** Renames the team while the actor is one of its owners; null otherwise. */
export async function renameTeam(
  sql: Queryable,
  teamId: string,
  actorId: string,
  name: string,
  at: Date,
): Promise<TeamRow | null> {
  return await maybeOne(sql<TeamRow[]>`
    update teams t set name = ${name}, updated_at = ${at}
    where t.id = ${teamId} and ${ownerNow(sql, teamId, actorId)}
    returning ${teamColumns(sql)}`);
}

/**
 * The first step of deleting a team: locks its invites, in the order an invite being accepted
 * takes them (the invite, then the team), so a deletion and an accept never wait on each other:
 * a pending accept finishes first, a later one finds its invite gone.
 */
export async function lockTeamInvites(sql: Queryable, teamId: string): Promise<void> {
  await sql`select id from team_invites where team_id = ${teamId} order by id for update`;
}

/** Locks the team while the actor is one of its owners; false when they no longer are. */
export async function lockOwnedTeam(
  sql: Queryable,
  teamId: string,
  actorId: string,
): Promise<boolean> {
  const rows = await sql`
    select t.id from teams t where t.id = ${teamId} and ${ownerNow(sql, teamId, actorId)}
    for update of t`;
  return rows.length > 0;
}

/**
 * Deletes the team with its members, departures, sub-communities and invites in one statement (after
 * {@link lockTeamInvites} and {@link lockOwnedTeam}). Members' own records (goals, check-ins,
 * points) are theirs and stay.
 */
export async function deleteTeam(sql: Queryable, teamId: string): Promise<void> {
  await sql`
    with scm as (
      delete from team_sub_community_members sm using team_sub_communities s
      where sm.sub_community_id = s.id and s.team_id = ${teamId}
      returning 1
    ), inv as (
      delete from team_invites where team_id = ${teamId} returning 1
    ), mem as (
      delete from team_members where team_id = ${teamId} returning 1
    ), dep as (
      delete from team_departures where team_id = ${teamId} returning 1
    ), t as (
      delete from teams where id = ${teamId} returning id
    )
    delete from team_sub_communities where team_id in (select id from t)`;
}

/** Sets the user's own opt-out; null when they belong to no team. */
export async function setLeaderboardVisibility(
  sql: Queryable,
  userId: string,
  visible: boolean,
): Promise<MembershipRow | null> {
  return await maybeOne(sql<MembershipRow[]>`
    update team_members set leaderboard_visible = ${visible} where user_id = ${userId}
    returning ${membershipColumns(sql)}`);
}

/** One window of the raw opt-out counts per team (teams with none included), by team name. */
export async function optOutStatsPage(sql: Queryable, w: Window): Promise<OptOutStatRow[]> {
  const k = keyset(sql, [{ column: "t.name" }, { column: "t.public_id" }], "asc", w);
  return await sql<OptOutStatRow[]>`
    select t.id as "teamId", t.public_id as "teamPublicId", t.name,
           (select count(*)::int from team_members m
            where m.team_id = t.id and not m.leaderboard_visible) as "optedOut"
    from teams t where ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

export async function countTeams(sql: Queryable): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from teams`;
  return row.n;
}
