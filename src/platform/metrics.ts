/**
 * The service's Prometheus metrics (docs/observability.md lists each one). One {@link Registry}
 * per app, built in `src/app.ts` and handed to the platform parts as the narrow hooks they call
 * (`DatabaseObserver`, `JobMetrics`, ...). Label values are bounded: route templates, job and
 * queue names the code registers, GraphQL operation names capped by {@link boundedNames}, error
 * codes, outcomes; never user ids.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ScrapeSources, ServiceMetrics } from "./service-metrics.ts";
import { VERSION } from "./version.ts";

export { Registry };

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

/**
 * The process figures every Prometheus client exports. prom-client's own defaults are Node's
 * (several read zero or NaN on Deno and some break the naming rules `promtool` checks).
 */
export function processMetrics(registry: Registry): void {
  const m = metricsIn(registry, {
    process_start_time_seconds: "Start time of the process since the Unix epoch in seconds.",
    process_heap_bytes: "V8 heap in use, in bytes.",
    process_resident_memory_bytes: "Resident memory size in bytes.",
  });
  m.gauge("process_start_time_seconds").set(Math.round((Date.now() - performance.now()) / 1000));
  m.gauge("process_heap_bytes", [], (g) => g.set(Deno.memoryUsage().heapUsed));
  m.gauge("process_resident_memory_bytes", [], (g) => g.set(Deno.memoryUsage().rss));
}

/**
 * `<name>{version, deno} 1`: which build (src/platform/version.ts) on which Deno a process runs,
 * the Prometheus build-info convention (join on it to label other series with the version).
 */
export function buildInfoMetric(registry: Registry, name: string, program: string): void {
  metricsIn(registry, {
    [name]: `Always 1: the ${program}'s version (this build's) and the Deno version it runs on.`,
  }).gauge(name, ["version", "deno"]).set({ version: VERSION, deno: Deno.version.deno }, 1);
}

/** Declares metrics in `registry`, each with its `# HELP` text from `help`. */
export function metricsIn(registry: Registry, help: Record<string, string>) {
  const registers = [registry];
  const helpOf = (name: string) => help[name] ?? name;
  return {
    counter: <L extends string>(name: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help: helpOf(name), labelNames, registers }),
    histogram: <L extends string>(name: string, labelNames: readonly L[], buckets: number[]) =>
      new Histogram<L>({ name, help: helpOf(name), labelNames, buckets, registers }),
    /** A gauge; `collect` sets it at each scrape. */
    gauge: <L extends string>(
      name: string,
      labelNames: readonly L[] = [],
      collect?: (gauge: Gauge<L>) => void | Promise<void>,
    ) =>
      new Gauge<L>({
        name,
        help: helpOf(name),
        labelNames,
        registers,
        collect: collect && function (this: Gauge<L>) {
          return collect(this);
        },
      }),
  };
}

/** What each service metric means (its `# HELP`; docs/observability.md says more). */
const SERVICE_HELP: Record<string, string> = {
  http_requests_total: "HTTP requests answered, by method, route template and status code.",
  http_request_duration_seconds:
    "Time from receiving a request to its response, by method and route template.",
  graphql_operations_total: "GraphQL operations executed, by operation name and type.",
  graphql_operation_duration_seconds:
    "Time to execute a GraphQL operation (parse to result), by operation name.",
  graphql_errors_total: "Errors in GraphQL results, by operation name and extensions.code.",
  db_statement_duration_seconds:
    "Time an awaited SQL statement took, queueing for a connection included.",
  db_statements_in_flight:
    "Statements awaited right now (running or waiting for a pool connection).",
  redis_command_errors_total: "Redis commands that failed, by kind (timeout, error).",
  jobs_enqueued_total: "Jobs added by this instance, by queue.",
  jobs_finished_total:
    "Job attempts run by this instance, by job name and outcome (processed, failed = will retry, dead).",
  job_duration_seconds: "Time a job attempt ran, by job name.",
  job_queue_size: "Jobs waiting in each queue (all instances; read from the database at scrape).",
  job_queue_latency_seconds:
    "Age of the oldest due job in each queue (all instances; read at scrape).",
  cable_subscriptions: "Live subscriptions on /cable, by protocol.",
  webhooks_received_total:
    "Webhooks received (workforce results, billing), by route and outcome (accepted or the refusing status).",
  integration_calls_total:
    "Outbound calls to integrations (runner dispatch, chat, GitHub, email drafts), by integration and outcome.",
  ai_spend_usd_total: "AI spend in US dollars, by employee role (workforce) or feature (coaching).",
  llm_request_duration_seconds:
    "Time of the service's own LLM calls (retries included), by model and outcome.",
  db_pool_size: "Connections the database pool may open.",
  cable_connections: "Open /cable connections, by protocol.",
  jobs_dead: "Jobs in the dead set (all instances; read at scrape).",
};

/** Builds every service metric in `registry` (a fresh one per app). */
export function createServiceMetrics(registry: Registry = new Registry()): ServiceMetrics {
  const m = metricsIn(registry, SERVICE_HELP);
  processMetrics(registry);
  buildInfoMetric(registry, "goals_build_info", "service");
  const sources: ScrapeSources = {};

  const httpRequests = m.counter("http_requests_total", ["method", "route", "status"]);
  const httpDuration = m.histogram(
    "http_request_duration_seconds",
    ["method", "route"],
    HTTP_BUCKETS,
  );
  const graphqlOperations = m.counter("graphql_operations_total", ["operation", "type"]);
  const graphqlDuration = m.histogram(
    "graphql_operation_duration_seconds",
    ["operation"],
    HTTP_BUCKETS,
  );
  const graphqlErrors = m.counter("graphql_errors_total", ["operation", "code"]);
  const statementDuration = m.histogram(
    "db_statement_duration_seconds",
    ["outcome"],
    STATEMENT_BUCKETS,
  );
  const statementsInFlight = m.gauge("db_statements_in_flight");
  m.gauge("db_pool_size", [], (g) => {
    const db = sources.database?.();
    if (db) g.set(db.poolSize);
  });
  const redisErrors = m.counter("redis_command_errors_total", ["kind"]);
  const jobsEnqueued = m.counter("jobs_enqueued_total", [
    "queue",
  ]);
  const jobsFinished = m.counter("jobs_finished_total", ["name", "outcome"]);
  const jobDuration = m.histogram("job_duration_seconds", [
    "name",
  ], JOB_BUCKETS);
  const queueSize = m.gauge("job_queue_size", ["queue"]);
  const queueLatency = m.gauge("job_queue_latency_seconds", ["queue"]);
  m.gauge("jobs_dead", [], async (g) => {
    const figures = await sources.queues?.().catch(() => undefined);
    if (!figures) return;
    g.set(figures.dead);
    queueSize.reset();
    queueLatency.reset();
    for (const q of figures.queues) {
      queueSize.set({ queue: q.name }, q.size);
      queueLatency.set({ queue: q.name }, q.latency);
    }
  });
  const cableSubscriptions = m.gauge("cable_subscriptions", ["protocol"]);
  m.gauge("cable_connections", ["protocol"], (g) => {
    const byProtocol = sources.cable?.();
    if (!byProtocol) return;
    g.reset();
    cableSubscriptions.reset();
    for (const [protocol, s] of Object.entries(byProtocol)) {
      g.set({ protocol }, s.connections);
      cableSubscriptions.set({ protocol }, s.subscriptions);
    }
  });
  const webhooks = m.counter("webhooks_received_total", ["webhook", "outcome"]);
  const integrationCalls = m.counter("integration_calls_total", ["integration", "outcome"]);
  const aiSpend = m.counter("ai_spend_usd_total", ["employee"]);
  const llmDuration = m.histogram(
    "llm_request_duration_seconds",
    ["model", "outcome"],
    LLM_BUCKETS,
  );

  const operationName = boundedNames(200);
  const errorCode = boundedNames(100);
  const modelName = boundedNames(50);

  return {
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
    redisError(kind: string) {
      redisErrors.inc({ kind });
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
    render: () => registry.metrics(),
  };
}
