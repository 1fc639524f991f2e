/**
 * Typed system errors and the error tracker.
 *
 * The tracker speaks Sentry's envelope protocol to any Sentry-compatible DSN; without a DSN it
 * only logs. Reporting never throws and never blocks the caller for long.
 */
import type { LogFields, Logger } from "./log.ts";
import { errorFields } from "./log.ts";

/** A failure of the system (not of the user's input); masked at the boundary. */
export class SystemError extends Error {
  constructor(message: string, readonly details: LogFields = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = "SystemError";
  }
}

export interface ErrorTracker {
  /** Reports an unexpected error. */
  captureError(err: unknown, context?: LogFields): void;
  /** Reports a warning worth an operator's attention (e.g. a failed webhook signature). */
  captureWarning(message: string, context?: LogFields): void;
  /** Resolves when every report in flight has been sent (or failed). */
  flush(): Promise<void>;
}

interface Dsn {
  envelopeUrl: string;
  publicKey: string;
}

/** Parses `scheme://key@host[:port][/path]/project`. */
export function parseDsn(dsn: string): Dsn {
  const url = new URL(dsn);
  const segments = url.pathname.split("/").filter(Boolean);
  const project = segments.pop();
  if (!url.username || !project) throw new Error("ERROR_TRACKER_DSN lacks a key or project id");
  const prefix = segments.length ? `/${segments.join("/")}` : "";
  return {
    envelopeUrl: `${url.protocol}//${url.host}${prefix}/api/${project}/envelope/`,
    publicKey: url.username,
  };
}

function eventId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function exceptionOf(err: unknown) {
  const e = err instanceof Error ? err : new Error(String(err));
  return { values: [{ type: e.name, value: e.message, stacktrace: { frames: stackFrames(e) } }] };
}

function stackFrames(e: Error) {
  return (e.stack ?? "").split("\n").slice(1).reverse().map((line) => ({
    function: line.trim().replace(/^at /, ""),
  }));
}

export interface TrackerOptions {
  dsn?: string;
  log: Logger;
  environment?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export function createErrorTracker(options: TrackerOptions): ErrorTracker {
  const { log } = options;
  const pending = new Set<Promise<void>>();
  const dsn = options.dsn ? parseDsn(options.dsn) : undefined;
  const doFetch = options.fetch ?? fetch;

  const send = (event: Record<string, unknown>) => {
    if (!dsn) return;
    const id = eventId();
    const body = [
      JSON.stringify({ event_id: id, sent_at: new Date().toISOString(), dsn: options.dsn }),
      JSON.stringify({ type: "event" }),
      JSON.stringify({
        event_id: id,
        timestamp: Date.now() / 1000,
        platform: "javascript",
        environment: options.environment ?? "production",
        ...event,
      }),
    ].join("\n");
    const p = doFetch(dsn.envelopeUrl, {
      method: "POST",
      headers: {
        "content-type": "application/x-sentry-envelope",
        "x-sentry-auth":
          `Sentry sentry_version=7, sentry_key=${dsn.publicKey}, sentry_client=goals-service/1.0`,
      },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    }).then(async (res) => {
      await res.body?.cancel();
      if (!res.ok) log.warn("error tracker refused a report", { status: res.status });
    }).catch((err) => log.warn("error tracker unreachable", errorFields(err)))
      .finally(() => pending.delete(p));
    pending.add(p);
  };

  return {
    captureError(err, context = {}) {
      log.error("unhandled error", { ...context, ...errorFields(err) });
      send({ level: "error", exception: exceptionOf(err), extra: context, tags: tagsOf(context) });
    },
    captureWarning(message, context = {}) {
      log.warn(message, context);
      send({ level: "warning", message: { formatted: message }, extra: context });
    },
    async flush() {
      await Promise.allSettled([...pending]);
    },
  };
}

function tagsOf(context: LogFields): Record<string, string> {
  const tags: Record<string, string> = {};
  if (typeof context.request_id === "string") tags.request_id = context.request_id;
  return tags;
}
