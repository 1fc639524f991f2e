/** Which driver failures mean the server cannot be reached, and the typed error they become. */
import { DependencyUnavailableError } from "../dependency.ts";

const CONNECTION_ERROR_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // SQLSTATE: query_canceled (statement timeout), admin/crash shutdown, cannot connect now,
  // too many connections.
  "57014",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

/**
 * True for a failure to reach the server (not a refusal of a statement). The driver also rejects
 * such failures where nobody awaits (fetching type metadata on a fresh connection as the server
 * dies): the process's unhandled-rejection handler uses this to log them as an outage.
 */
export function isDatabaseConnectionFailure(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = String((err as { code?: unknown }).code ?? "");
  // SQLSTATE class 08: connection exception.
  return CONNECTION_ERROR_CODES.has(code) || code.startsWith("08");
}

/** A failure to reach the server becomes the typed error. */
export function asDependencyError(err: unknown): unknown {
  if (err instanceof DependencyUnavailableError || !isDatabaseConnectionFailure(err)) return err;
  const code = String((err as { code?: unknown }).code ?? "");
  const message = err instanceof Error ? err.message : code;
  return new DependencyUnavailableError("database", message, { cause: err });
}
