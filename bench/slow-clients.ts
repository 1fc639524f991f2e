/**
 * `deno task bench:slow-clients`: the slow-client attack of issue 44 against `main.ts serve` on
 * PostgreSQL: 300 connections sending one more header line every 2 s, 200 declaring a 1 MB body and
 * sending one byte of it every 2 s, and 100 that send half a request head and then nothing, all
 * from this one address. At each checkpoint it prints how many of each are still open, how the
 * closed ones were answered, and how `/up` (asked twice a second from the same address) answered.
 *
 * BENCH_ROOT (default this tree): the tree whose `main.ts serve` is attacked (a checkout of another
 * commit gives the figures before a change). BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres; a database of its own is created and dropped).
 * BENCH_CHECKPOINTS_S (default `12,35`). Any `HTTP_*` variable set here is passed to the service
 * (`HTTP_MAX_CONNECTIONS_PER_ADDRESS=0` lifts the cap so every connection meets the timeouts).
 */
import postgres from "postgres";
import { startProcess } from "../tests/support/process.ts";
import {
  type HeldConnection,
  partialHead,
  statusOf,
  trickleBody,
  trickleHead,
} from "../tests/support/slow-clients.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROOT = Deno.env.get("BENCH_ROOT") ?? new URL("..", import.meta.url).pathname;
const CHECKPOINTS_S = (Deno.env.get("BENCH_CHECKPOINTS_S") ?? "12,35").split(",").map(Number);
const passed = Object.fromEntries(
  Object.entries(Deno.env.toObject()).filter(([name]) => name.startsWith("HTTP_")),
);

const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const dbUrl = new URL(SERVER);
dbUrl.pathname = `/${name}`;
const dataDir = await Deno.makeTempDir();
const service = await startProcess(`${ROOT.replace(/\/$/, "")}/main.ts`, {
  DATABASE_URL: dbUrl.href,
  DATA_DIR: dataDir,
  ...passed,
});

/** Open connections, and the closed ones by the status they were answered with (0: none). */
function census(held: HeldConnection[]) {
  const closed: Record<string, number> = {};
  for (const h of held) {
    if (!h.result) continue;
    const status = String(statusOf(h.result.text));
    closed[status] = (closed[status] ?? 0) + 1;
  }
  return { open: held.filter((h) => !h.result).length, closed };
}

try {
  const port = service.port;
  const started = performance.now();
  const heads = await Promise.all(Array.from({ length: 300 }, () => trickleHead(port, 2_000)));
  const bodies = await Promise.all(
    Array.from({ length: 200 }, () => trickleBody(port, "/graphql", 1_000_000, 2_000)),
  );
  const partial = await Promise.all(Array.from({ length: 100 }, () => partialHead(port)));
  /** Each `/up` probe: its status (0: no answer within 5 s) and time. */
  const probed: { status: number; ms: number; error?: string }[] = [];
  let probing = true;
  const probes = (async () => {
    while (probing) {
      const t0 = performance.now();
      try {
        const up = await fetch(`${service.url}/up`, { signal: AbortSignal.timeout(5_000) });
        await up.body?.cancel();
        probed.push({ status: up.status, ms: performance.now() - t0 });
      } catch (err) {
        probed.push({ status: 0, ms: performance.now() - t0, error: String(err) });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  const upFigures = () => {
    const statuses: Record<string, number> = {};
    for (const p of probed) statuses[p.status] = (statuses[p.status] ?? 0) + 1;
    return {
      statuses,
      slowest_ms: Math.round(Math.max(0, ...probed.map((p) => p.ms))),
      errors: [...new Set(probed.flatMap((p) => p.error ? [p.error] : []))],
    };
  };
  const figures = [];
  for (const at of CHECKPOINTS_S) {
    const wait = started + at * 1000 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    figures.push({
      after_s: at,
      trickled_heads: census(heads),
      trickled_bodies: census(bodies),
      partial_heads: census(partial),
      up: upFigures(),
    });
  }
  probing = false;
  await probes;
  for (const h of [...heads, ...bodies, ...partial]) h.abandon();
  console.log(JSON.stringify({ root: ROOT, env: passed, figures }, null, 2));
} finally {
  await service.stop();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
  await Deno.remove(dataDir, { recursive: true });
}
