/**
 * The soak's clients, all through the load balancer: GraphQL over HTTP with a latency and outcome
 * per operation, `notificationUpdate` subscribers on `/cable` that reconnect (and resubscribe)
 * when their instance dies, signed webhook and export calls.
 */
import { createClient } from "graphql-ws";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../src/platform/hmac.ts";

export interface Sample {
  op: string;
  at: number;
  ms: number;
  /** "ok" or the kind of error. */
  outcome: string;
  /** What a failed operation threw, for the report. */
  detail?: string;
}

export class Metrics {
  samples: Sample[] = [];

  /** Times `work`; its outcome is "ok", the {@link OpError}'s kind, "timeout" or "network". */
  async time<T>(op: string, work: () => Promise<T>): Promise<T> {
    const at = performance.now();
    let outcome = "ok";
    let detail: string | undefined;
    try {
      return await work();
    } catch (err) {
      outcome = err instanceof OpError
        ? err.kind
        : err instanceof DOMException && err.name === "TimeoutError"
        ? "timeout"
        : "network";
      detail = String((err as Error)?.message ?? err).slice(0, 200);
      throw err;
    } finally {
      this.samples.push({ op, at, ms: performance.now() - at, outcome, detail });
    }
  }
}

/** An answer that is not a success, by kind (`http_502`, `graphql_SERVICE_UNAVAILABLE`, ...). */
export class OpError extends Error {
  constructor(readonly kind: string, op: string) {
    super(`${op}: ${kind}`);
  }
}

// deno-lint-ignore no-explicit-any
type Data = any;

export function graphqlClient(url: string, metrics: Metrics) {
  /** One GraphQL request; throws {@link OpError} unless it answered 200 without errors. */
  return (op: string, token: string, query: string, variables: Record<string, unknown> = {}) =>
    metrics.time<Data>(op, async () => {
      const res = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      if (res.status !== 200) throw new OpError(`http_${res.status}`, op);
      const body = JSON.parse(text);
      if (body.errors?.length) {
        throw new OpError(`graphql_${body.errors[0].extensions?.code ?? "error"}`, op);
      }
      return body.data;
    });
}

export type Gql = ReturnType<typeof graphqlClient>;

/** A signed POST (the runner webhook's and the feedback export's `X-Workforce-Signature`). */
export async function signedPost(
  url: string,
  secret: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const text = JSON.stringify(body);
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: await hmacSha256Hex(secret, text),
      ...headers,
    },
    body: text,
    signal: AbortSignal.timeout(15_000),
  });
}

export interface Subscriber {
  /** Notification ids received, with how often each came. */
  received: Map<string, number>;
  /** Times (performance.now()) a notification arrived. */
  arrivals: number[];
  reconnects: number;
  dispose(): void;
}

/** A `notificationUpdate` subscriber that reconnects for ever (every 300 to 800 ms). */
export async function subscribe(wsUrl: string, token: string): Promise<Subscriber> {
  const received = new Map<string, number>();
  const arrivals: number[] = [];
  let connections = 0;
  const client = createClient({
    url: wsUrl,
    connectionParams: { SessionToken: token },
    retryAttempts: Number.MAX_SAFE_INTEGER,
    shouldRetry: () => true,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 500)),
    lazy: false,
    keepAlive: 10_000,
  });
  const connected = new Promise<void>((resolve) =>
    client.on("connected", () => {
      connections++;
      resolve();
    })
  );
  client.subscribe({ query: "subscription { notificationUpdate { id kind } }" }, {
    next: (value) => {
      const n = value.data?.notificationUpdate as { id: string } | undefined;
      if (!n) return;
      arrivals.push(performance.now());
      received.set(n.id, (received.get(n.id) ?? 0) + 1);
    },
    error: () => {},
    complete: () => {},
  });
  await connected;
  return {
    received,
    arrivals,
    get reconnects() {
      return Math.max(0, connections - 1);
    },
    dispose: () => void client.dispose(),
  };
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0;

export const round = (n: number) => Math.round(n * 10) / 10;
