/**
 * Cross-origin access to `/graphql` (`CORS_ALLOWED_ORIGINS`): browsers on a listed origin may send
 * `SessionToken` and read the answers; every other origin gets no CORS header at all. Sessions
 * travel in a header, never a cookie, so `Access-Control-Allow-Credentials` is never sent.
 *
 * Not graphql-yoga's `cors` option (turned off): it covers only the responses yoga itself
 * produces, so the 401 and 429 answered before yoga runs would be unreadable to a browser.
 */
import type { RouteHandler } from "./router.ts";

/** What clients send: Apollo (`apollo-require-preflight`, client awareness), urql, our own. */
const ALLOWED_HEADERS = [
  "content-type",
  "sessiontoken",
  "accept",
  "x-request-id",
  "apollo-require-preflight",
  "x-apollo-operation-name",
  "apollographql-client-name",
  "apollographql-client-version",
];
const EXPOSED_HEADERS = [
  "x-request-id",
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
];
/** Chromium caps a cached preflight at two hours. */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

export interface CorsPolicy {
  /** Wraps a route: answers its preflights and marks its responses. */
  wrap(handler: RouteHandler): RouteHandler;
}

/** `allowed`: origins (`https://app.example.com`) or `*`; empty: CORS off. */
export function createCorsPolicy(allowed: string[]): CorsPolicy {
  const any = allowed.includes("*");
  const origins = new Set(allowed);
  const enabled = allowed.length > 0;

  const allowOriginOf = (req: Request): string | null => {
    const origin = req.headers.get("origin");
    if (!enabled || origin === null) return null;
    if (any) return "*";
    return origins.has(origin) ? origin : null;
  };

  const mark = (req: Request, headers: Headers) => {
    // The answer depends on Origin whenever a list decides, allowed or not: caches must know.
    if (enabled && !any) appendVary(headers, "Origin");
    const allowOrigin = allowOriginOf(req);
    if (allowOrigin === null) return;
    headers.set("access-control-allow-origin", allowOrigin);
    if (req.method === "OPTIONS") {
      headers.set("access-control-allow-methods", "GET, POST");
      headers.set("access-control-allow-headers", ALLOWED_HEADERS.join(", "));
      headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
    } else {
      headers.set("access-control-expose-headers", EXPOSED_HEADERS.join(", "));
    }
  };

  return {
    wrap(handler) {
      return async (req, ctx) => {
        if (req.method === "OPTIONS") {
          const headers = new Headers({ "content-length": "0" });
          mark(req, headers);
          return new Response(null, { status: 204, headers });
        }
        const response = await handler(req, ctx);
        try {
          mark(req, response.headers);
        } catch {
          // Immutable headers (a WebSocket upgrade): nothing cross-origin to allow there.
        }
        return response;
      };
    },
  };
}

function appendVary(headers: Headers, name: string) {
  const present = (headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase());
  if (!present.includes(name.toLowerCase())) headers.append("vary", name);
}
