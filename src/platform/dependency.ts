/**
 * A dependency (the database, the key-value store) that does not answer in time or refuses the
 * connection. Raised by the platform's database and store wrappers, so that every caller sees
 * one typed error, and answered at the boundary as "try again later" (GraphQL
 * `SERVICE_UNAVAILABLE`, HTTP 503 with `Retry-After`), never as an internal error.
 */

export type Dependency = "database" | "redis";

/** Seconds a client is asked to wait before retrying (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 5;

export class DependencyUnavailableError extends Error {
  constructor(readonly dependency: Dependency, message: string, options?: ErrorOptions) {
    super(`${dependency} unavailable: ${message}`, options);
    this.name = "DependencyUnavailableError";
  }
}

/**
 * The {@link DependencyUnavailableError} behind `err`, looked up through `cause` and GraphQL's
 * `originalError` (a resolver's failure arrives wrapped), or null.
 */
export function dependencyFailure(err: unknown): DependencyUnavailableError | null {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof DependencyUnavailableError) return current;
    if (typeof current !== "object") return null;
    const e = current as { originalError?: unknown; cause?: unknown };
    current = e.originalError ?? e.cause;
  }
  return null;
}

/**
 * Settles like `work`, or rejects with `onTimeout()` when `work` has not settled after `ms`
 * (0 = no bound). A late settlement of `work` is absorbed, never an unhandled rejection.
 */
export function withDeadline<T>(
  work: PromiseLike<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  if (ms <= 0) return Promise.resolve(work);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
