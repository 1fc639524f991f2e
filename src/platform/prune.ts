/**
 * Retention work in bounded batches: a caller's statement that deletes or compacts at most `limit`
 * rows (a keyset subselect with `limit`, served by an index), run again and again, each run its
 * own statement outside any transaction, until a batch comes back short (nothing older is left) or
 * the time budget is spent. A schedule run therefore never holds locks on many rows, nor the
 * database for long; what is left is done by the next run.
 *
 * @example
 * ```ts
 * const pruned = await inBatches((limit) => store.pruneBefore(sql, cutoff, limit));
 * ```
 */

/** Rows one batch statement touches at most, unless the caller says otherwise. */
export const DEFAULT_BATCH_SIZE = 1000;
/** How long one run keeps starting batches, unless the caller says otherwise. */
export const DEFAULT_BUDGET_MS = 2000;

export interface BatchOptions {
  /** Rows a batch touches at most (default {@link DEFAULT_BATCH_SIZE}). */
  batchSize?: number;
  /** No batch starts once this much time has passed since the first (default 2 s). */
  budgetMs?: number;
  /** Milliseconds from a fixed origin, for the budget (default `performance.now`). */
  elapsed?: () => number;
}

export interface BatchResult {
  /** Rows the batches touched. */
  rows: number;
  /** True when the budget ran out before a batch came back short: more may be left. */
  more: boolean;
}

/**
 * Runs `batch` (one statement touching at most `limit` rows; it answers how many it touched) until
 * it touches fewer than `limit` or the budget is spent.
 */
export async function inBatches(
  batch: (limit: number) => Promise<number>,
  options: BatchOptions = {},
): Promise<BatchResult> {
  const limit = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const elapsed = options.elapsed ?? (() => performance.now());
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`batch size ${limit}`);
  const start = elapsed();
  let rows = 0;
  for (;;) {
    const touched = await batch(limit);
    rows += touched;
    if (touched < limit) return { rows, more: false };
    if (elapsed() - start >= budgetMs) return { rows, more: true };
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment before which rows kept `days` days are due at `now`; null when `days` is 0 (kept). */
export function retentionCutoff(now: Date, days: number): Date | null {
  return days > 0 ? new Date(now.getTime() - days * DAY_MS) : null;
}

/**
 * Runs `batch` (given the cutoff and a limit) in bounded batches over the rows kept `days` days at
 * `now` ({@link inBatches}); nothing when `days` is 0 (kept). The cutoff comes back for the log.
 */
export async function pruneOlderThan(
  now: Date,
  days: number,
  batch: (before: Date, limit: number) => Promise<number>,
  options: BatchOptions = {},
): Promise<BatchResult & { before: Date | null }> {
  const before = retentionCutoff(now, days);
  if (!before) return { rows: 0, more: false, before };
  return { ...await inBatches((limit) => batch(before, limit), options), before };
}
