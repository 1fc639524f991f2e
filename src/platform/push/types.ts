/**
 * Push providers: one adapter per platform (Web Push, APNs, FCM) that sends one message to one
 * device and says what became of it. They speak the providers' wire formats and know no business
 * rule: who is told what, retries and removing gone devices are the notifications feature's.
 */

/** What a device shows and what its app may read. */
export interface PushMessage {
  /** The text shown (the notification's English content, shortened to fit the providers). */
  body: string;
  /** Collapses repeats of one notification on the device (the notification's public id). */
  collapseId: string;
  /** Values for the app (string values: FCM's data map takes only strings). */
  data: Record<string, string>;
}

/** What became of one message to one device. */
export type PushOutcome =
  /** The provider took it. */
  | { kind: "sent" }
  /** The provider says the token is no longer valid: the device should be removed. */
  | { kind: "gone"; reason: string }
  /** A temporary failure (5xx, 429, a timeout or a network error): try again later. */
  | { kind: "retry"; reason: string; retryAfterMs: number | null }
  /** Refused for good (for example a payload the provider rejects): do not try again. */
  | { kind: "failed"; reason: string };

/** One platform's adapter. */
export interface PushProvider {
  send(token: string, message: PushMessage): Promise<PushOutcome>;
}

/** The `Retry-After` header in milliseconds (seconds or an HTTP date); null when absent or bad. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** The outcome of a response that is neither success nor a provider's "gone". */
export function outcomeOfStatus(
  status: number,
  reason: string,
  retryAfter: number | null,
): PushOutcome {
  if (status === 429 || status >= 500) return { kind: "retry", reason, retryAfterMs: retryAfter };
  return { kind: "failed", reason };
}

/** A request that failed before an answer (timeout, refused connection, TLS): try again later. */
export function outcomeOfError(err: unknown): PushOutcome {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { kind: "retry", reason: reason.slice(0, 500), retryAfterMs: null };
}
