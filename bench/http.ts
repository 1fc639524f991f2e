/**
 * `deno task bench:http`: the read path over real HTTP, side by side in one run. Separate
 * processes on loopback: a bare graphql-yoga server (`bench/peers/bare-yoga.ts`, the floor), and
 * the service (`main.ts serve`) first on PostgreSQL, then on PGlite. Requests carry real RS256
 * tokens from a local identity provider (JWKS). The load generator is Debian's `wrk`, with a fixed
 * number of connections and a fixed duration per scenario; rounds are interleaved (each round runs
 * every scenario once) and each ratio is the median of its per-round ratios.
 *
 * Scenarios: bare yoga `{ __typename }`; the service's anonymous `{ __typename }`; `{ me { id } }`
 * signed in; `goals(first: 100)` with plain columns; the same 100 goals with figures, streaks,
 * sub-goals and a page of events (the `bench:progress` query).
 *
 * Knobs: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of
 * its own is created and dropped), BENCH_ROUNDS (5), BENCH_CONNECTIONS (16), BENCH_DURATION_S (5),
 * BENCH_LABEL (the key of `bench/results/http.json` the run is written under, default `after`).
 */
import postgres from "postgres";
import { startIdentityProvider } from "../tests/support/identity.ts";
import { systemClock } from "../src/platform/clock.ts";
import {
  gql,
  median,
  recordResult,
  rssMiB,
  SCENARIOS,
  seed,
  type Server,
  spawnServer,
  wrk,
  wrkScript,
} from "./http-support.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 16);
const DURATION_S = Number(Deno.env.get("BENCH_DURATION_S") ?? 5);
const LABEL = Deno.env.get("BENCH_LABEL") ?? "after";
const RESULTS = new URL("./results/http.json", import.meta.url);

interface ModeResult {
  req_s: Record<string, number>;
  ratios: Record<string, number>;
  rss_after_load_mib: { service: number; bare_yoga: number };
  rounds: Record<string, number>[];
  load_average_after: number[];
}

async function runMode(
  mode: string,
  env: Record<string, string>,
  bare: Server,
  token: string,
  scripts: Map<string, string>,
): Promise<ModeResult> {
  const service = await spawnServer(["main.ts", "serve"], env);
  try {
    await seed(service.url, token);
    for (const scenario of SCENARIOS) {
      const url = scenario.target === "bare" ? bare.url : service.url;
      const data = await gql(url, scenario.query, scenario.variables, token);
      scenario.check?.(data);
      // Warm-up: JIT, the pool's connections, caches.
      await wrk(url, scripts.get(scenario.name)!, 2, CONNECTIONS);
    }
    const rounds: Record<string, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Record<string, number> = {};
      for (const scenario of SCENARIOS) {
        const url = scenario.target === "bare" ? bare.url : service.url;
        round[scenario.name] = await wrk(url, scripts.get(scenario.name)!, DURATION_S, CONNECTIONS);
      }
      rounds.push(round);
      console.error(`${mode} round ${r + 1}/${ROUNDS}: ${JSON.stringify(round)}`);
    }
    const rss = { service: await rssMiB(service.pid), bare_yoga: await rssMiB(bare.pid) };
    const ratio = (a: string, b: string) =>
      Math.round(median(rounds.map((r) => r[a] / r[b])) * 1000) / 1000;
    return {
      req_s: Object.fromEntries(
        SCENARIOS.map((s) => [s.name, Math.round(median(rounds.map((r) => r[s.name])))]),
      ),
      ratios: {
        anonymous_vs_bare_yoga: ratio("anonymous", "bare_yoga"),
        me_vs_anonymous: ratio("me", "anonymous"),
        goals_full_vs_columns_100: ratio("goals_full_100", "goals_columns_100"),
      },
      rss_after_load_mib: rss,
      rounds,
      load_average_after: Deno.loadavg(),
    };
  } finally {
    await service.stop();
  }
}

const loadAverageStart = Deno.loadavg();
const identity = await startIdentityProvider(systemClock);
const token = await identity.token({ sub: "bench-http-user", expiresIn: 6 * 3600 });
const dir = await Deno.makeTempDir({ prefix: "bench-http-" });
const scripts = new Map<string, string>();
for (const scenario of SCENARIOS) {
  scripts.set(scenario.name, await wrkScript(dir, scenario, token));
}
const common = {
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  RATE_LIMIT_USER_PER_MINUTE: "0",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  ...identity.env,
};
const bare = await spawnServer(["bench/peers/bare-yoga.ts"], {});
const modes: Record<string, ModeResult> = {};
try {
  const database = `bench_http_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  try {
    const url = new URL(SERVER);
    url.pathname = `/${database}`;
    modes.postgres = await runMode(
      "postgres",
      { ...common, DATABASE_URL: url.href, DATA_DIR: `${dir}/pg-mode` },
      bare,
      token,
      scripts,
    );
  } finally {
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
  modes.pglite = await runMode(
    "pglite",
    { ...common, DATA_DIR: `${dir}/pglite-mode` },
    bare,
    token,
    scripts,
  );
} finally {
  await bare.stop();
  await identity.close();
  await Deno.remove(dir, { recursive: true });
}

const result = {
  measured_at: new Date().toISOString(),
  rounds: ROUNDS,
  connections: CONNECTIONS,
  duration_s: DURATION_S,
  load_generator: "wrk -t1 (Debian)",
  load_average_start: loadAverageStart,
  load_average_end: Deno.loadavg(),
  cpus: navigator.hardwareConcurrency,
  modes,
  note:
    "req/s = median over rounds; ratios = median of per-round ratios; RSS from /proc/<pid>/status VmRSS after the last round",
};
await recordResult(RESULTS, LABEL, result);
