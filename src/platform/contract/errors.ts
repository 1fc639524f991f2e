/**
 * The error answers of every JSON endpoint outside GraphQL, in both programs (the service's
 * webhooks, integration endpoints and unknown routes; the runner's endpoints): one body shape,
 * `{"error": <code>, "message": <for people>, "request_id"?: <id>}`, and one closed set of codes.
 * docs/architecture.md lists when each is used.
 */

export const HTTP_ERRORS = {
  /** 400: the request itself is malformed (a `Host` header that is no host name and port). */
  bad_request: 400,
  /** 400: the body is not JSON (or not UTF-8). */
  malformed_json: 400,
  /** 400: JSON that fails validation; the message says which field and why. */
  invalid_body: 400,
  /** 401: missing or invalid signature or authorization, or the shared secret is unset. */
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  /** 408: the request's head or body did not arrive in time; the connection is closed. */
  request_timeout: 408,
  payload_too_large: 413,
  /** 422: a well-formed result for a run that does not exist. */
  unknown_run: 422,
  /** 422: a report could not be computed from the data as it is. */
  computation_failed: 422,
  /** 429: over a request rate limit; `Retry-After` says when to try again. */
  rate_limited: 429,
  /** 429: the client address holds as many connections (or sockets) as it may. */
  too_many_connections: 429,
  internal_error: 500,
  /** 503: the program holds as many connections as it may; try again shortly. */
  at_capacity: 503,
  /** 503: the program is stopping and takes no new work. */
  shutting_down: 503,
  /** 503: a dependency (the database, the key-value store) is down; retry after `Retry-After`. */
  service_unavailable: 503,
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

/** The JSON error answer of `code` (its status is fixed by the code). */
export function errorResponse(
  code: HttpErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  return new Response(JSON.stringify({ error: code, message, ...extra }), {
    status: HTTP_ERRORS[code],
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
