/**
 * `deno task bench:scale`: issue 45's measure of flat cost as data grows. The service
 * (`main.ts serve`, a process of its own on loopback) on a fresh database: the bench creates a
 * viewer's community, challenge and goal through the API, then grows the data in place with
 * set-based SQL shaped as the stores write it (bench/scale/grow.ts) to 1x, 10x and 100x, where
 * 100x is 100,000 users, 500,000 posts in a 50,000-member community, 50,000 challenge
 * participants, 100,000 events on one goal, 100,000 notifications of one user and 1,000,000 dead
 * jobs (bench/scale/sizes.ts). After each growth: the challenge announcement's fan-out
 * (bench/scale/announce.ts), `VACUUM ANALYZE` (what autovacuum would have done by then), and a
 * copy of the database as it is at that size (the last size stays in the grown database). Then
 * one service per size answers every case of bench/scale/cases.ts, the sizes side by side:
 * `BENCH_ROUNDS` (20) rounds after 2 untimed ones, each sending every case's request once to
 * every size, one request at a time, with real RS256 tokens from a local JWKS (viewer and admin)
 * or the workforce signature. Each row's median client time at each size and the issue's bound
 * (100x within max(2 × 1x, 10 ms)) go to `bench/results/scale.json` and a markdown table on
 * stdout.
 *
 * Flags: `--embedded` runs on PGlite (the service's embedded mode; a temporary DATA_DIR) at 1x
 * and 10x and writes under `embedded` in the results; `--sizes=1,10,100` picks the sizes;
 * `--cases=feed,health` runs only the cases whose names contain one of the words (any case;
 * printed, not recorded).
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server; a
 * database of its own is created and dropped.
 */
import postgres from "postgres";
import { buildSchema, parse, validate } from "graphql";
import { startIdentityProvider } from "../tests/support/identity.ts";
import { systemClock } from "../src/platform/clock.ts";
import { connect, type Database, openDatabase, type Sql } from "../src/platform/db.ts";
import { memoryLogger } from "../src/platform/log.ts";
import { type Server, spawnServer } from "./http-support.ts";
import { grow } from "./scale/grow.ts";
import { baseOf, contextOf, createThroughApi } from "./scale/setup.ts";
import { countsAt } from "./scale/sizes.ts";
import { CASES, type SizeContext } from "./scale/cases.ts";
import { type CaseFigures, measureCases, serverLog, type Target } from "./scale/measure.ts";
import { type AnnouncementFigures, measureAnnouncements } from "./scale/announce.ts";
import { announcementRow, markdownTable, paceOf, requestRow, type Row } from "./scale/report.ts";

const flags = Object.fromEntries(
  Deno.args.map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v ?? "true"];
  }),
);
const EMBEDDED = flags.embedded === "true";
const SIZES = (flags.sizes ?? (EMBEDDED ? "1,10" : "1,10,100")).split(",").map(Number);
const ROUNDS = Number(flags.rounds ?? Deno.env.get("BENCH_ROUNDS") ?? 20);
const ONLY = flags.cases?.toLowerCase().split(",");
const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const RESULTS = new URL("./results/scale.json", import.meta.url);
const WORKFORCE_SECRET = "bench-scale-workforce-secret";
const SEED_TIMEOUTS = { connectMs: 30_000, statementMs: 1_800_000 };

const cases = CASES.filter((c) => !ONLY || ONLY.some((w) => c.name.toLowerCase().includes(w)));
{
  // Every query is valid before anything is seeded.
  const schema = buildSchema(
    await Deno.readTextFile(new URL("../schema.graphql", import.meta.url)),
  );
  const probe: SizeContext = {
    size: 1,
    communityId: "x",
    challengeId: "x",
    goalId: "x",
    cursors: { feed: "x", notifications: "x", leaderboard: "x" },
    expected: {} as SizeContext["expected"],
  };
  for (const c of cases) {
    const request = c.request(probe);
    if (request.kind !== "graphql") continue;
    const errors = validate(schema, parse(request.query));
    if (errors.length) throw new Error(`${c.name}: ${errors.map((e) => e.message).join("; ")}`);
  }
}

const log = memoryLogger("warn");
const loadStart = Deno.loadavg();
const runStarted = performance.now();
const identity = await startIdentityProvider(systemClock);
const tokens = {
  viewer: await identity.token({ sub: "bench-viewer", expiresIn: 6 * 3600 }),
  admin: await identity.token({ sub: "bench-admin", expiresIn: 6 * 3600 }),
};
const tmp = await Deno.makeTempDir({ prefix: "bench-scale-" });
const database = `bench_scale_${crypto.randomUUID().replaceAll("-", "")}`;
const urlOf = (db: string) => {
  const url = new URL(SERVER);
  url.pathname = `/${db}`;
  return url.href;
};
const databaseUrl = urlOf(database);
const commonEnv: Record<string, string> = {
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  RATE_LIMIT_USER_PER_MINUTE: "0",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  ADMIN_SUBJECTS: "bench-admin",
  WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET,
  ...identity.env,
};
/** The grown database's own DATA_DIR (embedded) and database (PostgreSQL). */
const DATA_DIR = `${tmp}/data`;
/**
 * A service on the database `db` (PostgreSQL) or the data dir `dataDir` (embedded). A measured
 * one runs no job worker: the data stays as grown while it is measured, and no background work
 * (a prune, a schedule's job) competes with the requests.
 */
const serverEnv = (dataDir: string, db: string, measured = true) => ({
  ...commonEnv,
  DATA_DIR: dataDir,
  ...(measured ? { JOB_CONCURRENCY: "0" } : {}),
  ...(EMBEDDED ? {} : { DATABASE_URL: urlOf(db) }),
});

/** The bench's connections to the database while no service runs on it. */
interface Connections {
  sql: Sql;
  appDb: Database;
  sampler: Sql | null;
  close(): Promise<void>;
}

async function open(): Promise<Connections> {
  if (EMBEDDED) {
    const db = await openDatabase({
      dataDir: DATA_DIR,
      command: "bench-scale",
      log,
      timeouts: SEED_TIMEOUTS,
    });
    return { sql: db.sql, appDb: db, sampler: null, close: () => db.close() };
  }
  const sql = connect(databaseUrl, 2, log, SEED_TIMEOUTS);
  const appDb = await openDatabase({ databaseUrl, dataDir: "/nonexistent", log, poolSize: 10 });
  const sampler = connect(databaseUrl, 1, log);
  return {
    sql,
    appDb,
    sampler,
    async close() {
      await Promise.all([sql.end({ timeout: 5 }), sampler.end({ timeout: 5 }), appDb.close()]);
    },
  };
}

/**
 * A copy of the grown database as it is now, for a service of its own: the sizes are measured
 * side by side once all are grown. Its DATA_DIR and database name.
 */
async function snapshot(label: string): Promise<{ dataDir: string; db: string }> {
  const dataDir = `${tmp}/data-${label}`;
  const db = `${database}_${label}`;
  if (EMBEDDED) {
    const copied = await new Deno.Command("cp", { args: ["-a", DATA_DIR, dataDir] }).output();
    if (!copied.success) throw new Error(new TextDecoder().decode(copied.stderr));
    return { dataDir, db };
  }
  await Deno.mkdir(dataDir);
  // Autovacuum may still be on the source database for a moment.
  for (let attempt = 0;; attempt++) {
    try {
      await admin!.unsafe(`create database ${db} template ${database}`);
      snapshots.push(db);
      return { dataDir, db };
    } catch (err) {
      if (attempt >= 50 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const figures: Record<string, Record<string, CaseFigures | { error: string }>> = {};
const announcements: Record<"start" | "end", Record<string, AnnouncementFigures>> = {
  start: {},
  end: {},
};
const sizeRecords: Record<string, Record<string, unknown>> = {};
const snapshots: string[] = [];
let postgresVersion = "";
const admin = EMBEDDED ? null : postgres(SERVER, { max: 1, onnotice: () => {} });
try {
  await admin?.unsafe(`create database ${database}`);
  const first = await spawnServer(["main.ts", "serve"], serverEnv(DATA_DIR, database, false));
  let ids;
  try {
    ids = await createThroughApi(first.url, tokens);
  } finally {
    await first.stop();
  }
  let connections = await open();
  const base = await baseOf(connections.sql, ids);
  [{ postgresVersion }] = await connections.sql<{ postgresVersion: string }[]>`
    select version() as "postgresVersion"`;
  await connections.close();
  let previous = countsAt(0);
  const grown: { label: string; ctx: SizeContext; dataDir: string; db: string }[] = [];
  for (const size of SIZES) {
    const label = `x${size}`;
    connections = await open();
    const counts = countsAt(size);
    let t = performance.now();
    const growTimings = await grow(connections.sql, base, previous, counts);
    previous = counts;
    const growMs = performance.now() - t;
    console.error(`${label}: grown in ${Math.round(growMs)} ms`);
    t = performance.now();
    const announced = await measureAnnouncements({
      sql: connections.sql,
      appDb: connections.appDb,
      sampler: connections.sampler,
      base,
      size,
    });
    announcements.start[label] = announced.start;
    announcements.end[label] = announced.end;
    console.error(`${label}: announced in ${Math.round(performance.now() - t)} ms`);
    t = performance.now();
    await connections.sql`vacuum analyze`;
    const vacuumMs = performance.now() - t;
    const ctx = await contextOf(connections.sql, base, ids, size);
    await connections.close();
    sizeRecords[label] = {
      counts,
      grow_ms: Math.round(growMs),
      grow_ms_by_kind: growTimings,
      vacuum_analyze_ms: Math.round(vacuumMs),
      load_average_after_growing: Deno.loadavg(),
      expected: ctx.expected,
    };
    const copy = size === SIZES.at(-1)
      ? { dataDir: DATA_DIR, db: database }
      : await snapshot(label);
    grown.push({ label, ctx, ...copy });
  }
  // One service per size, all measured in the same rounds.
  const servers: Server[] = [];
  try {
    const targets: Target[] = [];
    for (const g of grown) {
      const log = serverLog();
      const server = await spawnServer(["main.ts", "serve"], serverEnv(g.dataDir, g.db), {
        onLine: log.onLine,
      });
      servers.push(server);
      targets.push({
        label: g.label,
        ctx: g.ctx,
        client: { url: server.url, tokens, workforceSecret: WORKFORCE_SECRET, log },
      });
    }
    const measured = await measureCases(targets, cases, ROUNDS);
    for (const [label, byCase] of measured) {
      for (const [kase, f] of byCase) {
        (figures[kase.name] ??= {})[label] = f;
        console.error(`${label} ${kase.name}: ${JSON.stringify(f).slice(0, 300)}`);
      }
    }
  } finally {
    for (const server of servers) await server.stop();
  }
} finally {
  await identity.close();
  for (const db of [database, ...snapshots]) {
    await admin?.unsafe(`drop database if exists ${db} with (force)`);
  }
  await admin?.end();
  await Deno.remove(tmp, { recursive: true });
}

const rows: Row[] = [
  ...cases.filter((c) => c.issueRow !== "control").map((c) =>
    requestRow(c.name, c.issueRow, SIZES, figures[c.name], ROUNDS)
  ),
  announcementRow("challenge start announcement", SIZES, announcements.start),
  announcementRow("challenge end announcement", SIZES, announcements.end),
  ...cases.filter((c) => c.issueRow === "control").map((c) =>
    requestRow(c.name, c.issueRow, SIZES, figures[c.name], ROUNDS)
  ),
];
const commit = new TextDecoder().decode(
  (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], stdout: "piped" })
    .output()).stdout,
).trim();
const run = {
  rows,
  mode: EMBEDDED ? "pglite" : "postgres",
  database: postgresVersion,
  pace: paceOf(rows, SIZES),
  sizes: sizeRecords,
  rounds: ROUNDS,
  measured_at: new Date().toISOString(),
  commit,
  run_s: Math.round((performance.now() - runStarted) / 1000),
  cpus: navigator.hardwareConcurrency,
  load_average_start: loadStart,
  load_average_end: Deno.loadavg(),
  note: "x1/x10/x100: median client time of 20 sequential requests over loopback HTTP " +
    "(fetch to the end of the body), ms; server_ms: the request log's duration; " +
    "announcements: the longest transaction, ms",
};
let previousResults: Record<string, unknown> = {};
try {
  previousResults = JSON.parse(await Deno.readTextFile(RESULTS));
} catch {
  // first run
}
const results = EMBEDDED ? { ...previousResults, embedded: run } : {
  ...run,
  ...(previousResults.embedded ? { embedded: previousResults.embedded } : {}),
};
// A run of some cases only is printed, not recorded.
if (!ONLY) await Deno.writeTextFile(RESULTS, JSON.stringify(results, null, 2) + "\n");
console.log(markdownTable(rows, SIZES));
