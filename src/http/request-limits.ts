/**
 * Request rate limits (`RATE_LIMIT_USER_PER_MINUTE`, `RATE_LIMIT_ANONYMOUS_PER_MINUTE`): a signed-in
 * caller is counted by user, anyone else by client address, in one-minute windows of the shared
 * store, so every instance counts the same calls. 0 turns a limit off. While the store is down or
 * slower than `storeWaitMs`, calls go through uncounted (docs/reliability.md). Every answer of a counted request carries the
 * `RateLimit-*` headers.
 */
import type { KvStore } from "../platform/kv.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/log.ts";
import { createRateLimiter, type RateLimit, type RateVerdict } from "../platform/rate-limit.ts";
import { errorResponse } from "../platform/contract/mod.ts";
import type { RouteHandler } from "./router.ts";

const MINUTE_MS = 60_000;

/** A counted request: the limit's verdict and the limit itself (for the `RateLimit-*` headers). */
export interface RequestVerdict extends RateVerdict {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface RequestLimits {
  /**
   * Counts a call of a signed-in user: its verdict (`allowed` is false past the limit), or null
   * when nothing was counted (the limit is off, or the store is down).
   */
  user(publicId: string): Promise<RequestVerdict | null>;
  /**
   * Counts an anonymous call from `address`, as `user` does. A request with no known peer (only
   * an in-process call has none) is not counted.
   */
  anonymous(address: string | undefined): Promise<RequestVerdict | null>;
}

export function createRequestLimits(deps: {
  kv: KvStore;
  clock: Clock;
  log: Logger;
  userPerMinute: number;
  anonymousPerMinute: number;
  /** Longest a request waits for its count (`RATE_LIMIT_STORE_WAIT_MS`). */
  storeWaitMs: number;
}): RequestLimits {
  const limiter = createRateLimiter({ ...deps, allowWaitMs: deps.storeWaitMs });
  const check = async (points: number, name: string, subject: string) => {
    if (points === 0) return null;
    // A store outage lets calls through uncounted: it must not take the whole API down.
    const limit: RateLimit = { name, points, durationMs: MINUTE_MS, whenStoreDown: "allow" };
    const verdict = await limiter.consume(limit, subject);
    return verdict.counted ? { ...verdict, limit: points, windowSeconds: MINUTE_MS / 1000 } : null;
  };
  return {
    user: (publicId) => check(deps.userPerMinute, "requests-user", publicId),
    anonymous: (address) =>
      address === undefined
        ? Promise.resolve(null)
        : check(deps.anonymousPerMinute, "requests-anonymous", address),
  };
}

/** The verdict of a request that was refused, else null (none counted, or allowed). */
export const refusal = (verdict: RequestVerdict | null) =>
  verdict && !verdict.allowed ? verdict : null;

/** The `Retry-After` header of a refusal. */
export const retryAfterHeader = (verdict: RateVerdict) => ({
  "retry-after": String(verdict.retryAfterSeconds),
});

/**
 * The request rate limit's state, on every answer of a counted request (docs/graphql.md): the
 * fields of the IETF draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-
 * headers, the separate-fields form): the limit, what is left of it, and the seconds until the
 * window ends; `RateLimit-Policy` says the window.
 */
export function rateLimitHeaders(verdict: RequestVerdict): Record<string, string> {
  return {
    "ratelimit-limit": String(verdict.limit),
    "ratelimit-remaining": String(verdict.remaining),
    "ratelimit-reset": String(verdict.retryAfterSeconds),
    "ratelimit-policy": `${verdict.limit};w=${verdict.windowSeconds}`,
  };
}

/** Sets the `RateLimit-*` headers of `verdict` (when a request was counted) on `response`. */
export function withRateLimitHeaders(
  response: Response,
  verdict: RequestVerdict | null,
): Response {
  if (!verdict) return response;
  for (const [name, value] of Object.entries(rateLimitHeaders(verdict))) {
    response.headers.set(name, value);
  }
  return response;
}

/** Wraps a route that anyone may call: counted by client address, 429 past the limit. */
export function limitedByAddress(limits: RequestLimits, handler: RouteHandler): RouteHandler {
  return async (req, ctx) => {
    const verdict = await limits.anonymous(ctx.remoteAddr);
    const refused = refusal(verdict);
    if (!refused) return withRateLimitHeaders(await handler(req, ctx), verdict);
    const response = errorResponse("rate_limited", "too many requests", {
      retry_after_seconds: refused.retryAfterSeconds,
    });
    for (const [name, value] of Object.entries(retryAfterHeader(refused))) {
      response.headers.set(name, value);
    }
    return withRateLimitHeaders(response, verdict);
  };
}
