/**
 * What must hold after a soak, read from the database directly and through the load balancer:
 * jobs all ran, leaderboards equal a recount from raw rows, every notification was written and
 * reached its subscriber or is returned by query, every run concluded once with at most one
 * artifact, every payment recorded once, and the feedback export returns every post once.
 */
import type postgres from "postgres";
import { failStaleRuns } from "../src/features/workforce/store.ts";
import type { Gql } from "./workload.ts";
import { signedPost, type Subscriber } from "./workload.ts";
import { WORKFORCE_SECRET } from "./topology.ts";

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ExportPage {
  feedback_posts: { public_id: string }[];
  next_since: string;
}

export interface InvariantInput {
  sql: postgres.Sql;
  gql: Gql;
  users: { id: string; token: string; subscriber?: Subscriber }[];
  challenge: string;
  triggeredRuns: Set<string>;
  runsInFlightAtRunnerKills: number;
  billingSent: Set<string>;
  feedbackCreated: Set<string>;
  exported: Map<string, number>;
  exportUrl: string;
  adminToken: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(250);
  }
  return await check();
}

const NOTIFICATIONS = `query($after: String) { notifications(first: 100, after: $after) {
  nodes { id } pageInfo { endCursor hasNextPage } } }`;

export async function checkInvariants(input: InvariantInput): Promise<Invariant[]> {
  const { sql } = input;
  const out: Invariant[] = [];

  // Jobs: everything due has run (retries included), nothing died.
  const drained = await until(async () => {
    const [{ n }] = await sql<{ n: number }[]>`
      select count(*)::int as n from jobs where dead_at is null and run_at <= now()`;
    return n === 0;
  }, 60_000);
  const dead = await sql<{ name: string; last_error: string | null }[]>`
    select name, last_error from jobs where dead_at is not null`;
  out.push({
    name: "every job ran (none pending, none dead)",
    ok: drained && dead.length === 0,
    detail: `drained: ${drained}; dead: ${JSON.stringify(dead.slice(0, 5))}`,
  });

  // Leaderboard: each score is the sum of its contributions, and there is one contribution per
  // check-in (the check-in job ran for each, once); the API's top ten equals the recount.
  const recount = await sql<
    { user: string; score: number; contributed: number; contributions: number; check_ins: number }[]
  >`
    select u.public_id as user, p.score,
      coalesce((select sum(amount) from challenge_contributions c where c.participant_id = p.id), 0)::float8
        as contributed,
      (select count(*) from challenge_contributions c where c.participant_id = p.id)::int
        as contributions,
      (select count(*) from habit_check_ins h where h.user_id = p.user_id)::int as check_ins
    from challenge_participants p
    join community_challenges ch on ch.id = p.challenge_id
    join users u on u.id = p.user_id
    where ch.public_id = ${input.challenge}
    order by p.score desc, p.public_id asc`;
  const wrong = recount.filter((r) =>
    r.score !== r.contributed || r.contributions !== r.check_ins || r.score !== r.check_ins
  );
  const board = (await input.gql(
    "leaderboard",
    input.users[0].token,
    `query($id: String!) {
    communityChallengeLeaderboard(challengeId: $id, first: 10) { nodes { score user { id } } } }`,
    {
      id: input.challenge,
    },
  )).communityChallengeLeaderboard.nodes as { score: number; user: { id: string } }[];
  const apiScores = board.map((n) => n.score);
  const recountScores = [...recount].map((r) => r.check_ins).sort((a, b) => b - a).slice(0, 10);
  out.push({
    name: "leaderboard equals a recount from raw check-ins",
    ok: wrong.length === 0 && JSON.stringify(apiScores) === JSON.stringify(recountScores),
    detail: `${recount.length} participants, ${
      recount.reduce((n, r) => n + r.check_ins, 0)
    } check-ins; mismatched: ${JSON.stringify(wrong.slice(0, 3))}; top ten ${
      JSON.stringify(apiScores)
    } vs ${JSON.stringify(recountScores)}`,
  });

  // Notifications: one per ally request; each reached its subscriber or is listed by query.
  const [{ links, notes }] = await sql<{ links: number; notes: number }[]>`
    select (select count(*) from ally_links)::int as links,
      (select count(*) from notifications where kind = 'ally.request')::int as notes`;
  const written = await sql<{ id: string; user: string }[]>`
    select n.public_id as id, u.public_id as user from notifications n
    join users u on u.id = n.user_id where n.kind = 'ally.request'`;
  let live = 0;
  let byQuery = 0;
  let lost = 0;
  let duplicates = 0;
  for (const user of input.users) {
    const mine = written.filter((w) => w.user === user.id);
    const received = user.subscriber?.received ?? new Map();
    for (const count of received.values()) if (count > 1) duplicates += count - 1;
    const missing = mine.filter((w) => !received.has(w.id));
    live += mine.length - missing.length;
    if (!missing.length) continue;
    const listed = new Set<string>();
    let after: string | null = null;
    do {
      const page: {
        nodes: { id: string }[];
        pageInfo: { endCursor: string; hasNextPage: boolean };
      } = (await input.gql("notifications", user.token, NOTIFICATIONS, { after })).notifications;
      for (const n of page.nodes) listed.add(n.id);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    for (const m of missing) listed.has(m.id) ? byQuery++ : lost++;
  }
  out.push({
    name: "every notification written, delivered live or recoverable by query",
    ok: links === notes && lost === 0,
    detail:
      `${links} ally requests, ${notes} notifications; ${live} delivered live, ${byQuery} by query only, ${lost} lost; ${duplicates} duplicate live deliveries (at-least-once broadcast, same id)`,
  });

  // Runs: wait until the runners are quiet, then conclude what a killed runner held as the stale
  // sweep would 15 minutes on; every run then ended once, with at most one artifact.
  await until(async () => {
    const [{ n }] = await sql<{ n: number }[]>`
      select count(*)::int as n from ai_runs
      where status = 'queued' or (status = 'running' and started_at > now() - interval '20 seconds')`;
    return n === 0;
  }, 60_000);
  const now = new Date();
  const swept = await failStaleRuns(sql, new Date(now.getTime() + 1000), {
    running: "stale: no result within 15 minutes of starting",
    queued: "stale: not dispatched within 15 minutes of being queued",
  }, now);
  const runs = await sql<{ id: string; status: string; artifacts: number }[]>`
    select r.public_id as id, r.status,
      (select count(*) from ai_artifacts a where a.run_id = r.id)::int as artifacts
    from ai_runs r`;
  const unfinished = runs.filter((r) => r.status !== "succeeded" && r.status !== "failed");
  const badArtifacts = runs.filter((r) =>
    r.artifacts > 1 || (r.status === "succeeded" && r.artifacts !== 1) ||
    (r.status === "failed" && r.artifacts !== 0)
  );
  const unknown = [...input.triggeredRuns].filter((id) => !runs.some((r) => r.id === id));
  const sweptCount = swept.running.length + swept.queued.length;
  out.push({
    name: "every run concluded exactly once with at most one artifact",
    ok: unfinished.length === 0 && badArtifacts.length === 0 && unknown.length === 0 &&
      sweptCount <= input.runsInFlightAtRunnerKills,
    detail: `${runs.length} runs: ${
      runs.filter((r) => r.status === "succeeded").length
    } succeeded, ${
      runs.filter((r) => r.status === "failed").length
    } failed (${sweptCount} by the stale sweep, at most ${input.runsInFlightAtRunnerKills} were running on a killed runner); bad: ${
      JSON.stringify(badArtifacts.slice(0, 3))
    }`,
  });

  // Payments: one record per event, replays and retries included.
  const payments = await sql<{ event: string; n: number }[]>`
    select provider_event_id as event, count(*)::int as n from payment_records
    group by provider_event_id`;
  const recorded = new Map(payments.map((p) => [p.event, p.n]));
  const missingPayments = [...input.billingSent].filter((id) => recorded.get(id) !== 1);
  out.push({
    name: "every payment recorded once",
    ok: missingPayments.length === 0 && payments.length === input.billingSent.size,
    detail: `${input.billingSent.size} events sent, ${payments.length} recorded; wrong: ${
      missingPayments.slice(0, 3).join(", ")
    }`,
  });

  // Feedback export: following next_since from the start returns every post exactly once.
  const seen = new Map<string, number>();
  let since: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await signedPost(input.exportUrl, WORKFORCE_SECRET, {
      ...(since ? { since } : {}),
      limit: 50,
    });
    const body = await res.json() as ExportPage;
    for (const p of body.feedback_posts) seen.set(p.public_id, (seen.get(p.public_id) ?? 0) + 1);
    if (!body.feedback_posts.length) break;
    since = body.next_since;
  }
  const stored = await sql<{ id: string }[]>`
    select public_id as id from feedback_posts where deleted_at is null`;
  const notExported = stored.filter((p) => !seen.has(p.id));
  const twice = [...seen.values()].filter((n) => n > 1).length;
  const createdMissing = [...input.feedbackCreated].filter((id) => !seen.has(id));
  out.push({
    name: "feedback export returns every post exactly once",
    ok: notExported.length === 0 && twice === 0 && createdMissing.length === 0 &&
      seen.size === stored.length,
    detail:
      `${stored.length} posts, ${seen.size} exported, ${twice} twice; ${input.exported.size} seen by the live export`,
  });
  return out;
}
