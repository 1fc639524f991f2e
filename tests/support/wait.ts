/**
 * Waiting for something to happen without guessing how long it takes: {@link waitFor} polls a
 * condition until it holds and fails with a message naming what it waited for when a bounded
 * timeout passes. Use it instead of a fixed sleep whenever a test needs an event that happens
 * asynchronously (a message received, a row written, a log line, a job state).
 */

export interface WaitOptions {
  /** Upper bound before the wait fails (default 5000 ms). */
  timeoutMs?: number;
  /** Named in the failure message: "timed out after 5000 ms waiting for <what>". */
  what?: string;
  /** Pause between checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolves once `check` returns (or resolves to) true; rejects after `timeoutMs`. A `check` that
 * throws fails the wait at once with its error.
 *
 * @example
 * ```ts
 * await waitFor(() => frames.length === 2, { what: "two frames" });
 * await waitFor(async () => (await jobs.figures()).processed === 10, { timeoutMs: 60_000 });
 * ```
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<void> {
  const { timeoutMs = 5_000, what = "a condition", intervalMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
