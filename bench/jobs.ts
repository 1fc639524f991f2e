/**
 * `deno task bench:jobs`: the job queue's throughput and enqueue-to-start latency on a real
 * PostgreSQL, against the same run's raw INSERT+DELETE rate on a table of the same shape (the
 * ceiling: a queue cannot beat writing and removing its rows).
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/jobs.json.
 */
import postgres from "postgres";
import { connect, type Database } from "../src/platform/db.ts";
import { migrate } from "../src/platform/migrate.ts";
import { createLogger } from "../src/platform/log.ts";
import { createErrorTracker } from "../src/platform/errors.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createJobSystem } from "../src/platform/jobs/index.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const N = Number(Deno.env.get("BENCH_JOBS") ?? 20_000);
const LATENCY_SAMPLES = Number(Deno.env.get("BENCH_LATENCY_SAMPLES") ?? 1_000);
const CONCURRENCY = Number(Deno.env.get("BENCH_CONCURRENCY") ?? 8);
const POOL = CONCURRENCY + 2;

const log = createLogger({ level: "error" });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const sql = connect(url.href, POOL, log);
  try {
    await migrate(sql, log);
    return await fn({
      sql,
      mode: "postgres",
      url: url.href,
      poolSize: POOL,
      supportsListen: true,
      close: () => sql.end(),
    });
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Runs `count` tasks with `parallel` of them in flight at a time. */
async function inParallel(count: number, parallel: number, task: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await task(next++);
  }));
}

function jobSystem(db: Database) {
  return createJobSystem({
    db,
    log,
    tracker: createErrorTracker({ log }),
    clock: systemClock,
    concurrency: CONCURRENCY,
  });
}

async function throughput(db: Database) {
  const jobs = jobSystem(db);
  let done = 0;
  let finished!: () => void;
  const allDone = new Promise<void>((r) => finished = r);
  jobs.handle("noop", () => {
    if (++done === N) finished();
  });
  const enqueueStart = performance.now();
  await inParallel(N, CONCURRENCY, (i) => jobs.enqueue(db.sql, "noop", { i }));
  const enqueueSeconds = (performance.now() - enqueueStart) / 1000;
  const drainStart = performance.now();
  await jobs.start();
  await allDone;
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await jobs.stop();
  return {
    enqueue_per_second: Math.round(N / enqueueSeconds),
    drain_jobs_per_second: Math.round(N / drainSeconds),
  };
}

async function latency(db: Database) {
  const jobs = jobSystem(db);
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
  samples.sort((a, b) => a - b);
  return {
    samples: samples.length,
    p50_ms: Number(percentile(samples, 0.5).toFixed(2)),
    p99_ms: Number(percentile(samples, 0.99).toFixed(2)),
  };
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
  return { insert_delete_per_second: Math.round(N / seconds) };
}

const result = await withDatabase(async (db) => {
  const raw = await rawCeiling(db);
  const queue = await throughput(db);
  const lat = await latency(db);
  return {
    measured_at: new Date().toISOString(),
    machine: `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
    jobs: N,
    concurrency: CONCURRENCY,
    wakeup: "listen/notify",
    ...queue,
    raw_ceiling: raw,
    drain_vs_raw_ratio: Number(
      (queue.drain_jobs_per_second / raw.insert_delete_per_second).toFixed(2),
    ),
    latency: lat,
  };
});

console.log(JSON.stringify(result, null, 2));
await Deno.writeTextFile(
  new URL("./results/jobs.json", import.meta.url),
  JSON.stringify(result, null, 2) + "\n",
);
