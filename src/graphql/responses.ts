/**
 * The answers `/graphql` gives without running an operation: refusals with a GraphQL body, in the
 * media type the client asked for (GraphQL over HTTP), as yoga chooses it for a result.
 */
import { type RequestVerdict, retryAfterHeader } from "../http/request-limits.ts";
import { codedError, SERVICE_UNAVAILABLE_MESSAGE, serviceUnavailableExtensions } from "./errors.ts";

const GRAPHQL_RESPONSE = "application/graphql-response+json";
const JSON_TYPE = "application/json";

const matches = (asked: string, type: string) => {
  const [askedMain, askedSub] = asked.split("/");
  const [main, sub] = type.split("/");
  return (askedMain === "*" || askedMain === main) && (askedSub === "*" || askedSub === sub);
};

/**
 * The media type a GraphQL answer to `req` is sent in: the first range of its `Accept` (UTF-8
 * only) that allows either, `application/json` when that range allows both (a wildcard) or when
 * none does (a refusal is still answered rather than turned into a 406). Yoga's rule for results.
 */
export function answerMediaType(req: Request): string {
  const ranges = (req.headers.get("accept") || "*/*").replace(/\s/g, "").toLowerCase().split(",");
  for (const range of ranges) {
    const [type, ...params] = range.split(";");
    const charset = params.find((p) => p.startsWith("charset="));
    if (charset && charset !== "charset=utf-8") continue;
    if (matches(type, JSON_TYPE)) return JSON_TYPE;
    if (matches(type, GRAPHQL_RESPONSE)) return GRAPHQL_RESPONSE;
  }
  return JSON_TYPE;
}

/** A GraphQL-shaped refusal of `req` with `status`, in the media type it asked for. */
function refusal(
  req: Request,
  status: number,
  errors: unknown[],
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ errors }), {
    status,
    headers: { "content-type": `${answerMediaType(req)}; charset=utf-8`, ...headers },
  });
}

export function unauthenticatedResponse(req: Request, message: string): Response {
  return refusal(req, 401, [{ message, extensions: { code: "UNAUTHENTICATED" } }]);
}

/** The top-level error of a refused request (over HTTP or a WebSocket). */
export const rateLimited = (verdict: { retryAfterSeconds: number }) =>
  codedError("RATE_LIMITED", `too many requests: retry after ${verdict.retryAfterSeconds} s`, {
    retryAfter: verdict.retryAfterSeconds,
  });

export function rateLimitedResponse(req: Request, verdict: RequestVerdict): Response {
  return refusal(req, 429, [rateLimited(verdict).toJSON()], retryAfterHeader(verdict));
}

export function requestErrorResponse(req: Request, status: number, message: string): Response {
  return refusal(req, status, [{ message, extensions: { code: "BAD_USER_INPUT" } }]);
}

const BODYLESS_REFUSALS: Record<number, string> = {
  406: "not acceptable: accept application/graphql-response+json or application/json",
  415: "unsupported content type: send application/json",
};

/** Yoga refuses some requests with a bare status; callers get a GraphQL-shaped body for each. */
export function withErrorBody(req: Request, response: Response): Response {
  const message = BODYLESS_REFUSALS[response.status];
  if (!message || response.headers.get("content-type")) return response;
  return requestErrorResponse(req, response.status, message);
}

/** A whole request refused because a dependency is down (identifying the caller, say). */
export function serviceUnavailableResponse(req: Request): Response {
  const { http, ...extensions } = serviceUnavailableExtensions() as {
    http: { status: number; headers: Record<string, string> };
  };
  return refusal(
    req,
    http.status,
    [{ message: SERVICE_UNAVAILABLE_MESSAGE, extensions }],
    http.headers,
  );
}
