/**
 * Firebase Cloud Messaging's HTTP v1 API: `POST {apiUrl}/v1/projects/{project}/messages:send`
 * with `Authorization: Bearer <access token>` and `{"message": {"token", "notification",
 * "data", ...}}`. The access token comes from the service account's OAuth 2.0 token endpoint
 * (`token_uri`) by the JWT bearer grant (RFC 7523: an RS256 assertion signed with the account's
 * key, scope `firebase.messaging`), and is reused until shortly before it expires. An error whose
 * `errorCode` is `UNREGISTERED` means the token is gone.
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

/** The fields of a service account key file that FCM needs. */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  /** Default `https://oauth2.googleapis.com/token`. */
  token_uri?: string;
}

export interface FcmOptions {
  /** `https://fcm.googleapis.com`. */
  apiUrl: string;
  account: FcmServiceAccount;
  fetch: typeof fetch;
  timeoutMs: number;
  now: () => Date;
}

export const FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** An access token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

class TokenError extends Error {
  constructor(readonly outcome: PushOutcome) {
    super(outcome.kind === "sent" ? "" : outcome.reason);
  }
}

export function createFcmProvider(options: FcmOptions): PushProvider {
  const { account } = options;
  const tokenUri = account.token_uri ?? DEFAULT_TOKEN_URI;
  let cached: { token: string; expiresAt: number } | null = null;
  let signingKey: Promise<CryptoKey> | null = null;

  async function accessToken(): Promise<string> {
    const now = options.now().getTime();
    if (cached && now < cached.expiresAt - RENEW_BEFORE_MS) return cached.token;
    signingKey ??= importPKCS8(account.private_key, "RS256");
    const iat = Math.floor(now / 1000);
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setIssuer(account.client_email)
      .setAudience(tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await signingKey);
    const res = await options.fetch(tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion,
      }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) {
      const reason = `token endpoint: ${res.status} ${text.slice(0, 200)}`;
      throw new TokenError(
        outcomeOfStatus(
          res.status,
          reason,
          retryAfterMs(res.headers.get("retry-after"), options.now()),
        ),
      );
    }
    const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string") {
      throw new TokenError({
        kind: "retry",
        reason: "token endpoint: no access_token",
        retryAfterMs: null,
      });
    }
    const ttl = typeof body.expires_in === "number" ? body.expires_in : 3600;
    cached = { token: body.access_token, expiresAt: now + ttl * 1000 };
    return cached.token;
  }

  return {
    async send(token: string, message: PushMessage): Promise<PushOutcome> {
      const url = `${options.apiUrl.replace(/\/+$/, "")}/v1/projects/${
        encodeURIComponent(account.project_id)
      }/messages:send`;
      const body = JSON.stringify({
        message: {
          token,
          notification: { body: message.body },
          data: message.data,
          android: { collapse_key: message.collapseId, priority: "high" },
          apns: { headers: { "apns-collapse-id": message.collapseId.slice(0, 64) } },
        },
      });
      try {
        const res = await options.fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${await accessToken()}`,
            "content-type": "application/json",
          },
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await res.text();
        if (res.ok) return { kind: "sent" };
        const error = errorOf(text);
        const reason = `${res.status} ${error.errorCode ?? error.status ?? text.slice(0, 200)}`;
        if (error.errorCode === "UNREGISTERED") return { kind: "gone", reason };
        // A revoked or expired access token: fetch a new one for the next attempt.
        if (res.status === 401) {
          cached = null;
          return { kind: "retry", reason, retryAfterMs: null };
        }
        return outcomeOfStatus(
          res.status,
          reason,
          retryAfterMs(res.headers.get("retry-after"), options.now()),
        );
      } catch (err) {
        if (err instanceof TokenError) return err.outcome;
        return outcomeOfError(err);
      }
    },
  };
}

/** The `status` and FCM `errorCode` of an error body (`{"error": {"status", "details"}}`). */
function errorOf(text: string): { status?: string; errorCode?: string } {
  try {
    const { error } = JSON.parse(text) as {
      error?: { status?: string; details?: { errorCode?: string }[] };
    };
    const errorCode = error?.details?.find((d) => typeof d.errorCode === "string")?.errorCode;
    return { status: error?.status, errorCode };
  } catch {
    return {};
  }
}
