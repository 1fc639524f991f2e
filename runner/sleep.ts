/** Waiting, passed in so tests can record the waits instead of spending them. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A real timer; rejects with the signal's reason when aborted. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
