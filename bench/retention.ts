/**
 * `deno task bench:retention`: the two retention schedules (docs/runbook.md "Retention") on real
 * PostgreSQL with a backlog: `BENCH_FEED_ITEMS` feed items (default 1,000,000) spread over two
 * years, half of them past `FEED_RETENTION_DAYS` (365), and `BENCH_RUNS` AI runs (200,000) with a
 * 20-entry trace spread over a year, three quarters past `AI_RUN_LOG_RETENTION_DAYS` (90).
 * Measures one batch statement as the schedules size them (1,000 feed items, 200 traces; median
 * of 5), what one scheduled run (2 s budget) clears, and a run with nothing due. Results in
 * `results/retention.json`.
 */
import { runAppBenchmark, summary } from "./support.ts";
import { pruneFeedItems } from "../src/features/feed/store.ts";
import { removeRunLogs } from "../src/features/workforce/store/runs.ts";
import { RUN_LOG_BATCH_SIZE } from "../src/features/workforce/use-cases/schedule.ts";
import { DEFAULT_BATCH_SIZE } from "../src/platform/prune.ts";

const FEED_ITEMS = Number(Deno.env.get("BENCH_FEED_ITEMS") ?? 1_000_000);
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 200_000);
const DAY_MS = 86_400_000;

await runAppBenchmark("retention", async ({ sql, log, app }) => {
  const now = new Date();
  const seedStart = performance.now();
  await sql`insert into users (public_id, subject, username)
    select 'bench-u' || g, 'bench-s' || g, 'bench' || g from generate_series(1, 1000) g`;
  const [{ first }] = await sql<{ first: string }[]>`select min(id)::text as first from users`;
  await sql`
    insert into feed_items (public_id, user_id, kind, occurred_at, data, audience)
    select 'bench-f' || g, ${first}::bigint + g % 1000, 'goal_event',
      ${now}::timestamptz - make_interval(secs => g * (730.0 * 86400 / ${FEED_ITEMS})),
      jsonb_build_object('goalId', (g % 5000)::text, 'goalTitle', 'Run', 'value', 1, 'unit', 'km'),
      'goal_event:' || (${first}::bigint + g % 1000)
    from generate_series(1, ${FEED_ITEMS}) g`;
  await sql`insert into ai_employees (public_id, name, role, task_prompt)
    values ('bench-e', 'Bench', 'bench', 'Report.')`;
  const trace = Array.from({ length: 20 }, (_, i) => ({
    at: now.toISOString(),
    type: "tool_call",
    i,
    result: "x".repeat(200),
  }));
  await sql`
    insert into ai_runs (public_id, employee_id, status, trigger, started_at, finished_at,
                         cost_usd, run_log, result_received_at, created_at)
    select 'bench-r' || g, (select id from ai_employees where role = 'bench'), 'succeeded',
      'schedule', t, t, 0.01, ${sql.json(trace)}::jsonb, t, t
    from generate_series(1, ${RUNS}) g,
      lateral (select ${now}::timestamptz - make_interval(secs => g * (365.0 * 86400 / ${RUNS})) t) x`;
  await sql`analyze feed_items`;
  await sql`analyze ai_runs`;
  const seedSeconds = Math.round((performance.now() - seedStart) / 100) / 10;

  const feedBefore = new Date(now.getTime() - 365 * DAY_MS);
  const runsBefore = new Date(now.getTime() - 90 * DAY_MS);
  const batches = {
    feed: () => pruneFeedItems(sql, feedBefore, DEFAULT_BATCH_SIZE),
    runs: () => removeRunLogs(sql, runsBefore, now, RUN_LOG_BATCH_SIZE),
  };
  const batch: Record<string, unknown> = {};
  for (const [name, statement] of Object.entries(batches)) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await statement();
      times.push(performance.now() - start);
    }
    batch[name] = summary(times).median_ms;
  }

  /** One run of a schedule, as the scheduler runs it: its rows from its log line, its time. */
  const scheduled = async (feature: "feed" | "workforce", name: string, msg: string) => {
    const schedule = app.features[feature].schedules!.find((s) => s.name === name)!;
    const start = performance.now();
    await schedule.run(new Date());
    const ms = Math.round(performance.now() - start);
    const line = log.entries.filter((e) => e.msg === msg).at(-1);
    log.entries.length = 0;
    return { rows: (line?.pruned ?? line?.removed ?? 0) as number, more: line?.more ?? false, ms };
  };
  const feedRun = await scheduled("feed", "feed.prune_old_items", "feed items pruned");
  const runsRun = await scheduled(
    "workforce",
    "ai_workforce.remove_old_run_logs",
    "run logs removed",
  );
  // Clear the rest, then time a run with nothing due.
  while ((await scheduled("feed", "feed.prune_old_items", "feed items pruned")).rows);
  while (
    (await scheduled("workforce", "ai_workforce.remove_old_run_logs", "run logs removed")).rows
  );
  const idle = {
    feed: (await scheduled("feed", "feed.prune_old_items", "feed items pruned")).ms,
    runs: (await scheduled("workforce", "ai_workforce.remove_old_run_logs", "run logs removed"))
      .ms,
  };
  const [{ items, traces }] = await sql<{ items: number; traces: number }[]>`
    select (select count(*)::int from feed_items) as items,
      (select count(*)::int from ai_runs where run_log is not null) as traces`;

  return {
    data: { feed_items: FEED_ITEMS, runs: RUNS, seed_seconds: seedSeconds },
    batch_median_ms: { ...batch, sizes: { feed: DEFAULT_BATCH_SIZE, runs: RUN_LOG_BATCH_SIZE } },
    one_scheduled_run: { feed: feedRun, runs: runsRun },
    nothing_due_ms: idle,
    left: { feed_items: items, traces },
  };
});
