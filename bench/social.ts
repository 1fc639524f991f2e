/**
 * `deno task bench:social`: a community challenge with 10,000 participants (leaderboard first
 * page, a deep page, the viewer's own rank) and a community feed with 100,000 posts (first and a
 * deep page, and the member's `unifiedFeed`), through the whole app on a real PostgreSQL. Reports
 * server time per request (median and p95 of the request log's `duration`) and SQL statements
 * per request.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/social.json.
 */
import { encodeCursor } from "../src/graphql/pagination.ts";
import { ROUNDS, runAppBenchmark, SUBJECT } from "./support.ts";

const PARTICIPANTS = 10_000;
const POSTS = 100_000;

await runAppBenchmark("social", async ({ sql, gql, measure }) => {
  const results: Record<string, unknown> = {};
  const community = (await gql(`mutation { createCommunity(name: "Bench club") {
    community { id } errors { code } } }`)).data.createCommunity.community.id as string;
  const now = new Date();
  const challenge = (await gql(
    `mutation($c: String!, $s: DateTime!, $e: DateTime!) { createCommunityChallenge(communityId: $c,
      title: "Bench", metric: check_ins, startsAt: $s, endsAt: $e) {
      challenge { id } errors { code } } }`,
    {
      c: community,
      s: new Date(now.getTime() - 3_600_000).toISOString(),
      e: new Date(now.getTime() + 7 * 864e5).toISOString(),
    },
  )).data.createCommunityChallenge.challenge.id as string;
  await gql(
    `mutation($id: String!) { joinCommunityChallenge(challengeId: $id) { errors { code } } }`,
    {
      id: challenge,
    },
  );

  // 10,000 other members and participants (scores 0..499: many ties), 100,000 posts.
  await sql`
    insert into users (public_id, subject, username)
    select 'bu' || lpad(n::text, 20, '0'), 'bench-' || n, 'bench_' || n
    from generate_series(1, ${PARTICIPANTS - 1}) n`;
  await sql`
    insert into community_members (community_id, user_id)
    select c.id, u.id from communities c, users u
    where c.public_id = ${community} and u.subject like 'bench-%' and u.subject <> ${SUBJECT}`;
  await sql`update communities set member_count = ${PARTICIPANTS} where public_id = ${community}`;
  await sql`
    insert into challenge_participants (public_id, challenge_id, user_id, score)
    select 'cp' || lpad(u.id::text, 20, '0'), ch.id, u.id, (hashtext(u.subject) & 511) % 500
    from community_challenges ch, users u
    where ch.public_id = ${challenge} and u.subject like 'bench-%' and u.subject <> ${SUBJECT}`;
  await sql`
    update challenge_participants set score = 250
    where user_id = (select id from users where subject = ${SUBJECT})`;
  await sql`
    update community_challenges set participant_count = ${PARTICIPANTS}
    where public_id = ${challenge}`;
  await sql`
    insert into challenge_score_counts (challenge_id, score, n)
    select challenge_id, score, count(*)::int from challenge_participants
    group by challenge_id, score
    on conflict (challenge_id, score) do update set n = excluded.n`;
  await sql`
    with c as (select id from communities where public_id = ${community}),
         authors as (select id, row_number() over (order by id) - 1 as k from users
                     where subject like 'bench-%' and subject <> ${SUBJECT})
    insert into community_posts (public_id, community_id, author_id, body, created_at)
    select 'po' || lpad(n::text, 20, '0'), c.id, a.id, 'Post number ' || n,
           now() - n * interval '1 second'
    from c, generate_series(1, ${POSTS}) n
    join authors a on a.k = n % ${PARTICIPANTS - 1}`;
  await sql`
    update communities set post_count = ${POSTS} where public_id = ${community}`;
  await sql`
    insert into feed_items (public_id, user_id, kind, occurred_at, data, audience)
    select 'fi' || p.public_id, p.author_id, 'community_post', p.created_at,
           jsonb_build_object('postId', p.id::text, 'communityId', p.community_id::text),
           'community:' || p.community_id
    from community_posts p`;
  await sql`vacuum analyze`;

  const BOARD = `query($id: String!, $after: String) {
    communityChallengeLeaderboard(challengeId: $id, first: 20, after: $after) {
      edges { cursor node { rank score user { id username } } } pageInfo { hasNextPage } } }`;
  const VIEWER = `query($id: String!) { communityChallengeLeaderboard(challengeId: $id, first: 0) {
    viewerEntry { rank score user { username } } } }`;
  const [deep] = await sql<{ score: number; publicId: string }[]>`
    select p.score, p.public_id as "publicId" from challenge_participants p
    join community_challenges c on c.id = p.challenge_id where c.public_id = ${challenge}
    order by p.score desc, p.public_id offset 9000 limit 1`;
  const deepCursor = encodeCursor([deep.score, deep.publicId]);
  const check = await gql(BOARD, { id: challenge, after: deepCursor });
  const firstDeepRank = check.data.communityChallengeLeaderboard.edges[0].node.rank;
  results.leaderboard = {
    participants: PARTICIPANTS,
    first_page: await measure(BOARD, { id: challenge }),
    deep_page_after_9000: {
      ...(await measure(BOARD, { id: challenge, after: deepCursor })),
      first_rank: firstDeepRank,
    },
    viewer_rank: await measure(VIEWER, { id: challenge }),
  };

  const FEED = `query($id: String!, $after: String) {
    communityFeed(communityId: $id, first: 20, after: $after) {
      edges { node { id body author { username } createdAt } } pageInfo { endCursor } } }`;
  const [deepPost] = await sql<{ publicId: string; createdAt: Date }[]>`
    select public_id as "publicId", created_at as "createdAt" from community_posts
    order by created_at desc, public_id desc
    offset 90000 limit 1`;
  const UNIFIED = `{ unifiedFeed(first: 20) { edges { node { id kind actor { username }
    activity { ... on CommunityPostActivity { post { id body } community { id } } } } } } }`;
  results.community_feed = {
    posts: POSTS,
    first_page: await measure(FEED, { id: community }),
    deep_page_after_90000: await measure(FEED, {
      id: community,
      after: encodeCursor([deepPost.createdAt.toISOString(), deepPost.publicId]),
    }),
    unified_feed_of_a_member: await measure(UNIFIED, {}),
  };
  return {
    ...results,
    rounds: ROUNDS,
    measured_at: new Date().toISOString(),
    note:
      "server time = the request log's duration (in-process, no network); statements = SQL statements the request executed, including the session's user lookup",
  };
});
