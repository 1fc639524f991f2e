/// <reference lib="dom" />
/**
 * Whether the service can be reached, shared by every page. The API client reports each answer
 * and the `/cable` connection each drop and return; a page whose request could not reach the
 * service asks again after a bounded backoff, and every page asks again at once when the service
 * is back, so every page recovers without a reload.
 */
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.ts";

/** The request never reached the service, or a proxy answered for it (502, 503, 504). */
export class UnreachableError extends Error {}

let offline = false;
const listeners = new Set<(offline: boolean) => void>();

/** Records whether the last request reached the service; tells the listeners on a change. */
export function reportReachable(reachable: boolean): void {
  if (offline === !reachable) return;
  offline = !reachable;
  for (const listener of [...listeners]) listener(offline);
}

/** Calls `listener` on every change of reachability; returns the unsubscribe function. */
export function onReachability(listener: (offline: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The wait before retry `attempt` (0-based): doubling from `baseMs`, never over `maxMs`. */
export function backoffMs(attempt: number, baseMs = 1_000, maxMs = 15_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}

/**
 * Runs `retry` when the service comes back (a request or the `/cable` connection gets through),
 * so a page shows what changed meanwhile; and while `failing`, after the backoff of each failure.
 */
export function useRecovery(failing: boolean, retry: () => void): void {
  const [attempt, setAttempt] = useState(0);
  useEffect(() =>
    onReachability((isOffline) => {
      if (!isOffline) retry();
    }), [retry]);
  useEffect(() => {
    if (!failing) {
      setAttempt(0);
      return;
    }
    const timer = setTimeout(() => {
      setAttempt((n) => n + 1);
      retry();
    }, backoffMs(attempt));
    return () => clearTimeout(timer);
  }, [failing, attempt, retry]);
}

/** The polite announcement of the lost service; the live region stays in the page, empty when
 * online, so screen readers hear the change. */
export function OfflineIndicator() {
  const [isOffline, setOffline] = useState(offline);
  useEffect(() => onReachability(setOffline), []);
  return html`<p class="offline" role="status" aria-live="polite">${
    isOffline ? "Offline: the service cannot be reached; retrying…" : ""
  }</p>`;
}
