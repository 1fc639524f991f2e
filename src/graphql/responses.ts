/** The answers `/graphql` gives without running an operation: refusals with a GraphQL body. */
import { json } from "../http/router.ts";
import { retryAfterHeader } from "../http/request-limits.ts";
import type { RateVerdict } from "../platform/rate-limit.ts";
import { codedError, SERVICE_UNAVAILABLE_MESSAGE, serviceUnavailableExtensions } from "./errors.ts";

export function unauthenticatedResponse(message: string): Response {
  return json({ errors: [{ message, extensions: { code: "UNAUTHENTICATED" } }] }, 401);
}

/** The top-level error of a refused request (over HTTP or a WebSocket). */
export const rateLimited = (verdict: RateVerdict) =>
  codedError("RATE_LIMITED", `too many requests: retry after ${verdict.retryAfterSeconds} s`, {
    retryAfter: verdict.retryAfterSeconds,
  });

export function rateLimitedResponse(verdict: RateVerdict): Response {
  return json({ errors: [rateLimited(verdict).toJSON()] }, 429, retryAfterHeader(verdict));
}

export function requestErrorResponse(status: number, message: string): Response {
  return json({ errors: [{ message, extensions: { code: "BAD_USER_INPUT" } }] }, status);
}

const BODYLESS_REFUSALS: Record<number, string> = {
  406: "not acceptable: accept application/graphql-response+json or application/json",
  415: "unsupported content type: send application/json",
};

/** Yoga refuses some requests with a bare status; callers get a GraphQL-shaped body for each. */
export function withErrorBody(response: Response): Response {
  const message = BODYLESS_REFUSALS[response.status];
  if (!message || response.headers.get("content-type")) return response;
  return requestErrorResponse(response.status, message);
}

/** A whole request refused because a dependency is down (identifying the caller, say). */
export function serviceUnavailableResponse(): Response {
  const { http, ...extensions } = serviceUnavailableExtensions() as {
    http: { status: number; headers: Record<string, string> };
  };
  return json(
    { errors: [{ message: SERVICE_UNAVAILABLE_MESSAGE, extensions }] },
    http.status,
    http.headers,
  );
}
