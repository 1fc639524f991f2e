/**
 * Apple Push Notification service over its HTTP/2 API: `POST {url}/3/device/{token}` with a
 * provider token (a JWT signed ES256 with the team's `.p8` key: `kid` the key id, `iss` the team
 * id, `iat`), `apns-topic` (the app's bundle id), `apns-push-type: alert`, and the payload
 * `{"aps": {"alert": {"body": ...}}, ...data}`. Deno's `fetch` speaks HTTP/2 over TLS when the
 * server offers it (APNs only speaks HTTP/2). 410 `Unregistered` and 400 `BadDeviceToken` mean
 * the token is gone.
 */
import { importPKCS8, SignJWT } from "jose";
import {
  outcomeOfError,
  outcomeOfStatus,
  type PushMessage,
  type PushOutcome,
  type PushProvider,
  retryAfterMs,
} from "./types.ts";

export interface ApnsOptions {
  /** `https://api.push.apple.com`, or `https://api.sandbox.push.apple.com` for development. */
  url: string;
  /** The `.p8` signing key (PKCS #8 PEM). */
  key: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id. */
  topic: string;
  fetch: typeof fetch;
  timeoutMs: number;
  now: () => Date;
}

/**
 * A provider token is reused this long: APNs refuses one older than an hour and answers 429
 * `TooManyProviderTokenUpdates` to a connection that changes it more often than every 20 minutes.
 */
export const APNS_TOKEN_REUSE_MS = 50 * 60 * 1000;

/** The reasons APNs gives for a token that no longer reaches a device. */
const GONE_REASONS = new Set(["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]);

export function createApnsProvider(options: ApnsOptions): PushProvider {
  let cached: { token: string; issuedAt: number } | null = null;
  let signingKey: Promise<CryptoKey> | null = null;

  async function providerToken(): Promise<string> {
    const now = options.now().getTime();
    if (cached && now - cached.issuedAt < APNS_TOKEN_REUSE_MS) return cached.token;
    signingKey ??= importPKCS8(options.key, "ES256");
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: options.keyId })
      .setIssuer(options.teamId)
      .setIssuedAt(Math.floor(now / 1000))
      .sign(await signingKey);
    cached = { token, issuedAt: now };
    return token;
  }

  return {
    async send(token: string, message: PushMessage): Promise<PushOutcome> {
      const url = `${options.url.replace(/\/+$/, "")}/3/device/${encodeURIComponent(token)}`;
      const body = JSON.stringify({
        aps: { alert: { body: message.body }, sound: "default" },
        ...message.data,
      });
      try {
        const res = await options.fetch(url, {
          method: "POST",
          headers: {
            authorization: `bearer ${await providerToken()}`,
            "apns-topic": options.topic,
            "apns-push-type": "alert",
            "apns-priority": "10",
            "apns-collapse-id": message.collapseId.slice(0, 64),
            "content-type": "application/json",
          },
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await res.text();
        if (res.ok) return { kind: "sent" };
        let reason = "";
        try {
          reason = String((JSON.parse(text) as { reason?: unknown }).reason ?? "");
        } catch {
          reason = text.slice(0, 200);
        }
        const said = `${res.status} ${reason}`.trim();
        if ((res.status === 410 || res.status === 400) && GONE_REASONS.has(reason)) {
          return { kind: "gone", reason: said };
        }
        // An expired or refused provider token: sign a new one for the next attempt.
        if (res.status === 403 && /ProviderToken/.test(reason)) {
          cached = null;
          return { kind: "retry", reason: said, retryAfterMs: null };
        }
        return outcomeOfStatus(
          res.status,
          said,
          retryAfterMs(res.headers.get("retry-after"), options.now()),
        );
      } catch (err) {
        return outcomeOfError(err);
      }
    },
  };
}
