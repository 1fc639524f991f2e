/**
 * The service's Prometheus metrics (docs/observability.md lists each one). One {@link Registry}
 * per app, built in `src/app.ts` and handed to the platform parts as the narrow hooks they call
 * (`DatabaseObserver`, `JobMetrics`, ...). Label values are bounded: route templates, job and
 * queue names the code registers, GraphQL operation names capped by {@link boundedNames}, error
 * codes, outcomes; never user ids.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export { Registry };

/** The content type of the Prometheus text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const JOB_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300];
const LLM_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Keeps a client-chosen label value (a GraphQL operation name) bounded: names that look like
 * identifiers pass until `limit` distinct ones were seen, everything else is `other`.
 */
export function boundedNames(limit: number): (name: string | null | undefined) => string {
  const seen = new Set<string>();
  return (name) => {
    if (!name) return "anonymous";
    if (seen.has(name)) return name;
    if (seen.size >= limit || !/^[A-Za-z_][\w.:-]{0,63}$/.test(name)) return "other";
    seen.add(name);
    return name;
  };
}

/** Figures read at scrape time (not counted on the request path). */
export interface ScrapeSources {
  queues?: () => Promise<{
    dead: number;
    queues: { name: string; size: number; latency: number }[];
  }>;
  cable?: () => Record<string, { connections: number; subscriptions: number }>;
  database?: () => { poolSize: number };
}

/**
 * The process figures every Prometheus client exports. prom-client's own defaults are Node's
 * (several read zero or NaN on Deno and some break the naming rules `promtool` checks).
 */
export function processMetrics(registry: Registry): void {
  const registers = [registry];
  new Gauge({
    name: "process_start_time_seconds",
    help: "Start time of the process since the Unix epoch in seconds.",
    registers,
  }).set(Math.round((Date.now() - performance.now()) / 1000));
  new Gauge({
    name: "process_heap_bytes",
    help: "V8 heap in use, in bytes.",
    registers,
    collect() {
      this.set(Deno.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    registers,
    collect() {
      this.set(Deno.memoryUsage().rss);
    },
  });
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

/** Builds every service metric in `registry` (a fresh one per app). */
export function createServiceMetrics(registry: Registry = new Registry()) {
  const registers = [registry];
  processMetrics(registry);
  const sources: ScrapeSources = {};

  const httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status code.",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from receiving a request to its response, by method and route template.",
    labelNames: ["method", "route"] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const graphqlOperations = new Counter({
    name: "graphql_operations_total",
    help: "GraphQL operations executed, by operation name and type.",
    labelNames: ["operation", "type"] as const,
    registers,
  });
  const graphqlDuration = new Histogram({
    name: "graphql_operation_duration_seconds",
    help: "Time to execute a GraphQL operation (parse to result), by operation name.",
    labelNames: ["operation"] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const graphqlErrors = new Counter({
    name: "graphql_errors_total",
    help: "Errors in GraphQL results, by operation name and extensions.code.",
    labelNames: ["operation", "code"] as const,
    registers,
  });
  const statementDuration = new Histogram({
    name: "db_statement_duration_seconds",
    help: "Time an awaited SQL statement took, queueing for a connection included.",
    labelNames: ["outcome"] as const,
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  const statementsInFlight = new Gauge({
    name: "db_statements_in_flight",
    help: "Statements awaited right now (running or waiting for a pool connection).",
    registers,
  });
  new Gauge({
    name: "db_pool_size",
    help: "Connections the database pool may open.",
    registers,
    collect() {
      const db = sources.database?.();
      if (db) this.set(db.poolSize);
    },
  });
  const redisErrors = new Counter({
    name: "redis_command_errors_total",
    help: "Redis commands that failed (timeouts and connection errors included), by command.",
    labelNames: ["command"] as const,
    registers,
  });
  const jobsEnqueued = new Counter({
    name: "jobs_enqueued_total",
    help: "Jobs added by this instance, by queue.",
    labelNames: ["queue"] as const,
    registers,
  });
  const jobsFinished = new Counter({
    name: "jobs_finished_total",
    help:
      "Job attempts run by this instance, by job name and outcome (processed, failed = will retry, dead).",
    labelNames: ["name", "outcome"] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: "job_duration_seconds",
    help: "Time a job attempt ran, by job name.",
    labelNames: ["name"] as const,
    buckets: JOB_BUCKETS,
    registers,
  });
  const queueSize = new Gauge({
    name: "job_queue_size",
    help: "Jobs waiting in each queue (all instances; read from the database at scrape).",
    labelNames: ["queue"] as const,
    registers,
  });
  const queueLatency = new Gauge({
    name: "job_queue_latency_seconds",
    help: "Age of the oldest due job in each queue (all instances; read at scrape).",
    labelNames: ["queue"] as const,
    registers,
  });
  new Gauge({
    name: "jobs_dead",
    help: "Jobs in the dead set (all instances; read at scrape).",
    registers,
    async collect() {
      const figures = await sources.queues?.().catch(() => undefined);
      if (!figures) return;
      this.set(figures.dead);
      queueSize.reset();
      queueLatency.reset();
      for (const q of figures.queues) {
        queueSize.set({ queue: q.name }, q.size);
        queueLatency.set({ queue: q.name }, q.latency);
      }
    },
  });
  const cableSubscriptions = new Gauge({
    name: "cable_subscriptions",
    help: "Live subscriptions on /cable, by protocol.",
    labelNames: ["protocol"] as const,
    registers,
  });
  new Gauge({
    name: "cable_connections",
    help: "Open /cable connections, by protocol.",
    labelNames: ["protocol"] as const,
    registers,
    collect() {
      const byProtocol = sources.cable?.();
      if (!byProtocol) return;
      this.reset();
      cableSubscriptions.reset();
      for (const [protocol, s] of Object.entries(byProtocol)) {
        this.set({ protocol }, s.connections);
        cableSubscriptions.set({ protocol }, s.subscriptions);
      }
    },
  });
  const webhooks = new Counter({
    name: "webhooks_received_total",
    help:
      "Webhooks received (workforce results, billing), by route and outcome (accepted or the refusing status).",
    labelNames: ["webhook", "outcome"] as const,
    registers,
  });
  const integrationCalls = new Counter({
    name: "integration_calls_total",
    help:
      "Outbound calls to integrations (runner dispatch, chat, GitHub, email drafts), by integration and outcome.",
    labelNames: ["integration", "outcome"] as const,
    registers,
  });
  const aiSpend = new Counter({
    name: "ai_spend_usd_total",
    help: "AI spend in US dollars, by employee role (workforce) or feature (coaching).",
    labelNames: ["employee"] as const,
    registers,
  });
  const llmDuration = new Histogram({
    name: "llm_request_duration_seconds",
    help: "Time of the service's own LLM calls (retries included), by model and outcome.",
    labelNames: ["model", "outcome"] as const,
    buckets: LLM_BUCKETS,
    registers,
  });

  const operationName = boundedNames(200);
  const errorCode = boundedNames(100);
  const modelName = boundedNames(50);

  return {
    registry,
    /** Registers what is read at scrape time. */
    sources(more: ScrapeSources) {
      Object.assign(sources, more);
    },
    httpRequest(requestMethod: string, route: string, status: number, seconds: number) {
      const method = HTTP_METHODS.has(requestMethod) ? requestMethod : "other";
      httpRequests.inc({ method, route, status });
      if (route.startsWith("/webhooks/")) {
        webhooks.inc({ webhook: route, outcome: status < 300 ? "accepted" : `http_${status}` });
      }
      httpDuration.observe({ method, route }, seconds);
    },
    graphqlOperation(
      name: string | null | undefined,
      type: string,
      seconds: number,
      errorCodes: readonly string[],
    ) {
      const operation = operationName(name);
      graphqlOperations.inc({ operation, type });
      graphqlDuration.observe({ operation }, seconds);
      for (const code of errorCodes) graphqlErrors.inc({ operation, code: errorCode(code) });
    },
    statementStarted() {
      statementsInFlight.inc();
    },
    statementFinished(seconds: number, failed: boolean) {
      statementsInFlight.dec();
      statementDuration.observe({ outcome: failed ? "error" : "ok" }, seconds);
    },
    redisError(command: string) {
      redisErrors.inc({ command: command.toLowerCase() });
    },
    jobsEnqueued(queue: string, count = 1) {
      if (count > 0) jobsEnqueued.inc({ queue }, count);
    },
    jobFinished(name: string, outcome: "processed" | "failed" | "dead", seconds: number) {
      jobsFinished.inc({ name, outcome });
      jobDuration.observe({ name }, seconds);
    },
    integrationCall(integration: string, outcome: string) {
      integrationCalls.inc({ integration, outcome });
    },
    aiSpend(employee: string, usd: number) {
      if (usd > 0) aiSpend.inc({ employee }, usd);
    },
    llmCall(model: string, outcome: string, seconds: number) {
      llmDuration.observe({ model: modelName(model), outcome }, seconds);
    },
    /** The Prometheus text exposition of every metric. */
    render: () => registry.metrics(),
  };
}

/** The origin of `url`, or null when it is not a URL. */
function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * `fetch` counting each outbound call as `integration_calls_total`: the integration named by the
 * configured URL whose origin the call goes to (`other` for the rest), and `ok`, `http_4xx`,
 * `http_5xx` or `error` (no answer).
 */
export function countingFetch(
  inner: typeof fetch,
  integrations: Record<string, string | undefined>,
  metrics: { integrationCall(integration: string, outcome: string): void },
): typeof fetch {
  const byOrigin = new Map<string, string>();
  for (const [name, url] of Object.entries(integrations)) {
    const origin = originOf(url);
    if (origin && !byOrigin.has(origin)) byOrigin.set(origin, name);
  }
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const integration = byOrigin.get(originOf(url) ?? "") ?? "other";
    try {
      const res = await inner(input, init);
      const outcome = res.status >= 500 ? "http_5xx" : res.status >= 400 ? "http_4xx" : "ok";
      metrics.integrationCall(integration, outcome);
      return res;
    } catch (err) {
      metrics.integrationCall(integration, "error");
      throw err;
    }
  };
}
