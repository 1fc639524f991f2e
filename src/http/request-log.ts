/**
 * The request log: one single-line JSON entry per request (spec 6.5). What reaches `params` is
 * allow-listed, because a secret can arrive under any name (`?sig=`, `?key=`, a GraphQL variable
 * called `$t`): of a query string only its keys are kept, of GraphQL variables only numbers,
 * booleans and the shape (see `graphql/log-params.ts`), and no header at all. Values under
 * secret-looking keys are filtered once more before writing, for params a handler sets itself.
 */
import type { Logger } from "../platform/log.ts";
import type { RequestStats } from "../platform/request-context.ts";

const SECRET_KEY = /token|secret|password|passwd|authorization|signature|api[_-]?key|jwt|dsn/i;
export const FILTERED = "[FILTERED]";
const MAX_KEYS = 20;
const MAX_KEY_LENGTH = 64;

/** Replaces values under secret-looking keys, at any depth. */
export function filterParams(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[DEEP]";
  if (Array.isArray(value)) return value.map((v) => filterParams(v, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map((
        [k, v],
      ) => [k, SECRET_KEY.test(k) ? FILTERED : filterParams(v, depth + 1)]),
    );
  }
  return value;
}

/** A client-chosen name as the log keeps it: bounded, so a log line stays one short line. */
export const loggedName = (name: string) =>
  name.length > MAX_KEY_LENGTH ? `${name.slice(0, MAX_KEY_LENGTH)}…` : name;

/** The keys of a query string, never its values (`{ query_keys: ["page", "sig"] }`). */
export function queryLogParams(url: URL): Record<string, unknown> {
  const keys = [...new Set(url.searchParams.keys())];
  if (!keys.length) return {};
  return { query_keys: keys.slice(0, MAX_KEYS).map(loggedName) };
}

export interface RequestLogEntry {
  method: string;
  /** Null for a request whose URL could not be read (a malformed `Host`). */
  path: string | null;
  status: number;
  durationMs: number;
  stats: RequestStats;
  params: Record<string, unknown>;
  /** The OpenTelemetry trace of the request; undefined when not tracing. */
  traceId?: string;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export function writeRequestLog(log: Logger, entry: RequestLogEntry): void {
  const db = round(entry.stats.dbMs);
  const duration = round(entry.durationMs);
  log.info("request", {
    method: entry.method,
    path: entry.path,
    status: entry.status,
    duration,
    db,
    // Time not spent waiting on the database: executing resolvers and rendering the response.
    view: round(Math.max(0, duration - db)),
    request_id: entry.stats.requestId,
    user_id: entry.stats.userId ?? null,
    graphql_operation: entry.stats.graphqlOperation ?? null,
    statements: entry.stats.statements,
    params: filterParams(entry.params),
    ...(entry.traceId ? { trace_id: entry.traceId } : {}),
  });
}
