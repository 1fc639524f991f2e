/**
 * `deno task bench:progress`: `goalProgressData` over a habit with 10,000 check-ins and a target
 * with 10,000 events (each groupBy, its widest range), and `goals` for a user with 10 and with
 * 100 goals, through the whole app on a real PostgreSQL. Reports server time per request (median
 * and p95 of the request log's `duration`) and SQL statements per request.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/progress.json.
 */
import { type AppBench, round2, ROUNDS, runAppBenchmark, summary } from "./support.ts";

// Warm-up requests before timing: JIT, the pool's connections, the stored streak summaries.
const WARMUPS = 5;

await runAppBenchmark("progress", async ({ sql, gql, measure: measureRounds }) => {
  const results: Record<string, unknown> = {};
  const measure = (query: string, variables: Record<string, unknown>) =>
    measureRounds(query, variables, WARMUPS);
  const addGoal = async (vars: Record<string, unknown>) =>
    (await gql(
      `mutation($title: String!, $kind: GoalKind!, $targetValue: Float) {
        addGoal(title: $title, kind: $kind, targetValue: $targetValue) {
          goal { id } errors { code message field } } }`,
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

  const PROGRESS = `query($goalId: String!, $groupBy: ProgressGroupBy!, $from: Date) {
    goalProgressData(goalId: $goalId, groupBy: $groupBy, from: $from) {
      buckets { periodStart sum count cumulativeValue }
      pace { requiredPerDay actualPerDay projectedCompletionDate onTrack }
      currentStreak longestStreak completionRate } }`;
  const today = new Date();
  const back = (days: number) =>
    new Date(today.getTime() - days * 864e5).toISOString().slice(0, 10);
  // Labelled as in earlier results; the enum values are lower case.
  const ranges = { DAY: back(365), WEEK: back(7 * 390), MONTH: back(10_500) };
  const progress: Record<string, unknown> = {};
  // The floor: the smallest authenticated request (session lookup, parse, validate, execute).
  results.baseline_me = await measure(`{ me { id } }`, {});
  for (
    const [label, goalId] of [["habit_10000_check_ins", habitId], ["target_10000_events", targetId]]
  ) {
    for (const [period, from] of Object.entries(ranges)) {
      const groupBy = period.toLowerCase();
      progress[`${label}.${period}`] = await measure(PROGRESS, { goalId, groupBy, from });
    }
  }
  results.goalProgressData = progress;

  // Page sizes as variables, as clients send them (armor's cost limit multiplies literal ones).
  const GOALS = `query($goals: Int, $events: Int) { goals(first: $goals) { nodes { id title
    currentValue percentComplete currentStreak longestStreak checkedInToday subGoals { id }
    events(first: $events) { nodes { id value } } } } }`;
  const page = { goals: 100, events: 5 };
  for (let i = 2; i < 10; i++) {
    await addGoal({
      title: `Goal ${i}`,
      kind: i % 2 ? "habit" : "target",
      targetValue: i % 2 ? null : 10,
    });
  }
  const ten = await measure(GOALS, page);
  for (let i = 10; i < 100; i++) {
    await addGoal({
      title: `Goal ${i}`,
      kind: i % 2 ? "habit" : "target",
      targetValue: i % 2 ? null : 10,
    });
  }
  const hundred = await measure(GOALS, page);
  results.goals = { goals_10: ten, goals_100: hundred };
  results.goals_100_full_vs_columns = await fullVersusColumns(gql, GOALS, page);
  return {
    ...results,
    rounds: ROUNDS,
    measured_at: new Date().toISOString(),
    load_average: Deno.loadavg(),
    note:
      "server time = the request log's duration (in-process, no network); statements = SQL statements the request executed, including the session's user lookup",
  };
});

/**
 * The same 100 goals with plain columns only and with every figure, interleaved round by round:
 * the median of the per-round ratios columns/full (1.0 = the figures cost nothing).
 */
async function fullVersusColumns(
  gql: AppBench["gql"],
  full: string,
  page: Record<string, unknown>,
) {
  const COLUMNS = `query($goals: Int) { goals(first: $goals) { nodes { id title kind status
    createdAt } } }`;
  for (let i = 0; i < WARMUPS; i++) {
    await gql(COLUMNS, page);
    await gql(full, page);
  }
  const columnsMs: number[] = [];
  const fullMs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const columns = (await gql(COLUMNS, page)).ms;
    const figures = (await gql(full, page)).ms;
    columnsMs.push(columns);
    fullMs.push(figures);
    ratios.push(columns / figures);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    columns: summary(columnsMs),
    full: summary(fullMs),
    ratio_median: round2(median(ratios)),
  };
}
