/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and the `aes128gcm` payload encryption of RFC 8291,
 * through the `web-push` library (loaded on first use): it signs the VAPID token and encrypts the
 * payload for the subscription's keys; the request goes through the service's `fetch`, bounded by
 * a timeout. A token is the browser's `PushSubscription` as JSON (`endpoint`, `keys.p256dh`,
 * `keys.auth`). 404 and 410 mean the subscription is gone.
 */
import {
  outcomeOfError,
  outcomeOfStatus,
  type PushMessage,
  type PushOutcome,
  type PushProvider,
  retryAfterMs,
} from "./types.ts";

export interface WebPushOptions {
  /** VAPID keys as `web-push generate-vapid-keys` prints them (URL-safe base64). */
  publicKey: string;
  privateKey: string;
  /** The operator's contact, `mailto:` or `https:` (the VAPID `sub` claim). */
  subject: string;
  fetch: typeof fetch;
  timeoutMs: number;
  now: () => Date;
}

/** How long a push service keeps a message for an offline device (seconds). */
export const WEB_PUSH_TTL_SECONDS = 24 * 3600;

/** A parsed `PushSubscription`. */
export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export function createWebPushProvider(options: WebPushOptions): PushProvider {
  return {
    async send(token: string, message: PushMessage): Promise<PushOutcome> {
      let subscription: WebPushSubscription;
      try {
        subscription = JSON.parse(token) as WebPushSubscription;
      } catch {
        return { kind: "gone", reason: "the subscription is not JSON" };
      }
      const { default: webpush } = await import("web-push");
      let details: { endpoint: string; headers: Record<string, string | number>; body: Uint8Array };
      try {
        details = webpush.generateRequestDetails(
          subscription,
          JSON.stringify({ body: message.body, data: message.data }),
          {
            vapidDetails: {
              subject: options.subject,
              publicKey: options.publicKey,
              privateKey: options.privateKey,
            },
            TTL: WEB_PUSH_TTL_SECONDS,
            contentEncoding: "aes128gcm",
            urgency: "normal",
            topic: message.collapseId.slice(0, 32),
          },
        ) as typeof details;
      } catch (err) {
        // The library refuses keys that are not a P-256 point and a 16-byte secret.
        return { kind: "gone", reason: `the subscription is unusable: ${(err as Error).message}` };
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(details.headers)) headers.set(name, String(value));
      try {
        const res = await options.fetch(details.endpoint, {
          method: "POST",
          headers,
          body: new Uint8Array(details.body),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = (await res.text()).slice(0, 300);
        if (res.ok) return { kind: "sent" };
        const reason = `${res.status} ${text}`.trim();
        if (res.status === 404 || res.status === 410) return { kind: "gone", reason };
        return outcomeOfStatus(
          res.status,
          reason,
          retryAfterMs(res.headers.get("retry-after"), options.now()),
        );
      } catch (err) {
        return outcomeOfError(err);
      }
    },
  };
}
