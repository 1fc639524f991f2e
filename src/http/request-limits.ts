/**
 * Request rate limits (`RATE_LIMIT_USER_PER_MINUTE`, `RATE_LIMIT_ANONYMOUS_PER_MINUTE`): a signed-in
 * caller is counted by user, anyone else by client address, in one-minute windows of the shared
 * store, so every instance counts the same calls. 0 turns a limit off. While the store is down,
 * calls go through uncounted (docs/reliability.md).
 */
import type { KvStore } from "../platform/kv.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/log.ts";
import { createRateLimiter, type RateLimit, type RateVerdict } from "../platform/rate-limit.ts";
import { errorResponse } from "../platform/contract/mod.ts";
import type { RouteHandler } from "./router.ts";

const MINUTE_MS = 60_000;

export interface RequestLimits {
  /** Counts a call of a signed-in user; the verdict when refused, else null. */
  user(publicId: string): Promise<RateVerdict | null>;
  /**
   * Counts an anonymous call from `address`; the verdict when refused, else null. A request with
   * no known peer (only an in-process call has none) is not counted.
   */
  anonymous(address: string | undefined): Promise<RateVerdict | null>;
}

export function createRequestLimits(deps: {
  kv: KvStore;
  clock: Clock;
  log: Logger;
  userPerMinute: number;
  anonymousPerMinute: number;
}): RequestLimits {
  const limiter = createRateLimiter(deps);
  const check = async (points: number, name: string, subject: string) => {
    if (points === 0) return null;
    // A store outage lets calls through uncounted: it must not take the whole API down.
    const limit: RateLimit = { name, points, durationMs: MINUTE_MS, whenStoreDown: "allow" };
    const verdict = await limiter.consume(limit, subject);
    return verdict.allowed ? null : verdict;
  };
  return {
    user: (publicId) => check(deps.userPerMinute, "requests-user", publicId),
    anonymous: (address) =>
      address === undefined
        ? Promise.resolve(null)
        : check(deps.anonymousPerMinute, "requests-anonymous", address),
  };
}

/** The `Retry-After` header of a refusal. */
export const retryAfterHeader = (verdict: RateVerdict) => ({
  "retry-after": String(verdict.retryAfterSeconds),
});

/** Wraps a route that anyone may call: counted by client address, 429 past the limit. */
export function limitedByAddress(limits: RequestLimits, handler: RouteHandler): RouteHandler {
  return async (req, ctx) => {
    const refused = await limits.anonymous(ctx.remoteAddr);
    if (!refused) return await handler(req, ctx);
    const response = errorResponse("rate_limited", "too many requests", {
      retry_after_seconds: refused.retryAfterSeconds,
    });
    for (const [name, value] of Object.entries(retryAfterHeader(refused))) {
      response.headers.set(name, value);
    }
    return response;
  };
}
