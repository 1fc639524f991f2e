/**
 * The harness of the in-process app benchmarks (`bench:progress`, `bench:social`,
 * `bench:teams`): a database of their own on BENCH_DATABASE_URL (default the local server),
 * created before and dropped after; the whole app in-process behind a fallback token; requests
 * timed by the request log's `duration` with their SQL statement count; the figures written to
 * `bench/results/<name>.json` and printed.
 *
 * @example
 * ```ts
 * await runAppBenchmark("example", async ({ gql, measure }) => ({
 *   me: await measure(`{ me { id } }`),
 * }));
 * ```
 */
import postgres from "postgres";
import { type App, buildApp, type Deps } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { connect, type Sql } from "../src/platform/db.ts";
import { loadMigrations, migrate } from "../src/platform/migrate.ts";
import { memoryLogger } from "../src/platform/log.ts";
import { createErrorTracker } from "../src/platform/errors.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createMemoryKv } from "../src/platform/kv.ts";
import { mintFallbackToken } from "../src/graphql/auth.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 30);
const SECRET = "bench-fallback-secret-0123456789abcdef";
/** The subject of the bench user (a service admin) every request runs as. */
export const SUBJECT = "bench-user";

export const round2 = (n: number) => Math.round(n * 100) / 100;

/** Median and p95 of a series of milliseconds. */
export function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    median_ms: round2(sorted[Math.floor(sorted.length / 2)]),
    p95_ms: round2(sorted[Math.floor(sorted.length * 0.95)]),
  };
}

export interface Timed {
  // deno-lint-ignore no-explicit-any
  data: any;
  /** Server time: the request log's `duration`. */
  ms: number;
  statements: number;
}

export interface AppBench {
  sql: Sql;
  log: ReturnType<typeof memoryLogger>;
  app: App;
  /** One GraphQL request as the bench user (a service admin); throws on any error. */
  gql(query: string, variables?: Record<string, unknown>): Promise<Timed>;
  /** `warmups` untimed requests, then ROUNDS timed ones: median, p95 and statements. */
  measure(
    query: string,
    variables?: Record<string, unknown>,
    warmups?: number,
  ): Promise<{ median_ms: number; p95_ms: number; statements: number }>;
}

export interface AppBenchOptions {
  /** Apply only the migrations before this version; the benchmark applies the rest itself. */
  migrateBefore?: string;
  /** Settings added to the harness's own (e.g. an identity provider's). */
  env?: Record<string, string>;
}

/** Runs `body` against a fresh database and writes what it returns to results/<name>.json. */
export async function runAppBenchmark(
  name: string,
  body: (bench: AppBench) => Promise<Record<string, unknown>>,
  options: AppBenchOptions = {},
): Promise<void> {
  const database = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = new URL(SERVER);
  url.pathname = `/${database}`;
  const log = memoryLogger("info");
  // Seeding writes up to millions of rows in one statement: no 5 s statement bound here.
  const sql = connect(url.href, 5, log, { connectMs: 3000, statementMs: 600_000 });
  let results: Record<string, unknown>;
  try {
    const migrations = await loadMigrations();
    const before = options.migrateBefore;
    await migrate(sql, log, before ? migrations.filter((m) => m.version < before) : migrations);
    const deps: Deps = {
      // Fallback tokens are for admin subjects only.
      config: parseConfig({
        DATA_DIR: "/nonexistent",
        FALLBACK_AUTH_SECRET: SECRET,
        ADMIN_SUBJECTS: SUBJECT,
        // One subject sends every request of a run: the request limit is not what is measured.
        RATE_LIMIT_USER_PER_MINUTE: "0",
        ...options.env,
      }),
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
      if (res.status !== 200 || body.errors) {
        throw new Error(`${res.status} ${JSON.stringify(body.errors ?? body)}`);
      }
      const entry = log.entries.filter((e) => e.msg === "request").at(-1)!;
      return {
        data: body.data,
        ms: entry.duration as number,
        statements: entry.statements as number,
      };
    };
    const measure = async (query: string, variables: Record<string, unknown> = {}, warmups = 1) => {
      for (let i = 0; i < warmups; i++) await gql(query, variables);
      const times: number[] = [];
      let statements = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const r = await gql(query, variables);
        times.push(r.ms);
        statements = r.statements;
      }
      return { ...summary(times), statements };
    };
    results = await body({ sql, log, app, gql, measure });
    await app.stop();
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL(`./results/${name}.json`, import.meta.url),
    JSON.stringify(results, null, 2) + "\n",
  );
  console.log(JSON.stringify(results, null, 2));
}
