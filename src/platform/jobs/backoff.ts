/**
 * Retry delay after a failed attempt: exponential from `baseMs`, capped at `maxMs`, with jitter
 * so that jobs failing together do not retry together.
 *
 * @example
 * ```ts
 * retryDelayMs(1, () => 0.5); // 2_000: the first retry waits about 2 s
 * retryDelayMs(5, () => 0.5); // 32_000
 * ```
 */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** Fraction of the delay that is random (0..1). */
  jitter?: number;
}

export function retryDelayMs(
  attempt: number,
  random: () => number = Math.random,
  { baseMs = 2_000, maxMs = 3_600_000, jitter = 0.5 }: BackoffOptions = {},
): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // Spread over [1 - jitter/2, 1 + jitter/2] of the nominal delay.
  const factor = 1 - jitter / 2 + jitter * random();
  return Math.round(Math.min(maxMs, exponential * factor));
}
