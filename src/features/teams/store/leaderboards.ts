/** SQL of a team's activity and its leaderboards (team and sub-community). */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import { keyset, type PageWindow } from "../../../graphql/pagination.ts";
import {
  type ActivityRow,
  cursorTime,
  type LeaderboardRow,
  type PointsKey,
  type Window,
} from "./rows.ts";

/**
 * One window of a team's joins and sub-community creations, newest first, keyed by (at, key):
 * `key` is `m<user public id>` or `s<sub-community public id>`. Each side reads at most the
 * window's rows from its own index before the two are merged.
 */
export async function activityPage(sql: Queryable, teamId: string, w: Window) {
  const k = keyset(sql, [{ column: "at", cast: "timestamptz" }, { column: "key" }], "desc", w);
  return await sql<ActivityRow[]>`
    select kind, at, ${cursorTime(sql, "at")} as "cursorAt", key, "userId", "subCommunityId" from (
      (select * from (
        select 'member_joined' as kind, m.joined_at as at, 'm' || u.public_id as key,
               m.user_id as "userId", null::bigint as "subCommunityId"
        from team_members m join users u on u.id = m.user_id where m.team_id = ${teamId}
      ) a where ${k.where} order by ${k.orderBy} limit ${k.limit})
      union all
      (select * from (
        select 'sub_community_created' as kind, s.created_at as at, 's' || s.public_id as key,
               s.created_by as "userId", s.id as "subCommunityId"
        from team_sub_communities s where s.team_id = ${teamId}
      ) b where ${k.where} order by ${k.orderBy} limit ${k.limit})
    ) e order by ${k.orderBy} limit ${k.limit}`;
}

/** How many events a team's activity holds (one statement). */
export async function countActivity(sql: Queryable, teamId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select ((select count(*) from team_members where team_id = ${teamId})
          + (select count(*) from team_sub_communities where team_id = ${teamId}))::int as n`;
  return row.n;
}

/**
 * The ranked, opted-in members of a team (or of one of its sub-communities) for a period: score
 * = the member's `activity_points` row of that period (migration 0013), 0 without one; ties share
 * a rank (1, 1, 3) and are ordered by user (internal id, so only the page's 20 or so users are
 * looked up; the cursor carries the public id). The rank is computed over everyone before the
 * page is cut, so any page is one statement.
 */
function rankedMembers(
  sql: Queryable,
  teamId: string,
  scId: string | null,
  key: PointsKey,
) {
  return sql`
    with members as (
      ${
    scId
      ? sql`select m.user_id from team_sub_community_members sm
            join team_members m on m.user_id = sm.user_id
            where sm.sub_community_id = ${scId} and m.team_id = ${teamId}
              and m.leaderboard_visible`
      : sql`select m.user_id from team_members m
            where m.team_id = ${teamId} and m.leaderboard_visible`
  }
    ), scores as (
      select mb.user_id, coalesce(p.points, 0) as score
      from members mb
      left join activity_points p on p.period = ${key.period}
        and p.starts = ${key.starts}::text::date and p.user_id = mb.user_id
    ), ranked as (
      select s.user_id, s.score::int as score, (rank() over (order by s.score desc))::int as rank
      from scores s
    )`;
}

/**
 * One window of a leaderboard, ordered by (score desc, user id); the cursor is (score, user
 * public id). Backward windows read in reverse order (paginate turns them back).
 */
export async function leaderboardPage(
  sql: Queryable,
  scope: { teamId: string; scId: string | null },
  key: PointsKey,
  w: PageWindow<[number, string]>,
): Promise<LeaderboardRow[]> {
  if (!w.after && !w.before && !w.backward && !scope.scId) {
    return await firstTeamLeaderboardPage(sql, scope.teamId, key, w.limit);
  }
  const userOf = (publicId: string) => sql`(select id from users where public_id = ${publicId})`;
  // "after" in this order: a lower score, or the same score and a later user.
  const beyond = (k: [number, string], side: "after" | "before") =>
    side === "after"
      ? sql`(score < ${k[0]} or (score = ${k[0]} and user_id > ${userOf(k[1])}))`
      : sql`(score > ${k[0]} or (score = ${k[0]} and user_id < ${userOf(k[1])}))`;
  const conditions = [
    w.after ? beyond(w.after, "after") : sql`true`,
    w.before ? beyond(w.before, "before") : sql`true`,
  ];
  const order = w.backward ? sql`score asc, user_id desc` : sql`score desc, user_id asc`;
  return await sql<LeaderboardRow[]>`
    ${rankedMembers(sql, scope.teamId, scope.scId, key)}
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from (
      select * from ranked where ${conditions[0]} and ${conditions[1]}
      order by ${order} limit ${w.limit}
    ) r join users u on u.id = r.user_id
    order by ${w.backward ? sql`r.score asc, r.user_id desc` : sql`r.score desc, r.user_id asc`}`;
}

/** How many members a leaderboard lists (the opted-in ones; one statement). */
export async function countLeaderboard(
  sql: Queryable,
  scope: { teamId: string; scId: string | null },
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from team_members m
    where m.team_id = ${scope.teamId} and m.leaderboard_visible
      ${
    scope.scId
      ? sql`and exists (select 1 from team_sub_community_members sm
                        where sm.sub_community_id = ${scope.scId} and sm.user_id = m.user_id)`
      : sql``
  }`;
  return row.n;
}

/**
 * A team board's first page walks the period's points index from the top and stops after
 * `limit` members, then fills with members without points (score 0) only when the page is short.
 * Every member ranked above an entry of the first page is on it, so ranking the page ranks the
 * board. (A sub-community's board starts from its own members instead: they are few.)
 */
async function firstTeamLeaderboardPage(
  sql: Queryable,
  teamId: string,
  key: PointsKey,
  limit: number,
): Promise<LeaderboardRow[]> {
  return await sql<LeaderboardRow[]>`
    with scored as materialized (
      select p.user_id, p.points as score
      from activity_points p join team_members m on m.user_id = p.user_id
      where p.period = ${key.period} and p.starts = ${key.starts}::text::date and p.points > 0
        and m.team_id = ${teamId} and m.leaderboard_visible
      order by p.points desc, p.user_id
      limit ${limit}
    ), unscored as (
      select m.user_id, 0 as score from team_members m
      where (select count(*) from scored) < ${limit}
        and m.team_id = ${teamId} and m.leaderboard_visible
        and not exists (
          select 1 from activity_points p where p.period = ${key.period}
            and p.starts = ${key.starts}::text::date and p.user_id = m.user_id and p.points > 0)
      order by m.user_id
      limit ${limit}
    ), page as (
      select user_id, score::int as score, (rank() over (order by score desc))::int as rank
      from (
        select * from scored union all select * from unscored
        order by score desc, user_id limit ${limit}
      ) top
    )
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from page r join users u on u.id = r.user_id
    order by r.score desc, r.user_id`;
}

/** One member's entry on the team leaderboard (null when opted out). */
export async function standingOf(
  sql: Queryable,
  teamId: string,
  userId: string,
  key: PointsKey,
): Promise<LeaderboardRow | null> {
  return await maybeOne(sql<LeaderboardRow[]>`
    ${rankedMembers(sql, teamId, null, key)}
    select r.user_id as "userId", u.public_id as "userPublicId", r.score, r.rank
    from ranked r join users u on u.id = r.user_id where r.user_id = ${userId}`);
}
