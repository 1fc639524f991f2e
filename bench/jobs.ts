/**
 * `deno task bench:jobs`: the job queue beside graphile-worker on the same PostgreSQL server, in
 * interleaved rounds (each round runs every contender once, in a rotating order; ratios are the
 * medians of per-round ratios), with the load average beside each round.
 *
 * Per round and contender: BENCH_SINGLE_JOBS jobs added one statement each from BENCH_CONCURRENCY
 * clients, the rest of BENCH_JOBS added in bulk (chunks of BENCH_BULK_CHUNK), then one worker of
 * concurrency BENCH_CONCURRENCY drains them all (from its first job start until the queue's
 * table is empty: every completion recorded). Contenders: this project with a local queue of
 * BENCH_LOCAL_QUEUE, at its default local queue (4 × concurrency), and without one (claims only
 * for free slots: the queue before the local queue); graphile-worker at its defaults, and with its
 * batching options (`localQueue.size` = BENCH_LOCAL_QUEUE, `completeJobBatchDelay` and
 * `failJobBatchDelay` = BENCH_GW_BATCH_DELAY_MS). Before the rounds, enqueue-to-start latency on an
 * idle worker and fresh tables, one committed job at a time, for both; after them, the raw
 * INSERT+DELETE rate of a table shaped like `jobs` (the ceiling of one-row-at-a-time writes).
 * BENCH_VACUUM=1 starts each contender's round with `vacuum analyze` of its database, so that none
 * starts from the dead rows and statistics another one left; by default the tables are as the
 * previous rounds left them, as a queue's table is between autovacuum's visits.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server; the
 * benchmark creates and drops a database for each queue there. Figures go to
 * bench/results/jobs.json.
 */
import postgres from "postgres";
import { Logger, makeWorkerUtils, run, type WorkerUtils } from "graphile-worker";
import { connect, type Database } from "../src/platform/db.ts";
import { migrate } from "../src/platform/migrate.ts";
import { createLogger } from "../src/platform/log.ts";
import { createErrorTracker } from "../src/platform/errors.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createJobSystem } from "../src/platform/jobs/index.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const N = env("BENCH_JOBS", 20_000);
const SINGLE = env("BENCH_SINGLE_JOBS", 2_000);
const BULK_CHUNK = env("BENCH_BULK_CHUNK", 1_000);
const ROUNDS = env("BENCH_ROUNDS", 3);
const LATENCY_SAMPLES = env("BENCH_LATENCY_SAMPLES", 1_000);
const CONCURRENCY = env("BENCH_CONCURRENCY", 8);
const POOL = CONCURRENCY + 2;
/** Both queues' local queue size: jobs claimed ahead of free slots in one statement. */
const LOCAL_QUEUE = env("BENCH_LOCAL_QUEUE", 100);
/** 1: `vacuum analyze` before each contender's round. */
const VACUUM = env("BENCH_VACUUM", 0) === 1;
/** graphile-worker's documented batching options (its docs' performance page, "batching"). */
const GW_BATCHING = {
  localQueue: { size: LOCAL_QUEUE },
  completeJobBatchDelay: env("BENCH_GW_BATCH_DELAY_MS", 0),
  failJobBatchDelay: env("BENCH_GW_BATCH_DELAY_MS", 0),
};

const log = createLogger({ level: "error" });
const silent = new Logger(() => () => {});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round2 = (n: number) => Number(n.toFixed(2));
const loadavg = () => Deno.loadavg().map(round2);

/** Runs `count` tasks with `parallel` of them in flight at a time. */
async function inParallel(count: number, parallel: number, task: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await task(next++);
  }));
}

/** Resolves once `count()` is 0: every completion of the drain is recorded. */
async function untilEmpty(count: () => Promise<number>): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (await count() > 0) {
    if (performance.now() > deadline) throw new Error("the queue did not empty within 60 s");
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function inChunks(count: number, chunk: number, add: (from: number, to: number) => unknown) {
  for (let from = 0; from < count; from += chunk) await add(from, Math.min(count, from + chunk));
}

const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
const created: string[] = [];
async function createDatabase(): Promise<string> {
  const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
  await admin.unsafe(`create database ${name}`);
  created.push(name);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return url.href;
}

async function projectDatabase(): Promise<Database> {
  const url = await createDatabase();
  const sql = connect(url, POOL, log);
  await migrate(sql, log);
  return {
    sql,
    mode: "postgres",
    url,
    poolSize: POOL,
    supportsListen: true,
    close: () => sql.end(),
  };
}

/** `localQueueSize` null: the job system's default. */
function jobSystem(db: Database, localQueueSize: number | null) {
  return createJobSystem({
    db,
    log,
    tracker: createErrorTracker({ log }),
    clock: systemClock,
    concurrency: CONCURRENCY,
    localQueueSize: localQueueSize ?? undefined,
  });
}

interface RoundFigures {
  single_enqueue_per_second: number;
  bulk_enqueue_per_second: number;
  drain_jobs_per_second: number;
}

/** Counts handler runs; `drained` resolves at the N-th, timed from the first start. */
function drainTimer() {
  let done = 0;
  let firstStart = 0;
  let finished!: () => void;
  const drained = new Promise<void>((r) => finished = r);
  return {
    drained,
    handler: () => {
      if (!firstStart) firstStart = performance.now();
      if (++done === N) finished();
    },
    since: () => firstStart,
  };
}

async function projectRound(
  db: Database,
  localQueueSize: number | null,
): Promise<RoundFigures> {
  const jobs = jobSystem(db, localQueueSize);
  const timer = drainTimer();
  jobs.handle("noop", timer.handler);
  const singleStart = performance.now();
  await inParallel(SINGLE, CONCURRENCY, (i) => jobs.enqueue(db.sql, "noop", { i }));
  const singleSeconds = (performance.now() - singleStart) / 1000;
  const bulkStart = performance.now();
  await inChunks(N - SINGLE, BULK_CHUNK, (from, to) =>
    jobs.enqueueMany(
      db.sql,
      Array.from({ length: to - from }, (_, k) => ({ kind: "noop", payload: { i: from + k } })),
    ));
  const bulkSeconds = (performance.now() - bulkStart) / 1000;
  await jobs.start();
  await timer.drained;
  await untilEmpty(async () => (await db.sql`select count(*)::int as left from jobs`)[0].left);
  const drainSeconds = (performance.now() - timer.since()) / 1000;
  await jobs.stop();
  return {
    single_enqueue_per_second: Math.round(SINGLE / singleSeconds),
    bulk_enqueue_per_second: Math.round((N - SINGLE) / bulkSeconds),
    drain_jobs_per_second: Math.round(N / drainSeconds),
  };
}

async function graphileRound(
  url: string,
  utils: WorkerUtils,
  batching: typeof GW_BATCHING | null,
): Promise<RoundFigures> {
  const timer = drainTimer();
  const singleStart = performance.now();
  await inParallel(SINGLE, CONCURRENCY, (i) => utils.addJob("noop", { i }));
  const singleSeconds = (performance.now() - singleStart) / 1000;
  const bulkStart = performance.now();
  await inChunks(N - SINGLE, BULK_CHUNK, (from, to) =>
    utils.addJobs(
      Array.from(
        { length: to - from },
        (_, k) => ({ identifier: "noop", payload: { i: from + k } }),
      ),
    ));
  const bulkSeconds = (performance.now() - bulkStart) / 1000;
  const runner = await run({
    connectionString: url,
    concurrency: CONCURRENCY,
    maxPoolSize: POOL,
    noHandleSignals: true,
    logger: silent,
    taskList: { noop: () => timer.handler() },
    ...(batching ? { preset: { worker: batching } } : {}),
  });
  await timer.drained;
  await untilEmpty(async () =>
    (await utils.withPgClient((client) =>
      client.query("select count(*)::int as left from graphile_worker._private_jobs")
    )).rows[0].left
  );
  const drainSeconds = (performance.now() - timer.since()) / 1000;
  await runner.stop();
  return {
    single_enqueue_per_second: Math.round(SINGLE / singleSeconds),
    bulk_enqueue_per_second: Math.round((N - SINGLE) / bulkSeconds),
    drain_jobs_per_second: Math.round(N / drainSeconds),
  };
}

function latencyFigures(samples: number[]) {
  samples.sort((a, b) => a - b);
  return {
    samples: samples.length,
    p50_ms: round2(percentile(samples, 0.5)),
    p99_ms: round2(percentile(samples, 0.99)),
  };
}

/** Enqueue-commit to handler start on an idle worker, one job at a time. */
async function projectLatency(db: Database) {
  const jobs = jobSystem(db, null);
  const samples: number[] = [];
  let resolveOne: (() => void) | undefined;
  jobs.handle("timed", (payload) => {
    samples.push(performance.now() - (payload as { at: number }).at);
    resolveOne?.();
  });
  await jobs.start();
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const ran = new Promise<void>((r) => resolveOne = r);
    // Each job is committed on its own, as a request's transaction would.
    await db.sql.begin((tx) => jobs.enqueue(tx, "timed", { at: performance.now() }));
    await ran;
  }
  await jobs.stop();
  return latencyFigures(samples);
}

async function graphileLatency(url: string, utils: WorkerUtils) {
  const samples: number[] = [];
  let resolveOne: (() => void) | undefined;
  const runner = await run({
    connectionString: url,
    concurrency: CONCURRENCY,
    maxPoolSize: POOL,
    noHandleSignals: true,
    logger: silent,
    taskList: {
      timed: (payload) => {
        samples.push(performance.now() - (payload as { at: number }).at);
        resolveOne?.();
      },
    },
  });
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const ran = new Promise<void>((r) => resolveOne = r);
    await utils.addJob("timed", { at: performance.now() });
    await ran;
  }
  await runner.stop();
  return latencyFigures(samples);
}

/** The ceiling: one INSERT and one DELETE per row on a table shaped like `jobs`. */
async function rawCeiling(db: Database) {
  await db.sql`create table bench_raw (like jobs including defaults including indexes)`;
  const now = new Date();
  const ids: string[] = [];
  const start = performance.now();
  await inParallel(N, CONCURRENCY, async (i) => {
    const [row] = await db.sql`
      insert into bench_raw (name, payload, run_at, created_at)
      values ('noop', ${db.sql.json({ i })}, ${now}, ${now}) returning id`;
    ids.push(row.id);
  });
  await inParallel(N, CONCURRENCY, (i) => db.sql`delete from bench_raw where id = ${ids[i]}`);
  const seconds = (performance.now() - start) / 1000;
  await db.sql`drop table bench_raw`;
  return { insert_delete_per_second: Math.round(N / seconds) };
}

const PROJECT_LOCAL_QUEUES = {
  project: LOCAL_QUEUE,
  project_default: null,
  project_no_local_queue: 0,
};
type Contender = keyof typeof PROJECT_LOCAL_QUEUES | "graphile_default" | "graphile_batched";
const CONTENDERS: Contender[] = [
  "project",
  "graphile_default",
  "project_default",
  "graphile_batched",
  "project_no_local_queue",
];

let db: Database | undefined;
let utils: WorkerUtils | undefined;
let gwSql: postgres.Sql | undefined;
try {
  db = await projectDatabase();
  const gwUrl = await createDatabase();
  utils = await makeWorkerUtils({ connectionString: gwUrl, maxPoolSize: POOL, logger: silent });
  await utils.migrate();
  const projectDb = db;
  const gwUtils = utils;
  gwSql = postgres(gwUrl, { max: 1, onnotice: () => {} });

  // Latency first, on the fresh tables of an idle machine: after the drains the load average is
  // the benchmark's own, and each queue table holds the dead rows of the jobs it drained.
  const latencyLoadBefore = loadavg();
  const latency = {
    project: await projectLatency(projectDb),
    graphile_default: await graphileLatency(gwUrl, gwUtils),
  };

  const rounds: ({ round: number; loadavg_before: number[] } & Record<Contender, RoundFigures>)[] =
    [];
  for (let round = 0; round < ROUNDS; round++) {
    const loadavgBefore = loadavg();
    const figures = {} as Record<Contender, RoundFigures>;
    for (let k = 0; k < CONTENDERS.length; k++) {
      const who = CONTENDERS[(round + k) % CONTENDERS.length];
      // Each contender starts from a vacuumed and analyzed table, whatever ran on its database
      // before it (the project's three contenders share a database, graphile-worker's two theirs).
      if (VACUUM) {
        await (who in PROJECT_LOCAL_QUEUES ? projectDb.sql : gwSql).unsafe("vacuum analyze");
      }
      figures[who] = who in PROJECT_LOCAL_QUEUES
        ? await projectRound(
          projectDb,
          PROJECT_LOCAL_QUEUES[who as keyof typeof PROJECT_LOCAL_QUEUES],
        )
        : await graphileRound(gwUrl, gwUtils, who === "graphile_batched" ? GW_BATCHING : null);
    }
    rounds.push({ round: round + 1, loadavg_before: loadavgBefore, ...figures });
    console.error(JSON.stringify(rounds.at(-1)));
  }

  const medianOf = (who: Contender, key: keyof RoundFigures) =>
    Math.round(median(rounds.map((r) => r[who][key])));
  const ratio = (key: keyof RoundFigures, peer: Contender, who: Contender = "project") =>
    round2(median(rounds.map((r) => r[who][key] / r[peer][key])));
  const summary = (who: Contender) => ({
    drain_jobs_per_second: medianOf(who, "drain_jobs_per_second"),
    single_enqueue_per_second: medianOf(who, "single_enqueue_per_second"),
    bulk_enqueue_per_second: medianOf(who, "bulk_enqueue_per_second"),
  });

  const raw = await rawCeiling(projectDb);

  const result = {
    measured_at: new Date().toISOString(),
    machine: `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
    postgres: (await admin`show server_version`)[0].server_version,
    graphile_worker: "0.18.0",
    jobs: N,
    single_jobs: SINGLE,
    bulk_chunk: BULK_CHUNK,
    concurrency: CONCURRENCY,
    pool: POOL,
    rounds: ROUNDS,
    project_settings: {
      local_queue_size: LOCAL_QUEUE,
      default_local_queue_size: 4 * CONCURRENCY,
      wakeup: "listen/notify",
    },
    graphile_batching: GW_BATCHING,
    summary: {
      project: summary("project"),
      project_default: summary("project_default"),
      project_no_local_queue: summary("project_no_local_queue"),
      graphile_default: summary("graphile_default"),
      graphile_batched: summary("graphile_batched"),
      drain_ratio_vs_graphile_batched: ratio("drain_jobs_per_second", "graphile_batched"),
      drain_ratio_vs_graphile_default: ratio("drain_jobs_per_second", "graphile_default"),
      default_local_queue_drain_ratio_vs_graphile_batched: ratio(
        "drain_jobs_per_second",
        "graphile_batched",
        "project_default",
      ),
      no_local_queue_drain_ratio_vs_graphile_batched: ratio(
        "drain_jobs_per_second",
        "graphile_batched",
        "project_no_local_queue",
      ),
      drain_ratio_vs_no_local_queue: ratio("drain_jobs_per_second", "project_no_local_queue"),
      bulk_enqueue_ratio_vs_graphile_add_jobs: ratio("bulk_enqueue_per_second", "graphile_batched"),
      single_enqueue_ratio_vs_graphile_add_job: ratio(
        "single_enqueue_per_second",
        "graphile_batched",
      ),
    },
    latency_idle: { ...latency, loadavg_before: latencyLoadBefore },
    raw_ceiling: raw,
    vacuum_before_each_contender: VACUUM,
    loadavg_after: loadavg(),
    rounds_detail: rounds,
  };
  console.log(JSON.stringify(result, null, 2));
  await Deno.writeTextFile(
    new URL("./results/jobs.json", import.meta.url),
    JSON.stringify(result, null, 2) + "\n",
  );
} finally {
  await utils?.release();
  await gwSql?.end({ timeout: 5 });
  await db?.sql.end({ timeout: 5 });
  for (const name of created) await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
