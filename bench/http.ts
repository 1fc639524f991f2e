/**
 * `deno task bench:http`: the read path over real HTTP, side by side in one run. Separate
 * processes on loopback: a bare graphql-yoga server (`bench/peers/bare-yoga.ts`, the floor), and
 * the service (`main.ts serve`) first on PostgreSQL, then on PGlite. Requests carry real RS256
 * tokens from a local identity provider (JWKS). The load generator is Debian's `wrk`, with a fixed
 * number of connections and a fixed duration per scenario; rounds are interleaved (each round runs
 * every scenario once) and each ratio is the median of its per-round ratios.
 *
 * Scenarios: bare yoga `{ __typename }`, handed Deno's request as served and handed a request of
 * its own as the service hands it (`bare_yoga_forwarded`, each a process of its own); the
 * service's anonymous `{ __typename }`; `{ me { id } }` signed in; `goals(first: 100)` with plain
 * columns; the same 100 goals with figures, streaks, sub-goals and a page of events (the
 * `bench:progress` query).
 *
 * Knobs: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of
 * its own is created and dropped), BENCH_ROUNDS (5), BENCH_CONNECTIONS (16), BENCH_DURATION_S (5),
 * BENCH_LABEL (the key of `bench/results/http.json` the run is written under, default `after`),
 * BENCH_SCENARIOS (a comma-separated subset of the service scenarios; the bare peers always run).
 *
 * Variants, each a service process of its own beside the one above, measured in the same rounds
 * (every service scenario runs on each variant back to back, their order rotating per round):
 * BENCH_BASELINE_ROOT (a checkout of another commit whose `main.ts serve` is the `baseline`),
 * BENCH_COMPARE_ROOTS=<name>=<path>,... (more trees, each a variant under its name, e.g. this tree
 * with one piece taken out; `overhead.vs_<name>` is service / that variant),
 * BENCH_TRACING=1 (this tree with OpenTelemetry on, `traced`: `OTEL_DENO=true` exporting OTLP
 * http/protobuf to a receiver in this process that reads and discards each batch) and
 * BENCH_TRACING_RATIO=<0..1> (the same with `OTEL_TRACES_SAMPLER=parentbased_traceidratio` at that
 * ratio, `sampled`). Their figures are under `variants`, and `overhead` gives per scenario the
 * median of per-round ratios service / baseline, traced / service and sampled / service.
 * BENCH_BUNDLE=1 adds what production runs: this tree's bundle (`scripts/bundle.ts`, written to
 * `build/bench-http/`) with the V8 flags its compiled service binary has built in
 * (`SERVICE_V8_FLAGS`), as `bundled`, with the ratios of the service's own (`bundled_*`); with
 * BENCH_BASELINE_ROOT also the baseline tree's bundle, built by that tree's own `scripts/bundle.ts`
 * with its own flags, as `baseline_bundled`. `overhead` then has `bundled` (bundled / service) and
 * `bundle_vs_baseline_bundle`.
 */
import postgres from "postgres";
import { pathToFileURL } from "node:url";
import { startIdentityProvider } from "../tests/support/identity.ts";
import { systemClock } from "../src/platform/clock.ts";
import {
  gql,
  median,
  recordResult,
  rssMiB,
  type Scenario,
  SCENARIOS as ALL_SCENARIOS,
  seed,
  type Server,
  spawnServer,
  wrk as wrkRun,
  wrkScript,
} from "./http-support.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 16);
const DURATION_S = Number(Deno.env.get("BENCH_DURATION_S") ?? 5);
const LABEL = Deno.env.get("BENCH_LABEL") ?? "after";
const RESULTS = new URL("./results/http.json", import.meta.url);
const ROOT = new URL("..", import.meta.url).pathname;
const BASELINE_ROOT = Deno.env.get("BENCH_BASELINE_ROOT");
const COMPARE_ROOTS = (Deno.env.get("BENCH_COMPARE_ROOTS") ?? "").split(",").filter(Boolean)
  .map((entry) => {
    const [name, root] = entry.split("=");
    if (!/^[a-z_]+$/.test(name) || !root) throw new Error(`BENCH_COMPARE_ROOTS: bad "${entry}"`);
    return { name, root };
  });
const TRACING = Deno.env.get("BENCH_TRACING") === "1";
const TRACING_RATIO = Deno.env.get("BENCH_TRACING_RATIO");
const BUNDLE = Deno.env.get("BENCH_BUNDLE") === "1";
const BUNDLE_DIR = "build/bench-http";

const wrk = (url: string, script: string, seconds: number) =>
  wrkRun(url, script, seconds, CONNECTIONS);

const RATIOS: Record<string, [string, string]> = {
  anonymous_vs_bare_yoga: ["anonymous", "bare_yoga"],
  anonymous_vs_bare_yoga_forwarded: ["anonymous", "bare_yoga_forwarded"],
  me_vs_anonymous: ["me", "anonymous"],
  goals_full_vs_columns_100: ["goals_full_100", "goals_columns_100"],
  bundled_anonymous_vs_bare_yoga: ["anonymous@bundled", "bare_yoga"],
  bundled_anonymous_vs_bare_yoga_forwarded: ["anonymous@bundled", "bare_yoga_forwarded"],
  bundled_me_vs_anonymous: ["me@bundled", "anonymous@bundled"],
  bundled_goals_full_vs_columns_100: ["goals_full_100@bundled", "goals_columns_100@bundled"],
};

interface Variant {
  /** service, baseline, traced, sampled, bundled, baseline_bundled, or a compared tree. */
  name: string;
  root: string;
  /** What `deno run` starts in `root`; default `main.ts`. */
  entry?: string;
  /** `deno run` arguments before the entry (the V8 flags a compiled binary has built in). */
  denoArgs?: string[];
  env: Record<string, string>;
}

interface VariantResult {
  req_s: Record<string, number>;
  rss_after_load_mib: number;
}

interface ModeResult {
  req_s: Record<string, number>;
  ratios: Record<string, number>;
  /** The service and each bare peer, by scenario name. */
  rss_after_load_mib: Record<string, number>;
  /** The other variants' figures (BENCH_BASELINE_ROOT, BENCH_TRACING). */
  variants?: Record<string, VariantResult>;
  /**
   * Per scenario, median of per-round ratios: `metrics` = service / baseline, `tracing` = traced /
   * service, `tracing_sampled` = sampled / service, `vs_<name>` = service / a compared tree.
   */
  overhead?: Record<string, Record<string, number>>;
  /** Per round, scenario → req/s; other variants' scenarios as `<scenario>@<variant>`. */
  rounds: Record<string, number>[];
  load_average_after: number[];
}

const ONLY = Deno.env.get("BENCH_SCENARIOS")?.split(",");
const SCENARIOS = ALL_SCENARIOS.filter((s) =>
  !ONLY || s.target === "bare" || ONLY.includes(s.name)
);
const SERVICE_SCENARIOS = SCENARIOS.filter((s) => s.target === "service");
const BARE_SCENARIOS = SCENARIOS.filter((s) => s.target === "bare");
const key = (scenario: string, variant: string) =>
  variant === "service" ? scenario : `${scenario}@${variant}`;

/** `items` rotated left by `n`, so that no variant always runs first. */
const rotated = <T>(items: T[], n: number) => items.map((_, i) => items[(i + n) % items.length]);

async function runMode(
  mode: string,
  variants: Variant[],
  envOf: (variant: Variant) => Record<string, string>,
  peers: Map<string, Server>,
  token: string,
  scripts: Map<string, string>,
): Promise<ModeResult> {
  const services = new Map<string, Server>();
  try {
    for (const variant of variants) {
      services.set(
        variant.name,
        await spawnServer(
          [variant.entry ?? "main.ts", "serve"],
          { ...envOf(variant), ...variant.env },
          { cwd: variant.root, denoArgs: variant.denoArgs },
        ),
      );
    }
    for (const variant of variants) {
      const url = services.get(variant.name)!.url;
      await seed(url, token);
      for (const scenario of SERVICE_SCENARIOS) {
        scenario.check?.(await gql(url, scenario.query, scenario.variables, token));
      }
    }
    for (const scenario of BARE_SCENARIOS) await gql(peers.get(scenario.name)!.url, scenario.query);
    // Warm-up: JIT, the pool's connections, caches.
    for (const scenario of SCENARIOS) {
      for (const variant of scenario.target === "bare" ? [variants[0]] : variants) {
        const url = scenario.target === "bare"
          ? peers.get(scenario.name)!.url
          : services.get(variant.name)!.url;
        await wrk(url, scripts.get(scenario.name)!, 2);
      }
    }
    const rounds: Record<string, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Record<string, number> = {};
      for (const scenario of SCENARIOS) {
        if (scenario.target === "bare") {
          const url = peers.get(scenario.name)!.url;
          round[scenario.name] = await wrk(url, scripts.get(scenario.name)!, DURATION_S);
          continue;
        }
        for (const variant of rotated(variants, r)) {
          const url = services.get(variant.name)!.url;
          round[key(scenario.name, variant.name)] = await wrk(
            url,
            scripts.get(scenario.name)!,
            DURATION_S,
          );
        }
      }
      rounds.push(round);
      console.error(`${mode} round ${r + 1}/${ROUNDS}: ${JSON.stringify(round)}`);
    }
    const rss = async (variant: string) => await rssMiB(services.get(variant)!.pid);
    const ratio = (a: string, b: string) =>
      Math.round(median(rounds.map((r) => r[a] / r[b])) * 1000) / 1000;
    const reqS = (variant: string, scenarios: Scenario[]) =>
      Object.fromEntries(
        scenarios.map((s) => [
          s.name,
          Math.round(median(rounds.map((r) => r[key(s.name, variant)]))),
        ]),
      );
    const others = variants.filter((v) => v.name !== "service");
    const overheadOf = (numerator: string, denominator: string) =>
      Object.fromEntries(
        SERVICE_SCENARIOS.map((s) => [
          s.name,
          ratio(key(s.name, numerator), key(s.name, denominator)),
        ]),
      );
    const has = (name: string) => others.some((v) => v.name === name);
    return {
      req_s: reqS("service", SCENARIOS),
      ratios: Object.fromEntries(
        Object.entries(RATIOS).flatMap(([name, [a, b]]) =>
          a in rounds[0] && b in rounds[0] ? [[name, ratio(a, b)]] : []
        ),
      ),
      rss_after_load_mib: {
        service: await rss("service"),
        ...Object.fromEntries(
          await Promise.all(
            [...peers].map(async ([name, peer]) => [name, await rssMiB(peer.pid)]),
          ),
        ),
      },
      ...(others.length
        ? {
          variants: Object.fromEntries(
            await Promise.all(others.map(async (v) => [v.name, {
              req_s: reqS(v.name, SERVICE_SCENARIOS),
              rss_after_load_mib: await rss(v.name),
            }])),
          ),
          overhead: {
            ...(has("baseline") ? { metrics: overheadOf("service", "baseline") } : {}),
            ...(has("traced") ? { tracing: overheadOf("traced", "service") } : {}),
            ...(has("sampled") ? { tracing_sampled: overheadOf("sampled", "service") } : {}),
            ...(has("bundled") ? { bundled: overheadOf("bundled", "service") } : {}),
            ...(has("bundled") && has("baseline_bundled")
              ? { bundle_vs_baseline_bundle: overheadOf("bundled", "baseline_bundled") }
              : {}),
            ...Object.fromEntries(
              COMPARE_ROOTS.map(({ name }) => [`vs_${name}`, overheadOf("service", name)]),
            ),
          },
        }
        : {}),
      rounds,
      load_average_after: Deno.loadavg(),
    };
  } finally {
    for (const service of services.values()) await service.stop();
  }
}

/**
 * An OTLP/HTTP endpoint that reads each export and discards it (a collector's cost stays out of
 * the service's figures, only the export itself is measured), counting batches and bytes.
 */
function startDiscardingCollector() {
  const received = { batches: 0, bytes: 0 };
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      if (new URL(req.url).pathname === "/v1/traces") {
        received.batches++;
        received.bytes += body.length;
      }
      return new Response(null, { status: 200 });
    },
  );
  return {
    received,
    env: {
      OTEL_DENO: "true",
      OTEL_SERVICE_NAME: "goals-service",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${server.addr.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_DENO_CONSOLE: "ignore",
    },
    async close() {
      controller.abort();
      await server.finished;
    },
  };
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
const collector = TRACING || TRACING_RATIO ? startDiscardingCollector() : null;
/**
 * `root` bundled with that tree's own `scripts/bundle.ts`, as it would have built it, run with the
 * V8 flags of its compiled service binary (none before it had any).
 */
async function bundledVariant(name: "bundled" | "baseline_bundled", root: string) {
  const script = await import(pathToFileURL(`${root.replace(/\/*$/, "/")}scripts/bundle.ts`).href);
  await script.bundle(BUNDLE_DIR, root);
  const flags: string[] = script.SERVICE_V8_FLAGS ?? [];
  return {
    name,
    root,
    entry: `${BUNDLE_DIR}/service/main.js`,
    denoArgs: flags.length ? [`--v8-flags=${flags.join(",")}`] : [],
    env: {},
  };
}
const variants: Variant[] = [
  { name: "service", root: ROOT, env: {} },
  ...(BASELINE_ROOT ? [{ name: "baseline" as const, root: BASELINE_ROOT, env: {} }] : []),
  ...COMPARE_ROOTS.map(({ name, root }) => ({ name, root, env: {} })),
  ...(collector && TRACING ? [{ name: "traced" as const, root: ROOT, env: collector.env }] : []),
  ...(BUNDLE ? [await bundledVariant("bundled", ROOT)] : []),
  ...(BUNDLE && BASELINE_ROOT ? [await bundledVariant("baseline_bundled", BASELINE_ROOT)] : []),
  ...(collector && TRACING_RATIO
    ? [{
      name: "sampled" as const,
      root: ROOT,
      env: {
        ...collector.env,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: TRACING_RATIO,
      },
    }]
    : []),
];
const peers = new Map<string, Server>();
for (const scenario of BARE_SCENARIOS) {
  peers.set(
    scenario.name,
    await spawnServer(["bench/peers/bare-yoga.ts"], scenario.peerEnv ?? {}),
  );
}
const modes: Record<string, ModeResult> = {};
try {
  const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  const databases = new Map<string, string>();
  try {
    for (const variant of variants) {
      const database = `bench_http_${crypto.randomUUID().replaceAll("-", "")}`;
      await admin.unsafe(`create database ${database}`);
      databases.set(variant.name, database);
    }
    modes.postgres = await runMode(
      "postgres",
      variants,
      (variant) => {
        const url = new URL(SERVER);
        url.pathname = `/${databases.get(variant.name)}`;
        return { ...common, DATABASE_URL: url.href, DATA_DIR: `${dir}/pg-mode-${variant.name}` };
      },
      peers,
      token,
      scripts,
    );
  } finally {
    for (const database of databases.values()) {
      await admin.unsafe(`drop database if exists ${database} with (force)`);
    }
    await admin.end();
  }
  modes.pglite = await runMode(
    "pglite",
    variants,
    (variant) => ({ ...common, DATA_DIR: `${dir}/pglite-mode-${variant.name}` }),
    peers,
    token,
    scripts,
  );
} finally {
  for (const peer of peers.values()) await peer.stop();
  await collector?.close();
  await identity.close();
  await Deno.remove(dir, { recursive: true });
}
if (collector && collector.received.batches === 0) {
  throw new Error("the traced service exported no spans");
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
  ...(BASELINE_ROOT ? { baseline_root: BASELINE_ROOT } : {}),
  ...(COMPARE_ROOTS.length
    ? { compare_roots: Object.fromEntries(COMPARE_ROOTS.map((c) => [c.name, c.root])) }
    : {}),
  ...(BUNDLE ? { bundle_dir: BUNDLE_DIR } : {}),
  ...(collector ? { otlp_received: collector.received } : {}),
  ...(TRACING_RATIO ? { tracing_ratio: Number(TRACING_RATIO) } : {}),
  modes,
  note:
    "req/s = median over rounds; ratios = median of per-round ratios; RSS from /proc/<pid>/status VmRSS after the last round",
};
await recordResult(RESULTS, LABEL, result);
