/**
 * `deno task bench:progress`: `goalProgressData` over a habit with 10,000 check-ins and a target
 * with 10,000 events (each groupBy, its widest range), and `goals` for a user with 10 and with
 * 100 goals, through the whole app on a real PostgreSQL. Reports server time per request (median
 * and p95 of the request log's `duration`) and SQL statements per request.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/progress.json.
 */
import postgres from "postgres";
import { buildApp, type Deps } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { connect } from "../src/platform/db.ts";
import { migrate } from "../src/platform/migrate.ts";
import { memoryLogger } from "../src/platform/log.ts";
import { createErrorTracker } from "../src/platform/errors.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createMemoryKv } from "../src/platform/kv.ts";
import { mintFallbackToken } from "../src/graphql/auth.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 30);
const SECRET = "bench-fallback-secret-0123456789abcdef";
const SUBJECT = "bench-user";

const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const url = new URL(SERVER);
url.pathname = `/${name}`;
const log = memoryLogger("info");
const sql = connect(url.href, 5, log);
const results: Record<string, unknown> = {};
try {
  await migrate(sql, log);
  const config = parseConfig({
    DATA_DIR: "/nonexistent",
    FALLBACK_AUTH_SECRET: SECRET,
    ADMIN_SUBJECTS: SUBJECT,
  });
  const deps: Deps = {
    config,
    db: {
      sql,
      mode: "postgres",
      url: url.href,
      poolSize: 5,
      supportsListen: true,
      close: () => sql.end(),
    },
    kv: createMemoryKv(systemClock),
    log,
    clock: systemClock,
    tracker: createErrorTracker({ log }),
    fetch,
  };
  const app = buildApp(deps);
  const token = await mintFallbackToken(SECRET, SUBJECT, 3600);
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await app.handler(
      new Request("http://bench.local/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query, variables }),
      }),
    );
    const body = await res.json();
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    const entry = log.entries.filter((e) => e.msg === "request").at(-1)!;
    return {
      data: body.data,
      ms: entry.duration as number,
      statements: entry.statements as number,
    };
  };
  const addGoal = async (vars: Record<string, unknown>) =>
    (await gql(
      `mutation($title: String!, $kind: GoalKind!, $targetValue: Float) {
        addGoal(title: $title, kind: $kind, targetValue: $targetValue) { goal { id } errors } }`,
      vars,
    )).data.addGoal.goal.id as string;

  const habitId = await addGoal({ title: "Habit", kind: "habit" });
  const targetId = await addGoal({ title: "Target", kind: "target", targetValue: 1e8 });
  // 10,000 check-ins on distinct days up to today (every 7th day skipped: streak islands), and
  // 10,000 events spread over the last year.
  await sql`
    insert into habit_check_ins (public_id, goal_id, user_id, day)
    select 'ci' || n, g.id, g.user_id, current_date - (n + n / 6)
    from goals g, generate_series(0, 9999) n where g.public_id = ${habitId}`;
  await sql`
    insert into goal_events (public_id, goal_id, user_id, value, occurred_at)
    select 'ev' || n, g.id, g.user_id, (n % 10) + 1, now() - (n * interval '52 minutes')
    from goals g, generate_series(0, 9999) n where g.public_id = ${targetId}`;
  await sql`analyze`;

  const measure = async (query: string, variables: Record<string, unknown>) => {
    for (let i = 0; i < 5; i++) await gql(query, variables); // warm-up: JIT, pool, summaries
    const times: number[] = [];
    let statements = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const r = await gql(query, variables);
      times.push(r.ms);
      statements = r.statements;
    }
    times.sort((a, b) => a - b);
    return {
      median_ms: Math.round(times[Math.floor(times.length / 2)] * 100) / 100,
      p95_ms: Math.round(times[Math.floor(times.length * 0.95)] * 100) / 100,
      statements,
    };
  };
  const PROGRESS = `query($goalId: String!, $groupBy: ProgressGroupBy!, $from: String) {
    goalProgressData(goalId: $goalId, groupBy: $groupBy, from: $from) {
      buckets { periodStart sum count cumulativeValue }
      pace { requiredPerDay actualPerDay projectedCompletionDate onTrack }
      currentStreak longestStreak completionRate } }`;
  const today = new Date();
  const back = (days: number) =>
    new Date(today.getTime() - days * 864e5).toISOString().slice(0, 10);
  const ranges = { DAY: back(365), WEEK: back(7 * 390), MONTH: back(10_500) };
  const progress: Record<string, unknown> = {};
  // The floor: the smallest authenticated request (session lookup, parse, validate, execute).
  results.baseline_me = await measure(`{ me { id } }`, {});
  for (
    const [label, goalId] of [["habit_10000_check_ins", habitId], ["target_10000_events", targetId]]
  ) {
    for (const [groupBy, from] of Object.entries(ranges)) {
      progress[`${label}.${groupBy}`] = await measure(PROGRESS, { goalId, groupBy, from });
    }
  }
  results.goalProgressData = progress;

  const GOALS = `{ goals { id title currentValue percentComplete currentStreak longestStreak
    checkedInToday subGoals { id } recentEvents { id value } } }`;
  for (let i = 2; i < 10; i++) {
    await addGoal({
      title: `Goal ${i}`,
      kind: i % 2 ? "habit" : "target",
      targetValue: i % 2 ? null : 10,
    });
  }
  const ten = await measure(GOALS, {});
  for (let i = 10; i < 100; i++) {
    await addGoal({
      title: `Goal ${i}`,
      kind: i % 2 ? "habit" : "target",
      targetValue: i % 2 ? null : 10,
    });
  }
  const hundred = await measure(GOALS, {});
  results.goals = { goals_10: ten, goals_100: hundred };
  results.rounds = ROUNDS;
  results.measured_at = new Date().toISOString();
  results.load_average = Deno.loadavg();
  results.note =
    "server time = the request log's duration (in-process, no network); statements = SQL statements the request executed, including the session's user lookup";
  await app.stop();
} finally {
  await sql.end({ timeout: 5 });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("./results/progress.json", import.meta.url),
  JSON.stringify(results, null, 2) + "\n",
);
console.log(JSON.stringify(results, null, 2));
