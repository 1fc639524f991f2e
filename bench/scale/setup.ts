/**
 * The bench's setup around the growth: what a client makes through the API first, the internal
 * ids the growth builds on, and each size's context for the cases (ids, 90%-deep cursors and what
 * the tables hold, counted straight from them).
 */
import type { Sql } from "../../src/platform/db.ts";
import { encodeCursor } from "../../src/graphql/pagination.ts";
import { gql } from "../http-support.ts";
import { type Base, createEmployees } from "./grow.ts";
import type { SizeContext, Who } from "./cases.ts";

/** The public ids of what a client made through the API before anything is grown. */
export interface ApiIds {
  community: string;
  challenge: string;
  goal: string;
}

/**
 * What a client makes through the API of the service at `url` before anything is grown: the
 * admin's community with the viewer in it, a check-in challenge the viewer joined, the viewer's
 * target goal.
 */
export async function createThroughApi(url: string, tokens: Record<Who, string>): Promise<ApiIds> {
  const ask = (as: Who, query: string, variables = {}) => gql(url, query, variables, tokens[as]);
  await ask("viewer", `{ me { id } }`);
  await ask("admin", `{ me { id } }`);
  const community = (await ask(
    "admin",
    `mutation { createCommunity(name: "Scale club") { community { id } errors { code } } }`,
  )).createCommunity.community.id as string;
  await ask(
    "viewer",
    `mutation($id: String!) { joinCommunity(communityId: $id) { errors { code } } }`,
    { id: community },
  );
  const now = Date.now();
  const challenge = (await ask(
    "admin",
    `mutation($c: String!, $s: DateTime!, $e: DateTime!) { createCommunityChallenge(
      communityId: $c, title: "Scale", metric: check_ins, startsAt: $s, endsAt: $e) {
      challenge { id } errors { code } } }`,
    {
      c: community,
      s: new Date(now - 3_600_000).toISOString(),
      e: new Date(now + 30 * 864e5).toISOString(),
    },
  )).createCommunityChallenge.challenge.id as string;
  await ask(
    "viewer",
    `mutation($id: String!) { joinCommunityChallenge(challengeId: $id) { errors { code } } }`,
    { id: challenge },
  );
  const goal = (await ask(
    "viewer",
    `mutation { addGoal(title: "Run 100,000 km", kind: target, targetValue: 1000000000) {
      goal { id } errors { code } } }`,
  )).addGoal.goal.id as string;
  return { community, challenge, goal };
}

/**
 * The internal ids behind `ids`, with what a service would have done since: the challenge's start
 * announced (to its first participant), the viewer mid-board; and the AI employees.
 */
export async function baseOf(sql: Sql, ids: ApiIds): Promise<Base> {
  const [row] = await sql<Omit<Base, "t0" | "challengePublicId">[]>`
    select (select id from users where subject = 'bench-viewer') as "viewerId",
           (select id from users where subject = 'bench-admin') as "adminId",
           (select id from communities where public_id = ${ids.community}) as "communityId",
           (select id from community_challenges where public_id = ${ids.challenge})
             as "challengeId",
           (select id from goals where public_id = ${ids.goal}) as "goalId"`;
  // Rows are grown back in time from a minute before now.
  const base: Base = {
    ...row,
    challengePublicId: ids.challenge,
    t0: new Date(Date.now() - 60_000),
  };
  // The challenge started an hour ago: the service announced its start then (to its first
  // participant); the viewer sits mid-board.
  await sql`
    update community_challenges set start_announced_at = coalesce(start_announced_at, now())
    where id = ${base.challengeId}`;
  await sql`
    update challenge_participants set score = 250
    where challenge_id = ${base.challengeId} and user_id = ${base.viewerId}`;
  await createEmployees(sql, base.t0);
  return base;
}

/** Ids, deep cursors and what the tables hold, for the cases' requests and checks. */
export async function contextOf(
  sql: Sql,
  base: Base,
  ids: { community: string; goal: string },
  size: number,
) {
  const [e] = await sql<SizeContext["expected"][]>`
    select
      (select count(*) from community_posts p where p.community_id = ${base.communityId}
        and not exists (select 1 from user_blocks b
          where (b.blocker_id = ${base.viewerId} and b.blocked_id = p.author_id)
             or (b.blocker_id = p.author_id and b.blocked_id = ${base.viewerId})))::int
        as "visiblePosts",
      (select count(*) from jobs where dead_at is not null)::int as "deadJobs",
      (select count(*) from notifications where user_id = ${base.viewerId})::int
        as "notifications",
      (select count(*) from notifications
        where user_id = ${base.viewerId} and acknowledged_at is null)::int
        as "unreadNotifications",
      (select count(*) from feedback_posts where deleted_at is null)::int as "feedbackPosts",
      (select count(*) from ai_artifacts where approval_status = 'pending')::int
        as "pendingArtifacts",
      (select count(*) from ai_employees)::int as employees,
      (select count(*) from challenge_participants where challenge_id = ${base.challengeId})::int
        as participants,
      0 as "deepRank"`;
  const [post] = await sql<{ createdAt: Date; publicId: string }[]>`
    select created_at as "createdAt", public_id as "publicId" from community_posts
    where community_id = ${base.communityId}
    order by created_at desc, public_id desc
    offset ${Math.floor(e.visiblePosts * 0.9)} limit 1`;
  const [notification] = await sql<{ key: string; publicId: string }[]>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as key,
           public_id as "publicId"
    from notifications where user_id = ${base.viewerId}
    order by created_at desc, public_id desc
    offset ${Math.floor(e.notifications * 0.9)} limit 1`;
  const entries = await sql<{ score: number; publicId: string; rank: number }[]>`
    select score, "publicId", rank from (
      select score, public_id as "publicId",
             (rank() over (order by score desc))::int as rank,
             row_number() over (order by score desc, public_id) as n
      from challenge_participants where challenge_id = ${base.challengeId}
    ) ranked
    where n in (${Math.floor(e.participants * 0.9)}, ${Math.floor(e.participants * 0.9) + 1})
    order by n`;
  return {
    size,
    communityId: ids.community,
    challengeId: base.challengePublicId,
    goalId: ids.goal,
    cursors: {
      feed: encodeCursor([post.createdAt.toISOString(), post.publicId]),
      notifications: encodeCursor([notification.key, notification.publicId]),
      leaderboard: encodeCursor([entries[0].score, entries[0].publicId]),
    },
    expected: { ...e, deepRank: entries[1].rank },
  } satisfies SizeContext;
}
