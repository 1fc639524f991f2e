/**
 * The request log: one single-line JSON entry per request (spec 6.5), with secrets filtered out
 * of `params`.
 */
import type { Logger } from "../platform/log.ts";
import type { RequestStats } from "../platform/request-context.ts";

const SECRET_KEY = /token|secret|password|passwd|authorization|signature|api[_-]?key|jwt|dsn/i;
const FILTERED = "[FILTERED]";

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

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  stats: RequestStats;
  params: Record<string, unknown>;
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
  });
}
