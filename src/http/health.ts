/**
 * `GET /health` (spec 2.1, 3.5) and `GET /up`. Beside the spec's fields the body says which build
 * answers: `version` (src/platform/version.ts).
 *
 * Every check runs concurrently under its own timeout, so a hung dependency turns into an
 * `error` check instead of a hung health endpoint.
 */
import type { Database } from "../platform/db.ts";
import type { KvStore } from "../platform/kv.ts";
import type { QueueFigures } from "../platform/jobs/types.ts";
import { queueFigures } from "../platform/jobs/store.ts";
import type { Clock } from "../platform/clock.ts";
import type { Config } from "../config.ts";
import { VERSION } from "../platform/version.ts";

export type { QueueFigures };
import { json } from "./router.ts";

export type CheckStatus = "ok" | "error" | "degraded" | "not_applicable";

export interface HealthDeps {
  db: Database;
  kv: KvStore;
  /** Job-queue figures (the `sidekiq` check). */
  queueFigures: () => Promise<QueueFigures>;
  deadThreshold: number;
  llmBaseUrl?: string;
  fetch: typeof fetch;
  now: () => Date;
  /** Per-check time limit. */
  checkTimeoutMs?: number;
}

type Check = { status: CheckStatus; message?: string } & Record<string, unknown>;

class CheckTimeout extends Error {}

async function withTimeout<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckTimeout(`timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function failure(err: unknown): Check {
  return { status: "error", message: err instanceof Error ? err.message : String(err) };
}

async function checkDatabase(db: Database): Promise<Check> {
  const [row] = await db.sql<{ active: number; max: number }[]>`
    select (select count(*)::int from pg_stat_activity where datname = current_database()) as active,
           current_setting('max_connections')::int as max`;
  return { status: "ok", active_connections: row.active, max_connections: row.max };
}

async function checkLlm(deps: HealthDeps, signal: AbortSignal): Promise<Check> {
  if (!deps.llmBaseUrl) return { status: "ok", message: "not configured" };
  const url = `${deps.llmBaseUrl.replace(/\/$/, "")}/health/liveliness`;
  const res = await deps.fetch(url, { signal });
  await res.body?.cancel();
  return res.ok
    ? { status: "ok" }
    : { status: "error", message: `liveness answered ${res.status}` };
}

async function checkQueue(deps: HealthDeps): Promise<Check> {
  const figures = await deps.queueFigures();
  // The cumulative `failed` counter never gates (spec 3.5): only the dead set does.
  const status: CheckStatus = figures.dead > deps.deadThreshold ? "degraded" : "ok";
  return {
    status,
    ...figures,
    ...(status === "degraded"
      ? { message: `${figures.dead} dead jobs exceed the threshold of ${deps.deadThreshold}` }
      : {}),
  };
}

export async function healthReport(deps: HealthDeps): Promise<{ body: unknown; status: number }> {
  const ms = deps.checkTimeoutMs ?? 2000;
  const run = (fn: (signal: AbortSignal) => Promise<Check>) => withTimeout(ms, fn).catch(failure);
  const [database, redis, sidekiq, litellm] = await Promise.all([
    run(() => checkDatabase(deps.db)),
    run(async () => {
      await deps.kv.ping();
      return { status: "ok" } as Check;
    }),
    run(() => checkQueue(deps)),
    run((signal) => checkLlm(deps, signal)),
  ]);
  const checks = {
    database,
    redis,
    sidekiq,
    litellm,
    agent_runner: {
      status: "not_applicable" as const,
      message: "the agent runner is a separate service with its own /health",
    },
  };
  const healthy = [database, redis, sidekiq, litellm].every((c) => c.status === "ok");
  return {
    status: healthy ? 200 : 503,
    body: {
      status: healthy ? "ok" : "degraded",
      timestamp: deps.now().toISOString(),
      version: VERSION,
      checks,
    },
  };
}

export async function healthResponse(deps: HealthDeps): Promise<Response> {
  const report = await healthReport(deps);
  return json(report.body, report.status, { "cache-control": "no-store" });
}

/**
 * The service's `GET /health`: every check runs against the live dependencies (the queue figures
 * are read from the jobs tables), so it answers the same before and after the app is built.
 */
export function serviceHealth(deps: {
  config: Pick<Config, "sidekiqDeadThreshold" | "llmBaseUrl">;
  db: Database;
  kv: KvStore;
  clock: Clock;
  fetch: typeof fetch;
}): () => Promise<Response> {
  return () =>
    healthResponse({
      db: deps.db,
      kv: deps.kv,
      queueFigures: () => queueFigures(deps.db.sql, deps.clock.now()),
      deadThreshold: deps.config.sidekiqDeadThreshold,
      llmBaseUrl: deps.config.llmBaseUrl,
      fetch: deps.fetch,
      now: () => deps.clock.now(),
    });
}

export function upResponse(shuttingDown: boolean): Response {
  return new Response(shuttingDown ? "shutting down" : "ok", {
    status: shuttingDown ? 503 : 200,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
