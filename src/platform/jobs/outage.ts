/**
 * The job system's view of the database being out of reach: one warning when its statements start
 * failing, one info line when one succeeds again (with how long it lasted and how many statements
 * failed meanwhile), and the bounded backoff its retries wait in between. Failures that are not an
 * outage (a refused statement: a bug) are the caller's to log in full.
 */
import { isDatabaseConnectionFailure } from "../db.ts";
import { dependencyFailure } from "../dependency.ts";
import { errorFields, type LogFields, type Logger } from "../log.ts";

/** First retry delay during an outage; it doubles up to {@link OUTAGE_RETRY_MAX_MS}. */
export const OUTAGE_RETRY_MIN_MS = 100;
/** Longest wait between retries: the worker works again at most this long after the return. */
export const OUTAGE_RETRY_MAX_MS = 2_000;

/** True when `err` means the database cannot be reached now (worth retrying, not a bug). */
export function isOutage(err: unknown): boolean {
  return dependencyFailure(err) !== null || isDatabaseConnectionFailure(err);
}

/** An error's log fields: an outage's without the stack (it says nothing about our code). */
export function failureFields(err: unknown): LogFields {
  if (!isOutage(err)) return errorFields(err);
  const { stack: _stack, ...fields } = errorFields(err);
  return fields;
}

export interface OutageWatch {
  /**
   * Counts a failed statement of `operation`; true when it is an outage (retry it), logged once
   * per outage. False for any other failure, which is not counted.
   */
  failed(operation: string, err: unknown): boolean;
  /** A statement succeeded: ends the outage, if one was on, with its info line. */
  succeeded(): void;
  /** Calls `listener` each time an outage ends. */
  onRecovered(listener: () => void): void;
  /** True while the database is out of reach. */
  readonly down: boolean;
  /** False once the worker gives up retrying (shutdown, after the grace period). */
  readonly retrying: boolean;
  /** Resolves after the `retry`-th retry's delay, or at once when retrying stops. */
  pause(retry: number): Promise<void>;
  /** Shutdown: ends every pause now; outages are no longer retried. */
  stopRetrying(): void;
  /** A restarted worker retries again. */
  resumeRetrying(): void;
}

export const outageRetryMs = (retry: number) =>
  Math.min(OUTAGE_RETRY_MAX_MS, OUTAGE_RETRY_MIN_MS * 2 ** Math.max(0, retry - 1));

export function createOutageWatch(log: Logger): OutageWatch {
  let since: number | null = null;
  let failures = 0;
  let retrying = true;
  const pauses = new Set<() => void>();
  const recovered: (() => void)[] = [];

  return {
    failed(operation, err) {
      if (!isOutage(err)) return false;
      failures++;
      if (since === null) {
        since = performance.now();
        log.warn("job worker: database unavailable, retrying", {
          operation,
          ...failureFields(err),
          retry_max_ms: OUTAGE_RETRY_MAX_MS,
        });
      }
      return true;
    },
    succeeded() {
      if (since === null) return;
      log.info("job worker: database available again", {
        outage_ms: Math.round(performance.now() - since),
        failed_statements: failures,
      });
      since = null;
      failures = 0;
      for (const listener of recovered) listener();
    },
    onRecovered(listener) {
      recovered.push(listener);
    },
    get down() {
      return since !== null;
    },
    get retrying() {
      return retrying;
    },
    pause(retry) {
      if (!retrying) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          pauses.delete(done);
          resolve();
        };
        const timer = setTimeout(done, outageRetryMs(retry));
        pauses.add(done);
      });
    },
    stopRetrying() {
      retrying = false;
      for (const done of [...pauses]) done();
    },
    resumeRetrying() {
      retrying = true;
    },
  };
}
