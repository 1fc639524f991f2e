/**
 * The scale-out topology on loopback, as an operator runs it: PostgreSQL (a database of its own on
 * the server at `CLUSTER_DATABASE_URL`, default the local one), a Redis of its own (so it can be
 * restarted), PgBouncer in transaction mode (19 pooled server connections; with the instances'
 * LISTEN and start-up connections at most 25), three service instances and two agent runners,
 * HAProxy in front of both (`deploy/haproxy.cfg`), a stand-in identity provider, the fake LLM
 * the runners call and a chat webhook.
 */
import postgres from "postgres";
import { freePort, type OwnServer, startOwnRedis } from "../tests/support/servers.ts";
import { type IdentityProvider, startIdentityProvider } from "../tests/support/identity.ts";
import { type FakeLlm, reply, startFakeLlm } from "../tests/support/fake-llm.ts";
import { type FakeServer, startFakeServer } from "../tests/support/http.ts";
import { systemClock } from "../src/platform/clock.ts";
import { type PgBouncer, startPgBouncer } from "./pgbouncer.ts";
import { type Managed, managed } from "./processes.ts";

export const HAPROXY_CONFIG = new URL("../deploy/haproxy.cfg", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const RUNNER_MAIN = new URL("../runner/main.ts", import.meta.url).pathname;
const SKILLS_DIR = new URL("../runner/skills", import.meta.url).pathname;

export const WORKFORCE_SECRET = "cluster-workforce-secret";
export const BILLING_SECRET = "cluster-billing-secret";
export const ADMIN_SUBJECT = "cluster-admin";
/** Pooled server connections; 3 instances add one LISTEN connection each and one at start. */
export const POOLED_CONNECTIONS = 19;
export const STATEMENT_TIMEOUT_MS = 5000;

export interface TopologyOptions {
  serverUrl?: string;
  instances?: number;
  runners?: number;
  /** How long the fake LLM takes per answer (a run lasts about two answers). */
  llmDelayMs?: number;
  /** Where logs and rendered configurations go (default: a new temporary folder). */
  dir?: string;
}

export interface Topology {
  dir: string;
  /** HAProxy's service frontend. */
  url: string;
  runnerUrl: string;
  databaseName: string;
  /** The database directly (for the invariant checks). */
  directUrl: string;
  services: Managed[];
  runners: Managed[];
  redis: OwnServer;
  pgbouncer: PgBouncer;
  haproxy: Managed;
  idp: IdentityProvider;
  llm: FakeLlm;
  chat: FakeServer;
  /** Where each part listens, one line each. */
  describe(): string[];
  close(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
  await res?.body?.cancel();
  return res?.status === 200;
}

export async function startTopology(options: TopologyOptions = {}): Promise<Topology> {
  const serverUrl = options.serverUrl ?? Deno.env.get("CLUSTER_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "cluster-" });
  const cleanup: (() => Promise<unknown>)[] = [];
  const closeAll = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  };
  try {
    const databaseName = `cluster_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${databaseName}`);
    cleanup.push(async () => {
      await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
      await admin.end();
    });
    const direct = new URL(serverUrl);
    direct.pathname = `/${databaseName}`;

    const redis = await startOwnRedis();
    cleanup.push(() => redis.close());
    const pgbouncer = await startPgBouncer({
      serverUrl,
      dir,
      maxServerConnections: POOLED_CONNECTIONS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    cleanup.push(() => pgbouncer.stop());
    const idp = await startIdentityProvider(systemClock);
    cleanup.push(() => idp.close());
    const llm = startFakeLlm();
    llm.fallback = reply.json(
      { kind: "report", title: "Weekly report", payload: "Sign-ups rose." },
      { delayMs: options.llmDelayMs ?? 1500, costUsd: 0.001 },
    );
    cleanup.push(() => llm.close());
    const chat = startFakeServer(() => Response.json({ ok: true }));
    cleanup.push(() => chat.close());

    const servicePort = freePort();
    const runnerPort = freePort();
    const url = `http://127.0.0.1:${servicePort}`;
    const runnerUrl = `http://127.0.0.1:${runnerPort}`;

    const runners = Array.from({ length: options.runners ?? 2 }, (_, i) => {
      const port = freePort();
      return managed({
        name: `runner${i + 1}`,
        port,
        command: [Deno.execPath(), "run", "-A", RUNNER_MAIN],
        env: {
          PORT: String(port),
          HOST: "127.0.0.1",
          WEBHOOK_URL: `${url}/webhooks/ai-workforce`,
          WEBHOOK_SECRET: WORKFORCE_SECRET,
          LLM_BASE_URL: `${llm.url}/v1`,
          LLM_API_KEY: "sk-cluster",
          SKILLS_DIR,
          LOG_LEVEL: "warn",
        },
        logDir: dir,
        ready: () => answers(`http://127.0.0.1:${port}/health`),
      });
    });
    const services = Array.from({ length: options.instances ?? 3 }, (_, i) => {
      const port = freePort();
      return managed({
        name: `service${i + 1}`,
        port,
        command: [Deno.execPath(), "run", "-A", MAIN, "serve"],
        env: {
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: `${dir}/data${i + 1}`,
          DATABASE_URL: pgbouncer.urlFor(direct.href),
          DATABASE_DIRECT_URL: direct.href,
          DATABASE_POOL_SIZE: "8",
          DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
          REDIS_URL: redis.url,
          ...idp.env,
          ADMIN_SUBJECTS: ADMIN_SUBJECT,
          WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET,
          BILLING_WEBHOOK_SECRET: BILLING_SECRET,
          RUNNER_URL: runnerUrl,
          CHAT_WEBHOOK_URL: `${chat.url}/services/T000/B000/cluster`,
          CHAT_WEBHOOK_ALLOWED_HOST: `127.0.0.1:${chat.port}`,
          // Counted in Redis on every request, never reached by the workload.
          RATE_LIMIT_USER_PER_MINUTE: "100000",
          TRUST_PROXY_HOPS: "1",
          LOG_LEVEL: "warn",
          SHUTDOWN_DRAIN_MS: "2000",
          SHUTDOWN_TIMEOUT_MS: "2000",
        },
        logDir: dir,
        ready: () => answers(`http://127.0.0.1:${port}/up`),
      });
    });
    // The first instance migrates alone; the others then find the schema up to date.
    await services[0].start();
    cleanup.push(() => services[0].stop());
    await Promise.all(
      services.slice(1).map(async (s) => {
        await s.start();
        cleanup.push(() => s.stop());
      }),
    );
    await Promise.all(runners.map(async (r) => {
      await r.start();
      cleanup.push(() => r.stop());
    }));

    const env: Record<string, string> = {
      SERVICE_BIND: `127.0.0.1:${servicePort}`,
      RUNNER_BIND: `127.0.0.1:${runnerPort}`,
    };
    services.forEach((s, i) => env[`SERVICE_${i + 1}`] = `127.0.0.1:${s.port}`);
    runners.forEach((r, i) => env[`RUNNER_${i + 1}`] = `127.0.0.1:${r.port}`);
    const haproxy = managed({
      name: "haproxy",
      port: servicePort,
      command: ["/usr/sbin/haproxy", "-db", "-f", HAPROXY_CONFIG],
      env,
      logDir: dir,
      ready: () => answers(`${url}/up`),
    });
    await haproxy.start();
    cleanup.push(() => haproxy.stop());

    return {
      dir,
      url,
      runnerUrl,
      databaseName,
      directUrl: direct.href,
      services,
      runners,
      redis,
      pgbouncer,
      haproxy,
      idp,
      llm,
      chat,
      describe: () => [
        `load balancer (HAProxy)  ${url}  (GraphQL ${url}/graphql, WebSocket ws://127.0.0.1:${servicePort}/cable)`,
        `runners via HAProxy      ${runnerUrl}`,
        ...services.map((s) => `${s.name.padEnd(24)} http://127.0.0.1:${s.port}`),
        ...runners.map((r) => `${r.name.padEnd(24)} http://127.0.0.1:${r.port}`),
        `PgBouncer (transaction)  ${pgbouncer.urlFor(direct.href)}`,
        `PostgreSQL (direct)      ${direct.href}`,
        `Redis                    ${redis.url}`,
        `identity provider JWKS   ${idp.jwksUrl}`,
        `fake LLM                 ${llm.url}/v1`,
        `chat webhook             ${chat.url}`,
        `logs and configuration   ${dir}`,
      ],
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
