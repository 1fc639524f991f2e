/**
 * `deno task bench:startup`: how fast the service starts and how much memory it holds, each beside
 * a peer measured in the same run (interleaved rounds, medians of per-round ratios).
 *
 * - Warm start on PostgreSQL: process spawn to the first `GET /health` 200, the database already
 *   migrated; peer: a bare graphql-yoga server (`bench/peers/startup-yoga.ts`). Beside it, spawn
 *   to the first 200 answer to `{ __typename }` (polled at the same time): the service listens
 *   and answers `/health` before its app is built should the database be up first.
 * - Embedded cold start: the same on a fresh `DATA_DIR`, which starts from the pre-migrated
 *   template (written for the sources into `build/embedded-template/` of the tree, and by the
 *   bundle beside it; `BENCH_EMBEDDED_TEMPLATE=0` removes both: PGlite's initdb and every
 *   migration); peer: PGlite on a fresh directory behind `Deno.serve` (`bench/peers/bare-pglite.ts`).
 * - Memory: the PostgreSQL-mode service's RSS right after start and after a short read load
 *   (`{ me { id } }` and a `goals` page, fallback token, 8 clients).
 * - Each of the above also for the bundle production compiles (`deno task bundle`, written to
 *   `build/bench-startup/` of this tree), in the same rounds, stored under `<BENCH_LABEL>_bundled`
 *   with `warm_start_vs_sources_ratio` (bundle / sources, per round). `BENCH_BUNDLE=0` skips it.
 *
 * Knobs: `BENCH_DATABASE_URL` (a database of its own is created and dropped), `BENCH_ROUNDS` (5),
 * `BENCH_LOAD_REQUESTS` (2,000), `BENCH_SERVICE_ROOT` (the tree whose `main.ts` is started, by
 * default this one: pointing it at an export of an older commit gives the "before" figures),
 * `BENCH_LABEL` (the key the figures are stored under in `results/startup.json`, default `after`),
 * `BENCH_BASELINE_ROOT` (another tree measured in the same rounds, taking turns with this one, and
 * against the same peers, stored under `BENCH_BASELINE_LABEL`, default `before`, and its bundle, built
 * by that tree's own `scripts/bundle.ts`, under `<BENCH_BASELINE_LABEL>_bundled`).
 */
import postgres from "postgres";
import { fileURLToPath, pathToFileURL } from "node:url";
import { mintFallbackToken } from "../src/graphql/auth.ts";
import { bundle } from "../scripts/bundle.ts";
import { writeEmbeddedTemplate } from "../scripts/embedded-template.ts";
import { loadMigrations } from "../src/platform/migrate.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const LOAD_REQUESTS = Number(Deno.env.get("BENCH_LOAD_REQUESTS") ?? 2000);
const HERE = fileURLToPath(new URL("./", import.meta.url));
const SERVICE_ROOT = Deno.env.get("BENCH_SERVICE_ROOT") ??
  fileURLToPath(new URL("../", import.meta.url));
const LABEL = Deno.env.get("BENCH_LABEL") ?? "after";
const BASELINE_ROOT = Deno.env.get("BENCH_BASELINE_ROOT");
const BASELINE_LABEL = Deno.env.get("BENCH_BASELINE_LABEL") ?? "before";
const BUNDLE = Deno.env.get("BENCH_BUNDLE") !== "0";
const BUNDLE_DIR = "build/bench-startup";
const TEMPLATE = Deno.env.get("BENCH_EMBEDDED_TEMPLATE") !== "0";
const RESULTS = new URL("./results/startup.json", import.meta.url);
const SECRET = "bench-fallback-secret-0123456789abcdef";
const SUBJECT = "bench-user";
const READY_TIMEOUT_MS = 120_000;
const LOAD_CLIENTS = 8;
const LOAD_AT_START = Deno.loadavg();

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

interface Started {
  /** Spawn to the first `/health` 200. */
  readyMs: number;
  /** Spawn to the first 200 answer to `{ __typename }` (0 where not asked). */
  graphqlMs: number;
  port: number;
  rssMiB(): number;
  stop(): Promise<void>;
}

/**
 * Spawns `deno run -A entry`, waits for its "listening" line, then polls `/health` (and, with
 * `graphql`, `{ __typename }` at the same time) until 200.
 */
async function start(
  entry: string,
  cwd: string,
  env: Record<string, string>,
  graphql = true,
): Promise<Started> {
  const began = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", entry],
    cwd,
    env: { PORT: "0", LOG_LEVEL: "info", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadline = began + READY_TIMEOUT_MS;
  let port = 0;
  let stderr = "";
  const errors = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const drained = (async () => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) return;
      if (port) continue;
      pending += value;
      const match = /"msg":"listening"[^\n]*?"port":(\d+)|"port":(\d+)[^\n]*?"msg":"listening"/
        .exec(pending);
      if (match) port = Number(match[1] ?? match[2]);
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already exited
    }
    await child.status;
    await Promise.all([drained, errors]);
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 2));
  // Polls `send` until it answers 200; the time from spawn, or null once the deadline passed.
  const until = async (send: () => Promise<Response>): Promise<number | null> => {
    for (;;) {
      if (performance.now() > deadline) return null;
      if (!port) {
        await pause();
        continue;
      }
      const res = await send().catch(() => null);
      await res?.body?.cancel();
      if (res?.status === 200) return performance.now() - began;
      await pause();
    }
  };
  const signal = () => AbortSignal.timeout(5000);
  const [readyMs, graphqlMs] = await Promise.all([
    until(() => fetch(`http://127.0.0.1:${port}/health`, { signal: signal() })),
    graphql
      ? until(() =>
        fetch(`http://127.0.0.1:${port}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __typename }" }),
          signal: signal(),
        })
      )
      : Promise.resolve(0),
  ]);
  if (readyMs === null || graphqlMs === null) {
    await stop();
    throw new Error(`${entry} did not answer within ${READY_TIMEOUT_MS} ms: ${stderr}`);
  }
  const rssMiB = () => {
    const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  };
  return { readyMs, graphqlMs, port, rssMiB, stop };
}

/** LOAD_REQUESTS GraphQL reads from LOAD_CLIENTS clients; throws on any error. */
async function readLoad(port: number, token: string): Promise<void> {
  const queries = [
    `{ me { id } }`,
    `{ goals(first: 20) { nodes { id title currentValue percentComplete currentStreak } } }`,
  ];
  let next = 0;
  const client = async () => {
    while (next < LOAD_REQUESTS) {
      const query = queries[next++ % queries.length];
      const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = await res.json();
      if (res.status !== 200 || body.errors) {
        throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: LOAD_CLIENTS }, client));
}

async function addGoals(port: number, token: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: token },
      body: JSON.stringify({
        query: `mutation($title: String!) { addGoal(title: $title, kind: habit) { goal { id } } }`,
        variables: { title: `Goal ${i}` },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.json();
    if (body.errors || !body.data.addGoal.goal) throw new Error(JSON.stringify(body));
  }
}

const database = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${database}`);
const url = new URL(SERVER);
url.pathname = `/${database}`;
const serviceEnv = (dataDir: string, databaseUrl?: string) => ({
  DATA_DIR: dataDir,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  FALLBACK_AUTH_SECRET: SECRET,
  ADMIN_SUBJECTS: SUBJECT,
  // The read load is one user's; the request limits would answer most of it 429.
  RATE_LIMIT_USER_PER_MINUTE: "0",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
});
const scratch = await Deno.makeTempDir({ prefix: "bench-startup-" });
const token = await mintFallbackToken(SECRET, SUBJECT, 3600);

/** One tree's figures in one round: warm start, read load, embedded cold start. */
async function measureTree(root: string, entry: string, dataDir: string) {
  const service = await start(entry, root, serviceEnv(dataDir, url.href));
  const rssStarted = service.rssMiB();
  await readLoad(service.port, token);
  const rssLoaded = service.rssMiB();
  await service.stop();
  const embedded = await start(entry, root, serviceEnv(`${dataDir}/embedded`));
  await embedded.stop();
  return { service, rssStarted, rssLoaded, embedded };
}

const bundled = (label: string, root: string) => ({
  label: `${label}_bundled`,
  root,
  entry: `${BUNDLE_DIR}/service/main.js`,
  bundleOf: label,
});
const trees: { label: string; root: string; entry: string; bundleOf?: string }[] = [
  ...(BASELINE_ROOT ? [{ label: BASELINE_LABEL, root: BASELINE_ROOT, entry: "main.ts" }] : []),
  ...(BASELINE_ROOT && BUNDLE ? [bundled(BASELINE_LABEL, BASELINE_ROOT)] : []),
  { label: LABEL, root: SERVICE_ROOT, entry: "main.ts" },
  ...(BUNDLE ? [bundled(LABEL, SERVICE_ROOT)] : []),
];
const rounds = new Map<string, Record<string, number>[]>(trees.map((t) => [t.label, []]));
try {
  if (BUNDLE) await bundle(BUNDLE_DIR, SERVICE_ROOT);
  // The baseline tree's own bundle script, as that tree would have built it.
  if (BUNDLE && BASELINE_ROOT) {
    const { bundle: bundleBaseline } = await import(
      pathToFileURL(`${BASELINE_ROOT.replace(/\/*$/, "/")}scripts/bundle.ts`).href
    );
    await bundleBaseline(BUNDLE_DIR, BASELINE_ROOT);
  }
  const root = pathToFileURL(SERVICE_ROOT.replace(/\/*$/, "/"));
  const templates = [new URL("build/embedded-template/", root)];
  if (BUNDLE) templates.push(new URL(`${BUNDLE_DIR}/service/embedded-template/`, root));
  if (TEMPLATE) {
    await writeEmbeddedTemplate(templates[0], await loadMigrations(new URL("migrations/", root)));
  } else {
    for (const dir of templates) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  // Migrates the database and adds the goals the read load lists; not measured.
  const first = await start("main.ts", SERVICE_ROOT, serviceEnv(scratch, url.href));
  await addGoals(first.port, token, 20);
  await first.stop();
  // A first start of every other entry fills Deno's code cache for it, so each start measured is
  // warm; not measured.
  for (const tree of trees.filter((t) => t.root !== SERVICE_ROOT || t.entry !== "main.ts")) {
    await (await start(tree.entry, tree.root, serviceEnv(scratch, url.href))).stop();
  }

  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = `${scratch}/round-${round}`;
    // The trees take turns going first.
    const measured = new Map<number, Awaited<ReturnType<typeof measureTree>>>();
    const order = round % 2 ? [...trees.keys()].reverse() : [...trees.keys()];
    for (const i of order) {
      measured.set(i, await measureTree(trees[i].root, trees[i].entry, `${dataDir}/${i}`));
    }

    const yoga = await start(`${HERE}peers/startup-yoga.ts`, HERE, {});
    const yogaRss = yoga.rssMiB();
    await yoga.stop();

    const pglite = await start(`${HERE}peers/bare-pglite.ts`, HERE, {
      DATA_DIR: `${dataDir}/peer`,
    }, false);
    await pglite.stop();

    for (const [i, { service, rssStarted, rssLoaded, embedded }] of measured) {
      const figures = {
        warm_start_ms: service.readyMs,
        bare_yoga_start_ms: yoga.readyMs,
        warm_start_ratio: service.readyMs / yoga.readyMs,
        warm_first_graphql_ms: service.graphqlMs,
        bare_yoga_first_graphql_ms: yoga.graphqlMs,
        warm_first_graphql_ratio: service.graphqlMs / yoga.graphqlMs,
        embedded_cold_start_ms: embedded.readyMs,
        bare_pglite_start_ms: pglite.readyMs,
        embedded_cold_start_ratio: embedded.readyMs / pglite.readyMs,
        embedded_first_graphql_ms: embedded.graphqlMs,
        rss_after_start_mib: rssStarted,
        rss_after_load_mib: rssLoaded,
        bare_yoga_rss_after_start_mib: yogaRss,
      };
      const sources = trees.findIndex((t) => t.label === trees[i].bundleOf);
      if (sources >= 0) {
        Object.assign(figures, {
          warm_start_vs_sources_ratio: service.readyMs / measured.get(sources)!.service.readyMs,
        });
      }
      rounds.get(trees[i].label)!.push(figures);
      console.log(
        `round ${round + 1}/${ROUNDS} ${trees[i].label}: ` +
          Object.entries(figures).map(([k, v]) => `${k}=${round1(v)}`).join(" "),
      );
    }
  }
} finally {
  await admin.unsafe(`drop database if exists ${database} with (force)`);
  await admin.end();
  await Deno.remove(scratch, { recursive: true });
}

const medians = (of: Record<string, number>[]) =>
  Object.fromEntries(
    Object.keys(of[0]).map((key) => {
      const value = median(of.map((r) => r[key]));
      return [`${key}_median`, key.endsWith("ratio") ? round2(value) : round1(value)];
    }),
  );
const loadAfter = Deno.loadavg();
const results = Object.fromEntries(trees.map((tree) => [tree.label, {
  measured_at: new Date().toISOString(),
  service_root: tree.root,
  entry: tree.entry,
  // A baseline tree's code may not know templates at all.
  ...(tree.root === SERVICE_ROOT ? { embedded_template: TEMPLATE } : {}),
  ...(trees.length > 1 ? { interleaved_with: trees.map((t) => t.label) } : {}),
  rounds: ROUNDS,
  load_requests: LOAD_REQUESTS,
  load_clients: LOAD_CLIENTS,
  ...medians(rounds.get(tree.label)!),
  loadavg_before: LOAD_AT_START,
  loadavg_after: loadAfter,
}]));
const previous = await Deno.readTextFile(RESULTS).then(JSON.parse).catch(() => ({}));
await Deno.writeTextFile(
  RESULTS,
  JSON.stringify({ ...previous, ...results }, null, 2) + "\n",
);
console.log(JSON.stringify(results, null, 2));
