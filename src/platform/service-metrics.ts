/**
 * What the service records as metrics: the hooks its parts call ({@link ServiceMetrics}), and a
 * recorder that records nothing for an instance that serves no metrics (neither `METRICS_TOKEN`
 * nor `METRICS_PORT` set), so such an instance never loads the Prometheus client. The recording
 * implementation is `src/platform/metrics.ts`.
 */

/** Figures read at scrape time (not counted on the request path). */
export interface ScrapeSources {
  queues?: () => Promise<{
    dead: number;
    queues: { name: string; size: number; latency: number }[];
  }>;
  cable?: () => Record<string, { connections: number; subscriptions: number }>;
  database?: () => { poolSize: number };
}

/** The service's metrics as its parts report them (docs/observability.md lists each one). */
export interface ServiceMetrics {
  /** Registers what is read at scrape time. */
  sources(more: ScrapeSources): void;
  httpRequest(requestMethod: string, route: string, status: number, seconds: number): void;
  graphqlOperation(
    name: string | null | undefined,
    type: string,
    seconds: number,
    errorCodes: readonly string[],
  ): void;
  statementStarted(): void;
  statementFinished(seconds: number, failed: boolean): void;
  redisError(kind: string): void;
  jobsEnqueued(queue: string, count?: number): void;
  jobFinished(name: string, outcome: "processed" | "failed" | "dead", seconds: number): void;
  integrationCall(integration: string, outcome: string): void;
  aiSpend(employee: string, usd: number): void;
  llmCall(model: string, outcome: string, seconds: number): void;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
}

/** Metrics that record nothing and render as empty text. */
export function unrecordedMetrics(): ServiceMetrics {
  const nothing = () => {};
  return {
    sources: nothing,
    httpRequest: nothing,
    graphqlOperation: nothing,
    statementStarted: nothing,
    statementFinished: nothing,
    redisError: nothing,
    jobsEnqueued: nothing,
    jobFinished: nothing,
    integrationCall: nothing,
    aiSpend: nothing,
    llmCall: nothing,
    render: () => Promise.resolve(""),
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
