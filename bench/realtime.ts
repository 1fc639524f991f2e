/**
 * `deno task bench:realtime`: 1,000 concurrent graphql-ws subscribers of `notificationUpdate` on
 * one service process (real PostgreSQL and Redis), one event each published through Redis as
 * another instance would; reports delivery latency (publish to client receipt) and the service
 * process's memory per connection into bench/results/realtime.json.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database of its own
 * is created and dropped), BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_SUBSCRIBERS
 * (default 1000), BENCH_ROUNDS (default 3). Each round sends one event to every subscriber, either
 * all at once (burst: the latency includes the queue the burst builds) or spread over one second
 * (paced: 1,000 events/s, the delivery time of one event under that load).
 */
import postgres from "postgres";
import { createClient } from "graphql-ws";
import { startIdentityProvider } from "../tests/support/identity.ts";
import { startProcess } from "../tests/support/process.ts";
import { createRedisKv } from "../src/platform/kv-redis.ts";
import { createPubSub } from "../src/platform/pubsub.ts";
import { createLogger } from "../src/platform/log.ts";
import { systemClock } from "../src/platform/clock.ts";
import { notificationTopic } from "../src/features/notifications/rules.ts";

const SERVER = Deno.env.get("BENCH_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = Deno.env.get("BENCH_REDIS_URL") ?? "redis://127.0.0.1:6379";
const SUBSCRIBERS = Number(Deno.env.get("BENCH_SUBSCRIBERS") ?? 1000);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const round2 = (n: number) => Math.round(n * 100) / 100;

function rssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function inParallel(count: number, parallel: number, task: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await task(next++);
  }));
}

const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`;
const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const dbUrl = new URL(SERVER);
dbUrl.pathname = `/${name}`;
const idp = await startIdentityProvider(systemClock);
const dataDir = await Deno.makeTempDir();
// The bench publishes as the service does: both under one key prefix of their own.
const prefix = `${name}:`;
const service = await startProcess("main.ts", {
  ...idp.env,
  DATABASE_URL: dbUrl.href,
  REDIS_URL: REDIS,
  REDIS_KEY_PREFIX: prefix,
  DATA_DIR: dataDir,
  LOG_LEVEL: "info",
  // Every subscriber connects from this one address.
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: "0",
  CABLE_MAX_CONNECTIONS_PER_ADDRESS: "0",
});
const sql = postgres(dbUrl.href, { max: 2, onnotice: () => {} });
const kv = createRedisKv({ url: REDIS, log: createLogger({ level: "error" }), prefix });
const pubsub = createPubSub(kv);
const clients: ReturnType<typeof createClient>[] = [];

try {
  const wsUrl = `ws://127.0.0.1:${service.port}/cable`;
  const received = new Map<string, number>();
  const pending = new Map<string, () => void>();
  const subscribe = async (i: number) => {
    const token = await idp.token({ sub: `bench-${i}`, expiresIn: 3600 });
    const client = createClient({
      url: wsUrl,
      connectionParams: { SessionToken: token },
      retryAttempts: 0,
      lazy: false,
    });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.on("connected", () => resolve());
      client.on("closed", (e) => reject(new Error(`closed ${(e as CloseEvent).code}`)));
    });
    client.subscribe({ query: "subscription { notificationUpdate { id content } }" }, {
      next: (value) => {
        const at = performance.now();
        const n = value.data?.notificationUpdate as { id: string } | undefined;
        if (!n) return;
        received.set(n.id, at);
        pending.get(n.id)?.();
      },
      error: (err) => console.error("subscription error", err),
      complete: () => {},
    });
  };

  await subscribe(0);
  const rssOne = rssOf(service.child.pid);
  const connectStarted = performance.now();
  await inParallel(SUBSCRIBERS - 1, 50, (i) => subscribe(i + 1));
  const connectSeconds = (performance.now() - connectStarted) / 1000;

  const users = await sql<{ id: string; subject: string }[]>`select id, subject from users`;
  const userOf = new Map(users.map((u) => [u.subject, String(u.id)]));
  // Every subscription is live once a probe event reaches each subscriber.
  const probe = async (i: number, tag: string) => {
    const id = `${tag}-${i}`;
    const delivered = new Promise<void>((resolve) => pending.set(id, resolve));
    const topic = notificationTopic(userOf.get(`bench-${i}`)!);
    for (let attempt = 0; !received.has(id); attempt++) {
      await pubsub.publish(topic, { id, kind: "bench", content: "", acknowledged: false });
      await Promise.race([delivered, new Promise((r) => setTimeout(r, 200))]);
      if (attempt > 50) throw new Error(`subscriber ${i} never received ${id}`);
    }
    pending.delete(id);
  };
  await inParallel(SUBSCRIBERS, 50, (i) => probe(i, "ready"));
  const rssAll = rssOf(service.child.pid);

  /** One event per subscriber; `spreadMs` 0 publishes them all at once (a burst). */
  const runRound = async (tag: string, spreadMs: number): Promise<number[]> => {
    const sent = new Map<string, number>();
    const all = Array.from({ length: SUBSCRIBERS }, (_, i) => {
      const id = `${tag}-${i}`;
      return new Promise<void>((resolve) => pending.set(id, resolve));
    });
    const started = performance.now();
    const publishes: Promise<void>[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      if (spreadMs > 0) {
        const due = started + (spreadMs * i) / SUBSCRIBERS;
        while (performance.now() < due) await new Promise((r) => setTimeout(r, 0));
      }
      const id = `${tag}-${i}`;
      sent.set(id, performance.now());
      publishes.push(pubsub.publish(notificationTopic(userOf.get(`bench-${i}`)!), {
        id,
        kind: "bench",
        content: "x".repeat(100),
        acknowledged: false,
      }));
    }
    await Promise.all(publishes);
    await Promise.race([
      Promise.all(all),
      new Promise((_, reject) => setTimeout(() => reject(new Error("round timed out")), 30_000)),
    ]);
    return [...sent].map(([id, at]) => received.get(id)! - at);
  };
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      samples: sorted.length,
      p50_ms: round2(percentile(sorted, 0.5)),
      p99_ms: round2(percentile(sorted, 0.99)),
      max_ms: round2(sorted.at(-1)!),
    };
  };
  const burst: number[] = [];
  const paced: number[] = [];
  for (let r = 0; r < ROUNDS; r++) burst.push(...await runRound(`burst${r}`, 0));
  for (let r = 0; r < ROUNDS; r++) paced.push(...await runRound(`paced${r}`, 1000));

  const result = {
    measured_at: new Date().toISOString(),
    machine: `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores`,
    subscribers: SUBSCRIBERS,
    rounds: ROUNDS,
    protocol: "graphql-transport-ws",
    fan_out: "redis pub/sub, one service process",
    connect_seconds: round2(connectSeconds),
    load_average: Deno.loadavg().map(round2),
    "latency_burst: all events published at once": summary(burst),
    "latency_paced: events spread over 1 s": summary(paced),
    service_memory: {
      rss_one_connection_mib: round2(rssOne / 2 ** 20),
      rss_all_connections_mib: round2(rssAll / 2 ** 20),
      per_connection_kib: round2((rssAll - rssOne) / (SUBSCRIBERS - 1) / 1024),
    },
    target: "p99 under 100 ms",
  };
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL("./results/realtime.json", import.meta.url),
    JSON.stringify(result, null, 2) + "\n",
  );
  console.log(JSON.stringify(result, null, 2));
} finally {
  await Promise.all(clients.map((c) => c.dispose()));
  await service.stop();
  await kv.close();
  await sql.end();
  await idp.close();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
  await Deno.remove(dataDir, { recursive: true });
}
