/**
 * Fixed-window rate limits counted in the {@link KvStore} (Redis across instances, memory on
 * one), with windows taken from the injected {@link Clock}.
 *
 * Why not `rate-limiter-flexible`: its memory limiter reads `Date.now()` and its Redis limiter
 * lets Redis expire the window, so neither follows an injected clock and a test could only check
 * recovery by waiting a real minute. Its fixed window is what this does: the window's index
 * (`floor(now / duration)`) is part of the key, `kv.incr` counts atomically (one `INCR` in Redis),
 * and the key expires a little after its window (garbage collection only; the clock decides).
 *
 * While the store is unreachable ({@link DependencyUnavailableError}), each limit follows its
 * `whenStoreDown`: `refuse` (the default: the error propagates and the caller answers "service
 * unavailable", right for costly calls such as the AI's) or `allow` (the call goes through
 * uncounted, right for plain request limits: an outage of the store must not take the whole API
 * down with it). An `allow` limit also waits at most `allowWaitMs` for its count (a hung store
 * answers nothing until the command bound), and an outage opens a circuit: `allow` limits skip the
 * store for `outageSkipMs`, then one call asks it again while the others still skip. The outage
 * is logged once when it starts (warn) and once when the store counts again (info).
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ kv, clock });
 * const verdict = await limiter.consume({ name: "coaching", points: 10, durationMs: 60_000 }, userId);
 * if (!verdict.allowed) console.log(`retry after ${verdict.retryAfterSeconds} s`);
 * ```
 */
import type { KvStore } from "./kv.ts";
import type { Clock } from "./clock.ts";
import type { Logger } from "./log.ts";
import { DependencyUnavailableError, withDeadline } from "./dependency.ts";

export interface RateLimit {
  /** Part of the key; one counter per (name, subject, window). */
  name: string;
  /** Calls allowed per window. */
  points: number;
  durationMs: number;
  /** What a call gets while the store is unreachable (default `refuse`). */
  whenStoreDown?: "allow" | "refuse";
}

export interface RateVerdict {
  allowed: boolean;
  /** False when the store was down and the limit let the call through uncounted. */
  counted: boolean;
  /** Calls left in this window after this one (0 when refused). */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  retryAfterSeconds: number;
  resetAt: Date;
}

export interface RateLimiter {
  /** Counts one call of `subject` and says whether it is within the limit. */
  consume(limit: RateLimit, subject: string): Promise<RateVerdict>;
  /**
   * Whether a call of `subject` now would be within the limit, without counting one (`remaining`:
   * calls left in this window). Throws as `consume` does while the store is unreachable.
   */
  peek(limit: RateLimit, subject: string): Promise<RateVerdict>;
}

/** How long `allow` limits go uncounted after the store failed, before asking it again. */
export const OUTAGE_SKIP_MS = 5_000;

export interface RateLimiterDeps {
  kv: KvStore;
  clock: Clock;
  log?: Logger;
  /**
   * Longest an `allow` limit waits for the store's count before letting the call through
   * uncounted (0: the store's own command bound).
   */
  allowWaitMs?: number;
  /** How long `allow` limits skip the store after it failed (default {@link OUTAGE_SKIP_MS}). */
  outageSkipMs?: number;
}

class CountTimeout extends Error {
  constructor(ms: number) {
    super(`no count within ${ms} ms`);
    this.name = "CountTimeout";
  }
}

export function createRateLimiter(deps: RateLimiterDeps): RateLimiter {
  const allowWaitMs = deps.allowWaitMs ?? 0;
  const outageSkipMs = deps.outageSkipMs ?? OUTAGE_SKIP_MS;
  /** `performance.now()` when the current outage began; null while the store counts. */
  let outageSince: number | null = null;
  let skipStoreUntil = -Infinity;
  let probing = false;

  const outage = (limit: RateLimit, err: Error) => {
    skipStoreUntil = performance.now() + outageSkipMs;
    if (outageSince !== null) return;
    outageSince = performance.now();
    deps.log?.warn("rate limits not counted: store unavailable", {
      limit: limit.name,
      error: err.message,
      retry_every_ms: outageSkipMs,
    });
  };
  const counting = () => {
    if (outageSince === null) return;
    deps.log?.info("rate limits counted again: store available", {
      outage_ms: Math.round(performance.now() - outageSince),
    });
    outageSince = null;
  };

  const countOrOutage = async (limit: RateLimit, key: string): Promise<number | null> => {
    if (limit.whenStoreDown !== "allow") return await deps.kv.incr(key, limit.durationMs * 2);
    // While the circuit is open, one call at a time asks the store again once the skip is over.
    if (outageSince !== null && (probing || performance.now() < skipStoreUntil)) return null;
    const probe = outageSince !== null;
    if (probe) probing = true;
    try {
      const count = await withDeadline(
        deps.kv.incr(key, limit.durationMs * 2),
        allowWaitMs,
        () => new CountTimeout(allowWaitMs),
      );
      if (probe) counting();
      return count;
    } catch (err) {
      if (!(err instanceof DependencyUnavailableError || err instanceof CountTimeout)) throw err;
      outage(limit, err);
      return null;
    } finally {
      if (probe) probing = false;
    }
  };
  const windowOf = (limit: RateLimit, subject: string) => {
    const now = deps.clock.now().getTime();
    const window = Math.floor(now / limit.durationMs);
    const resetAt = (window + 1) * limit.durationMs;
    return {
      key: `rl:${limit.name}:${subject}:${window}`,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
      resetAt: new Date(resetAt),
    };
  };
  return {
    async consume(limit, subject) {
      const { key, ...reset } = windowOf(limit, subject);
      const counted = await countOrOutage(limit, key);
      const count = counted ?? 0;
      return {
        allowed: count <= limit.points,
        counted: counted !== null,
        remaining: Math.max(0, limit.points - count),
        ...reset,
      };
    },
    async peek(limit, subject) {
      const { key, ...reset } = windowOf(limit, subject);
      const count = Number(await deps.kv.get(key) ?? 0);
      return {
        allowed: count < limit.points,
        counted: true,
        remaining: Math.max(0, limit.points - count),
        ...reset,
      };
    },
  };
}
