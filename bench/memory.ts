/**
 * `deno task bench:memory`: the service's memory after the read-path load of `bench:http` beside
 * its throughput, for several V8 flag sets in one run. One service process per variant on the same
 * PostgreSQL database (its own, created and dropped), the same bench user with 100 goals and real
 * RS256 tokens; `wrk` runs each `bench:http` service scenario (anonymous, `{ me }`, columns and full
 * `goals`) against every variant in `BENCH_ROUNDS` interleaved rounds, the variants' order rotating
 * per round. Per variant: req/s per scenario (median over rounds), the ratio to the first variant
 * (median of per-round ratios), VmRSS right after each of its runs (the largest, and after the last
 * round), the V8 heap from `Deno.memoryUsage()` at that moment (a preloaded probe,
 * `bench/peers/memory-probe.ts`), and with `BENCH_TRACE_GC=1` the time V8 reported spending in
 * scavenges and mark-compacts during the measured rounds (`--trace-gc`).
 *
 * After the rounds, each variant in turn takes the four scenarios once more and is then left idle:
 * its RSS is read every half second for `BENCH_SETTLE_S` (30) seconds, giving the RSS the process
 * settles at once V8 has let go of the heap it grew under load, and how long that took (the first
 * reading within 5 MiB of the last).
 *
 * `BENCH_BUNDLE=1` runs the production bundle (`deno task bundle`, written to `build/bench-memory/`)
 * instead of `main.ts`: the sources start with some twenty runtime threads from reading hundreds of
 * module files, the bundle with a few.
 *
 * Knobs: BENCH_VARIANTS (`name=flags;name=flags`, flags comma-separated as `--v8-flags` takes
 * them, empty for V8's defaults, `NAME=value` items set in the variant's environment instead, e.g.
 * `MALLOC_ARENA_MAX=2`; the first is the baseline), BENCH_DATABASE_URL, BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (16), BENCH_DURATION_S (5), BENCH_TRACE_GC, BENCH_LABEL (the key of
 * `bench/results/memory.json` the run is written under, default `after`).
 */
import postgres from "postgres";
import { startIdentityProvider } from "../tests/support/identity.ts";
import { systemClock } from "../src/platform/clock.ts";
import * as http from "./http-support.ts";
import { bundle } from "../scripts/bundle.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const TRACE_GC = Deno.env.get("BENCH_TRACE_GC") === "1";
const LABEL = Deno.env.get("BENCH_LABEL") ?? "after";
const DURATION_S = Number(Deno.env.get("BENCH_DURATION_S") ?? 5);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 16);
const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SETTLE_S = Number(Deno.env.get("BENCH_SETTLE_S") ?? 30);
const BUNDLE = Deno.env.get("BENCH_BUNDLE") === "1";
const BUNDLE_DIR = "build/bench-memory";
const RESULTS = new URL("./results/memory.json", import.meta.url);
const VARIANTS = (Deno.env.get("BENCH_VARIANTS") ?? "default=;old128=--max-old-space-size=128")
  .split(";")
  .filter((v) => v.trim())
  .map((v) => {
    const [name, ...flags] = v.split("=");
    return { name: name.trim(), flags: flags.join("=").trim() };
  });
const MIB = 1024 * 1024;

/**
 * V8's `--trace-gc` lines, e.g. `[1:0x5] 1646 ms: Incremental Mark-Compact 29.4 (58.9) -> 25.7
 * (57.6) MB, pooled: 0.8 MB, 11.57 / 0.00 ms ...`: the kind and the pause. V8 writes them through
 * its own buffer, so a line the service's log lands in the middle of is lost: the totals are a
 * slight undercount, alike for every variant.
 */
const GC_LINE =
  /\d ms: ([A-Za-z -]+?) [\d.]+ \([\d.]+\) -> .*? MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;

interface Variant {
  name: string;
  flags: string;
  server: http.Server;
  memory: Deno.MemoryUsage | undefined;
  gc: Record<string, { count: number; ms: number }>;
  counting: boolean;
  samples: { rss: number; heapTotal: number; heapUsed: number; external: number }[];
  settle?: { endOfLoadMiB: number; settledMiB: number; settledAfterS: number };
}

async function startVariant(
  name: string,
  flags: string,
  env: Record<string, string>,
): Promise<Variant> {
  const parts = flags.split(",").filter(Boolean);
  const isEnv = (part: string) => /^[A-Z_]+=/.test(part);
  const v8Flags = [...parts.filter((p) => !isEnv(p)), ...(TRACE_GC ? ["--trace-gc"] : [])].join(
    ",",
  );
  const variantEnv = Object.fromEntries(
    parts.filter(isEnv).map((p) => {
      const at = p.indexOf("=");
      return [p.slice(0, at), p.slice(at + 1)];
    }),
  );
  const variant: Variant = {
    name,
    flags,
    server: undefined as unknown as http.Server,
    memory: undefined,
    gc: {},
    counting: false,
    samples: [],
  };
  const entry = BUNDLE ? `${BUNDLE_DIR}/service/main.js` : "main.ts";
  variant.server = await http.spawnServer([entry, "serve"], { ...env, ...variantEnv }, {
    denoArgs: [
      "--preload",
      "bench/peers/memory-probe.ts",
      ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
    ],
    onLine(line) {
      if (line.startsWith('{"msg":"memory"')) {
        variant.memory = JSON.parse(line);
        return;
      }
      const gc = variant.counting ? GC_LINE.exec(line) : null;
      if (gc) {
        const entry = variant.gc[gc[1]] ??= { count: 0, ms: 0 };
        entry.count++;
        entry.ms += Number(gc[2]);
      }
    },
  });
  return variant;
}

/** RSS now and the probe's last heap figures (it prints every 500 ms: wait for a fresh one). */
async function sample(variant: Variant) {
  variant.memory = undefined;
  const rss = await http.rssMiB(variant.server.pid);
  while (!variant.memory) await new Promise((resolve) => setTimeout(resolve, 50));
  const m: Deno.MemoryUsage = variant.memory;
  variant.samples.push({
    rss,
    heapTotal: http.round2(m.heapTotal / MIB),
    heapUsed: http.round2(m.heapUsed / MIB),
    external: http.round2(m.external / MIB),
  });
}

/** The four scenarios once, then RSS every half second while the variant idles. */
async function settle(variant: Variant) {
  for (const scenario of scenarios) {
    await http.wrk(variant.server.url, scripts.get(scenario.name)!, DURATION_S, CONNECTIONS);
  }
  const readings: number[] = [];
  for (let t = 0; t <= SETTLE_S * 2; t++) {
    if (t) await new Promise((resolve) => setTimeout(resolve, 500));
    readings.push(await http.rssMiB(variant.server.pid));
  }
  const last = readings.at(-1)!;
  const at = readings.findIndex((rss) => Math.abs(rss - last) <= 5);
  variant.settle = { endOfLoadMiB: readings[0], settledMiB: last, settledAfterS: at / 2 };
}

async function statusMiB(pid: number) {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const field = (name: string) =>
    http.round2(Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
  return { anon: field("RssAnon"), file: field("RssFile"), shmem: field("RssShmem") };
}

if (BUNDLE) await bundle(BUNDLE_DIR);
const loadAverageStart = Deno.loadavg();
const identity = await startIdentityProvider(systemClock);
const token = await identity.token({ sub: "bench-memory-user", expiresIn: 6 * 3600 });
const dir = await Deno.makeTempDir({ prefix: "bench-memory-" });
const scenarios = http.SCENARIOS.filter((s) => s.target === "service");
const scripts = new Map<string, string>();
for (const scenario of scenarios) {
  scripts.set(scenario.name, await http.wrkScript(dir, scenario, token));
}
const database = `bench_memory_${crypto.randomUUID().replaceAll("-", "")}`;
const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${database}`);
const url = new URL(SERVER);
url.pathname = `/${database}`;
const env = {
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  RATE_LIMIT_USER_PER_MINUTE: "0",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  DATABASE_URL: url.href,
  ...identity.env,
};
const variants: Variant[] = [];
const rounds: Record<string, Record<string, number>>[] = [];
try {
  for (const { name, flags } of VARIANTS) {
    variants.push(await startVariant(name, flags, { ...env, DATA_DIR: `${dir}/${name}` }));
  }
  await http.seed(variants[0].server.url, token);
  for (const variant of variants) {
    for (const scenario of scenarios) {
      scenario.check?.(
        await http.gql(variant.server.url, scenario.query, scenario.variables, token),
      );
      await http.wrk(variant.server.url, scripts.get(scenario.name)!, 2, CONNECTIONS);
    }
    await sample(variant);
    variant.samples.length = 0;
    variant.counting = true;
  }
  for (let r = 0; r < ROUNDS; r++) {
    const round: Record<string, Record<string, number>> = {};
    const order = variants.map((_, i) => variants[(i + r) % variants.length]);
    for (const variant of order) {
      round[variant.name] = {};
      for (const scenario of scenarios) {
        round[variant.name][scenario.name] = await http.wrk(
          variant.server.url,
          scripts.get(scenario.name)!,
          DURATION_S,
          CONNECTIONS,
        );
      }
      await sample(variant);
    }
    rounds.push(round);
    console.error(`round ${r + 1}/${ROUNDS}: ${JSON.stringify(round)}`);
  }
  for (const variant of variants) variant.counting = false;
  if (SETTLE_S > 0) {
    for (const variant of variants) await settle(variant);
  }
} finally {
  const breakdown = await Promise.all(variants.map((v) => statusMiB(v.server.pid)));
  variants.forEach((v, i) => Object.assign(v, { breakdown: breakdown[i] }));
  await Promise.all(variants.map((v) => v.server.stop()));
  await admin.unsafe(`drop database if exists ${database} with (force)`);
  await admin.end();
  await identity.close();
  await Deno.remove(dir, { recursive: true });
}

const baseline = variants[0].name;
const result = {
  measured_at: new Date().toISOString(),
  rounds: ROUNDS,
  connections: CONNECTIONS,
  duration_s: DURATION_S,
  trace_gc: TRACE_GC,
  load_average_start: loadAverageStart,
  load_average_end: Deno.loadavg(),
  cpus: navigator.hardwareConcurrency,
  baseline,
  entry: BUNDLE ? "bundle" : "main.ts",
  variants: Object.fromEntries(variants.map((v) => {
    const last = v.samples.at(-1)!;
    const ratios = Object.fromEntries(scenarios.map((s) => [
      s.name,
      Math.round(http.median(rounds.map((r) => r[v.name][s.name] / r[baseline][s.name])) * 1000) /
      1000,
    ]));
    return [v.name, {
      v8_flags: v.flags,
      req_s: Object.fromEntries(
        scenarios.map((
          s,
        ) => [s.name, Math.round(http.median(rounds.map((r) => r[v.name][s.name])))]),
      ),
      ratio_to_baseline: ratios,
      rss_after_load_mib: last.rss,
      rss_max_mib: Math.max(...v.samples.map((s) => s.rss)),
      heap_after_load_mib: { total: last.heapTotal, used: last.heapUsed, external: last.external },
      rss_at_stop_mib: (v as unknown as { breakdown: unknown }).breakdown,
      rss_settle: v.settle && {
        end_of_load_mib: v.settle.endOfLoadMiB,
        settled_mib: v.settle.settledMiB,
        settled_after_s: v.settle.settledAfterS,
        idle_s: SETTLE_S,
      },
      gc: TRACE_GC
        ? Object.fromEntries(
          Object.entries(v.gc).map(([k, e]) => [k, { count: e.count, ms: Math.round(e.ms) }]),
        )
        : undefined,
    }];
  })),
  per_round: rounds,
  note:
    "req/s = median over rounds; ratios = median of per-round ratios to the baseline; RSS = VmRSS right after the variant's last run; heap from Deno.memoryUsage(); gc = V8 --trace-gc pause totals over the measured rounds; rss_settle = RSS right after one more pass of the scenarios, and where it settled while idle",
};
await http.recordResult(RESULTS, LABEL, result);
