/**
 * Reads behind the teams GraphQL fields: rows by id for the request's DataLoaders, the activity
 * and leaderboard pages, and the service admins' opt-out stats.
 */
import { type Connection, type PageArgs, paginate } from "../../../graphql/pagination.ts";
import { type LeaderboardPeriod, periodStart, pointsKey } from "../rules.ts";
import * as store from "../store.ts";
import type { LeaderboardRow, TeamRow } from "../store.ts";
import { type Actor, isRefused, subCommunityAccess, teamAccess, type TeamsDeps } from "./shared.ts";

export const teamsByIds = (deps: TeamsDeps, ids: readonly string[]) =>
  store.teamsByIds(deps.db.sql, ids);

export const subCommunitiesByIds = (deps: TeamsDeps, ids: readonly string[]) =>
  store.subCommunitiesByIds(deps.db.sql, ids);

/** Member count and whether the actor is a member, of each sub-community. */
export const subCommunityFigures = (deps: TeamsDeps, actor: Actor, ids: readonly string[]) =>
  store.subCommunityFigures(deps.db.sql, ids, actor.userId);

/** Member counts of the teams, in the order of `teamIds` (0 for none). */
export async function memberCounts(deps: TeamsDeps, teamIds: readonly string[]) {
  const rows = await store.memberCounts(deps.db.sql, teamIds);
  return teamIds.map((id) => rows.find((r) => r.teamId === id)?.count ?? 0);
}

/** The actor's role in the team ("member" for a team that is not theirs). */
export async function viewerRole(deps: TeamsDeps, actor: Actor, team: TeamRow) {
  const m = await store.membershipOf(deps.db.sql, actor.userId);
  return m && m.teamId === team.id ? m.role : "member";
}

/** A page of the team's joins and new sub-communities, newest first. */
export function recentActivity(deps: TeamsDeps, team: TeamRow, page: PageArgs) {
  const sql = deps.db.sql;
  return paginate(
    page,
    ["timestamp", "text"],
    (window) => store.activityPage(sql, team.id, window),
    (a) => [a.cursorAt, a.key],
    { totalCount: () => store.countActivity(sql, team.id) },
  );
}

export type TeamLeaderboard = Connection<LeaderboardRow> & {
  period: LeaderboardPeriod;
  periodStart: Date | null;
};

/**
 * A page of the leaderboard of the actor's team or of one of its sub-communities (`scope` names
 * exactly one); null when it is not the actor's.
 */
export async function teamLeaderboard(
  deps: TeamsDeps,
  actor: Actor,
  input: {
    scope: { teamId: string } | { subCommunityId: string };
    period: LeaderboardPeriod;
    page: PageArgs;
  },
): Promise<TeamLeaderboard | null> {
  let scope: { teamId: string; scId: string | null };
  if ("teamId" in input.scope) {
    const a = await teamAccess(deps, actor, input.scope.teamId);
    if (isRefused(a)) return null;
    scope = { teamId: a.team.id, scId: null };
  } else {
    const access = await subCommunityAccess(deps, actor, input.scope.subCommunityId, false);
    if (isRefused(access)) return null;
    scope = { teamId: access.sc.teamId, scId: access.sc.id };
  }
  const sql = deps.db.sql;
  const at = deps.clock.now();
  const connection = await paginate(
    input.page,
    ["integer", "publicId"],
    (window) => store.leaderboardPage(sql, scope, pointsKey(input.period, at), window),
    (r) => [r.score, r.userPublicId],
    { totalCount: () => store.countLeaderboard(sql, scope) },
  );
  return Object.assign(connection, {
    period: input.period,
    periodStart: periodStart(input.period, at),
  });
}

/** Service admins: a page of the raw opt-out counts per team, by team name. */
export async function optOutStats(deps: TeamsDeps, page: PageArgs) {
  const sql = deps.db.sql;
  const c = await paginate(
    page,
    ["text", "publicId"],
    (window) => store.optOutStatsPage(sql, window),
    (r) => [r.name, r.teamPublicId],
    { totalCount: () => store.countTeams(sql) },
  );
  const nodes = c.nodes.map((r) => ({
    teamId: r.teamPublicId,
    teamName: r.name,
    optedOutCount: r.optedOut,
  }));
  return { ...c, nodes, edges: c.edges.map((e, i) => ({ cursor: e.cursor, node: nodes[i] })) };
}
