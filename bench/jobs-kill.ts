/**
 * `deno task bench:jobs-kill`: how many jobs run twice when the worker's process is killed with
 * SIGKILL again and again, and how many of those had finished their handler before the kill (the
 * completion was not yet written).
 *
 * On a PostgreSQL of its own (`tests/support/servers.ts`), BENCH_KILL_JOBS `fault.work` jobs
 * (`tests/support/fault-service.ts`: each run appends `start` and `done` lines to a file and works
 * BENCH_KILL_JOB_MS in between) are drained by one service process at JOB_CONCURRENCY
 * BENCH_KILL_CONCURRENCY and JOB_LOCK_TIMEOUT_MS BENCH_KILL_LOCK_TIMEOUT_MS. Each process is killed
 * with SIGKILL a random BENCH_KILL_AFTER_MS (`min-max`) after its first job started, and a new one
 * is started, until fewer than BENCH_KILL_STOP_BELOW jobs are left; the last process drains the
 * rest. Then, from the run log: jobs run more than once, and of those the ones whose earlier run
 * had finished (`done`) before the later one started. BENCH_KILL_COMPLETE=1: each handler
 * completes its own job right after its `done` line (`job.complete()`), instead of leaving it to
 * the worker's batch.
 *
 * BENCH_SERVICE_ROOT (default this tree) names the tree whose `tests/support/fault-service.ts` is
 * started: an export of another commit gives its figures. BENCH_LABEL (default `after`) is the key
 * the figures are stored under in `results/jobs-kill.json`.
 */
import postgres from "postgres";
import { fileURLToPath } from "node:url";
import { startOwnPostgres } from "../tests/support/servers.ts";
import { type JobRun, readRuns } from "../tests/support/fault-jobs.ts";
import { startProcess } from "../tests/support/process.ts";
import { waitFor } from "../tests/support/wait.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const JOBS = env("BENCH_KILL_JOBS", 2_000);
const JOB_MS = env("BENCH_KILL_JOB_MS", 20);
const CONCURRENCY = env("BENCH_KILL_CONCURRENCY", 8);
const LOCK_TIMEOUT_MS = env("BENCH_KILL_LOCK_TIMEOUT_MS", 2_000);
const STOP_BELOW = env("BENCH_KILL_STOP_BELOW", 50);
const COMPLETE_IN_HANDLER = env("BENCH_KILL_COMPLETE", 0) === 1;
const [AFTER_MIN, AFTER_MAX] = (Deno.env.get("BENCH_KILL_AFTER_MS") ?? "200-1200").split("-")
  .map(Number);
const ROOT = Deno.env.get("BENCH_SERVICE_ROOT") ?? fileURLToPath(new URL("../", import.meta.url));
const LABEL = Deno.env.get("BENCH_LABEL") ?? "after";
const RESULTS = new URL("./results/jobs-kill.json", import.meta.url);

const entry = `${ROOT.replace(/\/$/, "")}/tests/support/fault-service.ts`;

export interface KillFigures {
  kills: number;
  jobs: number;
  /** Jobs that finished at least once. */
  finished: number;
  /** Jobs whose handler started more than once. */
  ran_twice: number;
  /** Of those, jobs started again after an earlier run had finished its handler. */
  ran_again_after_finishing: number;
}

/** Reads the figures from a run log. */
export function killFigures(runs: JobRun[], jobs: number, kills: number): KillFigures {
  const byJob = new Map<number, JobRun[]>();
  for (const run of runs) byJob.set(run.n, [...(byJob.get(run.n) ?? []), run]);
  let ranTwice = 0;
  let afterFinishing = 0;
  let finished = 0;
  for (const list of byJob.values()) {
    const starts = list.filter((r) => r.event === "start").sort((a, b) => a.at - b.at);
    const dones = list.filter((r) => r.event === "done");
    if (dones.length) finished++;
    if (starts.length < 2) continue;
    ranTwice++;
    const firstDone = Math.min(...dones.map((d) => d.at));
    if (starts.some((s, i) => i > 0 && firstDone <= s.at)) afterFinishing++;
  }
  return {
    kills,
    jobs,
    finished,
    ran_twice: ranTwice,
    ran_again_after_finishing: afterFinishing,
  };
}

async function main() {
  const pg = await startOwnPostgres();
  const runLog = await Deno.makeTempFile({ prefix: "jobs-kill-" });
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  const dataDir = await Deno.makeTempDir({ prefix: "jobs-kill-data-" });
  const serviceEnv = {
    DATABASE_URL: pg.url,
    DATA_DIR: dataDir,
    JOB_CONCURRENCY: String(CONCURRENCY),
    JOB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
    FAULT_JOB_LOG: runLog,
    FAULT_JOB_MS: String(JOB_MS),
    FAULT_JOB_COMPLETE: COMPLETE_IN_HANDLER ? "1" : "0",
  };
  const left = async () => {
    const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from jobs`;
    return count;
  };
  let kills = 0;
  const started = performance.now();
  try {
    const start = async () => {
      const service = await startProcess(entry, serviceEnv);
      await service.waitForLog("job worker started");
      return service;
    };
    let service = await start();
    await sql`
      insert into jobs (name, payload, run_at, created_at)
      select 'fault.work', jsonb_build_object('n', n), now(), now()
      from generate_series(1, ${JOBS}) n`;
    while (await left() >= STOP_BELOW) {
      const pid = service.child.pid;
      await waitFor(async () => (await readRuns(runLog)).some((r) => r.pid === pid), {
        timeoutMs: 60_000,
        intervalMs: 5,
        what: `process ${pid} to start a job`,
      });
      const after = AFTER_MIN + Math.random() * (AFTER_MAX - AFTER_MIN);
      await new Promise((resolve) => setTimeout(resolve, after));
      service.child.kill("SIGKILL");
      await service.child.status;
      kills++;
      console.error(`kill ${kills}: ${await left()} jobs left`);
      service = await start();
    }
    await waitFor(async () => await left() === 0, {
      timeoutMs: 120_000,
      intervalMs: 100,
      what: "the queue to be empty",
    });
    await service.stop();
    const figures = killFigures(await readRuns(runLog), JOBS, kills);
    const result = {
      measured_at: new Date().toISOString(),
      service_root: ROOT,
      job_ms: JOB_MS,
      concurrency: CONCURRENCY,
      lock_timeout_ms: LOCK_TIMEOUT_MS,
      complete_in_handler: COMPLETE_IN_HANDLER,
      kill_after_ms: [AFTER_MIN, AFTER_MAX],
      seconds: Math.round((performance.now() - started) / 1000),
      ...figures,
    };
    console.log(JSON.stringify(result, null, 2));
    const previous = await Deno.readTextFile(RESULTS).then(JSON.parse, () => ({}));
    await Deno.writeTextFile(
      RESULTS,
      JSON.stringify({ ...previous, [LABEL]: result }, null, 2) + "\n",
    );
  } finally {
    await sql.end();
    await pg.close();
    await Deno.remove(runLog).catch(() => {});
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
