/**
 * `deno task bench:teams`: `teamLeaderboard` first pages (first: 20) for weekly, monthly and
 * all_time, for a team of 5,000 members and for a 500-member sub-community of it, over 12 months
 * of activity (each member: two habits checked in on about half the days, one target with events
 * on about a third of the days; 5% opted out), through the whole app on a real PostgreSQL.
 * Reports server time per request (median and p95 of the request log's `duration`), SQL
 * statements per request, and as the same run's baseline the leaderboard statement alone, run
 * directly with postgres.js.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/teams.json.
 */
import { loadMigrations, migrate } from "../src/platform/migrate.ts";
import { publicId } from "../src/platform/ids.ts";
import { type LeaderboardPeriod, pointsKey } from "../src/features/teams/rules.ts";
import { leaderboardPage } from "../src/features/teams/store.ts";
import { round2, ROUNDS, runAppBenchmark, SUBJECT, summary } from "./support.ts";

const MEMBERS = Number(Deno.env.get("BENCH_MEMBERS") ?? 5000);
const DAYS = 365;
const PERIODS: LeaderboardPeriod[] = ["weekly", "monthly", "all_time"];
// The activity is seeded before the leaderboard-points migration, so that its backfill runs (and
// is timed) the way it would on an existing database.
const ROLLUP = "0013";

await runAppBenchmark("teams", async ({ sql, log, gql }) => {
  const results: Record<string, unknown> = {};
  // The bench user owns the team (its default sub-community "General") and a sub-community.
  // Written here as the users and teams stores write them: the app's own mutations need the
  // migrations after 0013, which this database does not have yet.
  const team = publicId();
  const scId = publicId();
  const started = performance.now();
  const [{ teamId, generalId, runnersId }] = await sql.begin(async (tx) => {
    const [{ id: owner }] = await tx<{ id: string }[]>`
      insert into users (public_id, subject, username, created_at)
      values (${publicId()}, ${SUBJECT}, 'bench', now() - interval '400 days') returning id`;
    const [{ id: teamId }] = await tx<{ id: string }[]>`
      insert into teams (public_id, name, owner_count, created_by)
      values (${team}, 'Bench', 1, ${owner}) returning id`;
    await tx`insert into team_members (user_id, team_id, role) values (${owner}, ${teamId}, 'owner')`;
    const [{ id: generalId }, { id: runnersId }] = await tx<{ id: string }[]>`
      insert into team_sub_communities (public_id, team_id, name, open, created_by)
      values (${publicId()}, ${teamId}, 'General', true, ${owner}),
             (${scId}, ${teamId}, 'Runners', true, ${owner})
      returning id`;
    await tx`insert into team_sub_community_members (sub_community_id, user_id)
      values (${generalId}, ${owner}), (${runnersId}, ${owner})`;
    await tx`update teams set default_sub_community_id = ${generalId} where id = ${teamId}`;
    return [{ teamId, generalId, runnersId }];
  });
  await sql`
    insert into users (public_id, subject, username, created_at)
    select 'bu' || n, 'm-' || n, 'member' || n, now() - interval '400 days'
    from generate_series(2, ${MEMBERS}) n`;
  // Every 20th member has opted out; every 10th is in "Runners".
  await sql`
    insert into team_members (user_id, team_id, role, leaderboard_visible, joined_at)
    select u.id, ${teamId}, 'member', (u.id % 20 <> 0), now() - interval '380 days'
    from users u where u.subject like 'm-%'`;
  await sql`
    insert into team_sub_community_members (sub_community_id, user_id, joined_at)
    select ${generalId}, u.id, now() from users u where u.subject like 'm-%'`;
  await sql`
    insert into team_sub_community_members (sub_community_id, user_id, joined_at)
    select ${runnersId}, u.id, now() from users u
    where u.subject like 'm-%' and u.id % 10 = 0`;
  // Two habits and one target each, for every member (the bench user included).
  await sql`
    insert into goals (public_id, user_id, title, kind, cadence, target_value, created_at,
                       updated_at)
    select 'bg' || m.user_id || '-' || k, m.user_id, 'Goal ' || k,
           case when k < 2 then 'habit' else 'target' end,
           case when k < 2 then 'daily' end,
           case when k < 2 then null else 1000 end,
           now() - interval '380 days', now() - interval '380 days'
    from team_members m, generate_series(0, 2) k where m.team_id = ${teamId}`;
  await sql`
    insert into habit_check_ins (public_id, goal_id, user_id, day, created_at)
    select 'bc' || g.id || '-' || d, g.id, g.user_id, current_date - d,
           (current_date - d) + time '19:00'
    from goals g, generate_series(0, ${DAYS - 1}) d
    where g.kind = 'habit' and random() < 0.5`;
  await sql`
    insert into goal_events (public_id, goal_id, user_id, value, occurred_at, created_at)
    select 'be' || g.id || '-' || d, g.id, g.user_id, 1 + (d % 5),
           (current_date - d) + time '07:30', (current_date - d) + time '07:30'
    from goals g, generate_series(0, ${DAYS - 1}) d
    where g.kind = 'target' and random() < 0.33`;
  const backfillStarted = performance.now();
  await migrate(sql, log, await loadMigrations());
  const backfillSeconds = (performance.now() - backfillStarted) / 1000;
  await sql`analyze`;
  const [counts] = await sql<{ members: number; checkIns: number; events: number }[]>`
    select (select count(*)::int from team_members) as members,
           (select count(*)::int from activity_points) as "pointRows",
           (select count(*)::int from team_members where not leaderboard_visible) as "optedOut",
           (select count(*)::int from team_sub_community_members
            where sub_community_id = ${runnersId}) as "subCommunityMembers",
           (select count(*)::int from habit_check_ins) as "checkIns",
           (select count(*)::int from goal_events) as events`;
  results.data = {
    ...counts,
    days: DAYS,
    seed_seconds: round2((performance.now() - started) / 1000 - backfillSeconds),
    rollup_backfill_seconds: round2(backfillSeconds),
  };

  const BOARD = `query($t: String, $s: String, $p: LeaderboardPeriod!) {
    teamLeaderboard(teamId: $t, subCommunityId: $s, period: $p, first: 20) {
      edges { cursor node { rank score user { id username } } } pageInfo { hasNextPage endCursor }
    } }`;
  const scopes = {
    team_5000: { vars: { t: team }, scope: { teamId, scId: null } },
    sub_community_500: { vars: { s: scId }, scope: { teamId, scId: runnersId } },
  };
  // The points rows must give the scores that counting the raw rows gives.
  const page: { node: { score: number; user: { username: string } } }[] =
    (await gql(BOARD, { t: team, p: "all_time" })).data.teamLeaderboard.edges;
  const [counted] = await sql<{ mismatches: number }[]>`
    select count(*)::int as mismatches
    from unnest(${page.map((e) => e.node.user.username)}::text[],
                ${page.map((e) => e.node.score)}::int[]) as p(username, score)
    join users u on u.username = p.username
    where p.score <> (select count(*) from habit_check_ins c where c.user_id = u.id)
                   + (select count(*) from goal_events e where e.user_id = u.id)`;
  if (counted.mismatches) throw new Error(`${counted.mismatches} scores differ from raw counts`);
  const leaderboard: Record<string, unknown> = {};
  for (const [label, { vars, scope }] of Object.entries(scopes)) {
    for (const p of PERIODS) {
      const server: number[] = [];
      const raw: number[] = [];
      let statements = 0;
      await gql(BOARD, { ...vars, p }); // warm-up
      for (let i = 0; i < ROUNDS; i++) {
        const r = await gql(BOARD, { ...vars, p });
        if (r.data.teamLeaderboard.edges.length !== 20) throw new Error("short page");
        server.push(r.ms);
        statements = r.statements;
        const t0 = performance.now();
        await leaderboardPage(sql, scope, pointsKey(p, new Date()), {
          limit: 21,
          after: null,
          before: null,
          backward: false,
        });
        raw.push(performance.now() - t0);
      }
      const s = summary(server);
      const b = summary(raw);
      leaderboard[`${label}.${p}`] = {
        server: s,
        statements,
        raw_sql: b,
        ratio_median: round2(s.median_ms / b.median_ms),
        under_10_ms: s.median_ms < 10,
      };
    }
  }
  results.teamLeaderboard_first_20 = leaderboard;
  return {
    ...results,
    rounds: ROUNDS,
    measured_at: new Date().toISOString(),
    machine: `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
    load_average: Deno.loadavg().map(round2),
    target: "each period's first page under 10 ms server time",
    note:
      "server time = the request log's duration (in-process, no network); statements = SQL statements of the request, including the session's user lookup; raw_sql = the leaderboard statement alone (store.leaderboardPage), run directly with postgres.js on the same pool",
  };
}, { migrateBefore: ROLLUP });
