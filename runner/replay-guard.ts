/**
 * The signatures of the service's requests this runner has accepted, remembered until their
 * timestamp leaves the window (after which the window alone refuses them), so a captured request
 * replayed within the window is refused too. Memory is bounded: at most `capacity` signatures;
 * when every one of them is still in its window a new request is refused, never remembered by
 * forgetting another (which would let that one be replayed).
 *
 * @example
 * ```ts
 * const guard = createReplayGuard({ clock, windowSeconds: 300 });
 * guard.admit(signature, timestamp); // "fresh", then "replay" for the same signature
 * ```
 */
import type { Clock } from "../src/platform/clock.ts";

/** Far above the runner's traffic (this many accepted calls within twice the window). */
export const REPLAY_MEMORY_MAX = 50_000;

export type Admission =
  | { verdict: "fresh" }
  | { verdict: "replay" }
  /** Memory is full of signatures still in their window; retry after `retryAfterSeconds`. */
  | { verdict: "full"; retryAfterSeconds: number };

export interface ReplayGuard {
  /** Remembers `signature` (of a request stamped `timestamp`) unless it was seen already. */
  admit(signature: string, timestamp: number): Admission;
  readonly size: number;
}

export function createReplayGuard(options: {
  clock: Clock;
  windowSeconds: number;
  capacity?: number;
}): ReplayGuard {
  const { clock, windowSeconds } = options;
  const capacity = options.capacity ?? REPLAY_MEMORY_MAX;
  /** Signature → when its timestamp leaves the window (ms). */
  const seen = new Map<string, number>();
  const sweepEveryMs = Math.max(1, windowSeconds * 250);
  let nextSweepMs = -Infinity;

  /** Forgets the signatures whose window has passed; returns the earliest remaining end. */
  const sweep = (nowMs: number): number => {
    let earliest = Infinity;
    for (const [signature, untilMs] of seen) {
      if (untilMs < nowMs) seen.delete(signature);
      else earliest = Math.min(earliest, untilMs);
    }
    nextSweepMs = nowMs + sweepEveryMs;
    return earliest;
  };

  return {
    admit(signature, timestamp) {
      const nowMs = clock.now().getTime();
      const known = seen.get(signature);
      if (known !== undefined && known >= nowMs) return { verdict: "replay" };
      if (seen.size >= capacity || nowMs >= nextSweepMs) {
        const earliest = sweep(nowMs);
        if (seen.size >= capacity) {
          return {
            verdict: "full",
            retryAfterSeconds: Math.max(1, Math.ceil((earliest - nowMs) / 1000)),
          };
        }
      }
      seen.set(signature, (timestamp + windowSeconds) * 1000);
      return { verdict: "fresh" };
    },
    get size() {
      return seen.size;
    },
  };
}
