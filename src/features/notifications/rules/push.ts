/**
 * Pure rules of push: which device tokens are acceptable (and their one canonical form), what a
 * device is sent for a notification, and how long a retry waits.
 */
import { decodeBase64Url } from "../../../platform/base64url.ts";
import { kindEnumValue, type NotificationView } from "../rules.ts";

export const PUSH_PLATFORMS = ["web", "apns", "fcm"] as const;
export type PushPlatform = typeof PUSH_PLATFORMS[number];

/** The longest token accepted (a Web Push subscription's JSON is the longest, well under this). */
export const MAX_PUSH_TOKEN_LENGTH = 2048;
/** A user's devices beyond this many are dropped, the least recently registered first. */
export const MAX_PUSH_DEVICES = 10;
/** The pushed text is the content cut to this many characters (providers cap payloads at 4 KB). */
export const PUSH_BODY_MAX_CHARS = 1000;
/** The pushed `args` are left out when the data would be larger than this (bytes of JSON). */
export const PUSH_DATA_MAX_BYTES = 1500;
/** Attempts at one message to one device (the first included) before it is given up. */
export const MAX_PUSH_ATTEMPTS = 5;
/** The longest wait before a retry, whatever the provider's `Retry-After` asks. */
export const MAX_PUSH_WAIT_MS = 15 * 60 * 1000;

/** The wait before attempt `attempt + 1`: doubling from 2 s, at least `Retry-After`, bounded. */
export function pushRetryDelayMs(attempt: number, retryAfterMs: number | null): number {
  const backoff = 1000 * 2 ** Math.max(1, attempt);
  return Math.min(MAX_PUSH_WAIT_MS, Math.max(backoff, retryAfterMs ?? 0));
}

/** A token's canonical form, or what is wrong with it (said to the client). */
export type TokenCheck = { token: string } | { problem: string };

// deno-lint-ignore no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether `host` is one of `allowed` (`*.example.com` allows its subdomains). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith("*.") ? h.endsWith(e.slice(1)) && h.length > e.length - 1 : h === e;
  });
}

/** Checks a device token for its platform; Web Push tokens are re-serialised canonically. */
export function checkPushToken(
  platform: PushPlatform,
  token: string,
  webAllowedHosts: readonly string[],
): TokenCheck {
  if (token.length === 0) return { problem: "token must not be empty" };
  if (token.length > MAX_PUSH_TOKEN_LENGTH) {
    return { problem: `token must be at most ${MAX_PUSH_TOKEN_LENGTH} characters` };
  }
  if (platform !== "web" && CONTROL.test(token)) {
    return { problem: "token must not contain control characters" };
  }
  switch (platform) {
    case "apns":
      return /^[0-9a-fA-F]{64,200}$/.test(token)
        ? { token: token.toLowerCase() }
        : { problem: "an APNs device token is 64 or more hexadecimal digits" };
    case "fcm":
      return /^[A-Za-z0-9_:-]{20,}$/.test(token)
        ? { token }
        : { problem: "an FCM registration token is letters, digits, _, - and :" };
    case "web":
      return checkSubscription(token, webAllowedHosts);
  }
}

function checkSubscription(token: string, allowedHosts: readonly string[]): TokenCheck {
  const bad = {
    problem:
      "a Web Push token is the PushSubscription as JSON: endpoint (https) and keys.p256dh, keys.auth",
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(token);
  } catch {
    return bad;
  }
  const s = parsed as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof s !== "object" || s === null || typeof s.endpoint !== "string") return bad;
  if (typeof s.keys?.p256dh !== "string" || typeof s.keys?.auth !== "string") return bad;
  if (CONTROL.test(s.endpoint)) return bad;
  let url: URL;
  try {
    url = new URL(s.endpoint);
  } catch {
    return bad;
  }
  if (url.protocol !== "https:" || url.username || url.password) return bad;
  if (!hostAllowed(url.hostname, allowedHosts)) {
    return {
      problem: `the endpoint's host ${url.hostname} is not a push service this server uses`,
    };
  }
  const p256dh = bytesOf(s.keys.p256dh);
  const auth = bytesOf(s.keys.auth);
  if (!p256dh || p256dh.length !== 65 || p256dh[0] !== 4) {
    return {
      problem: "keys.p256dh must be an uncompressed P-256 point (65 bytes, URL-safe base64)",
    };
  }
  if (!auth || auth.length !== 16) {
    return { problem: "keys.auth must be 16 bytes (URL-safe base64)" };
  }
  return {
    token: JSON.stringify({
      endpoint: url.href,
      keys: { p256dh: s.keys.p256dh.replace(/=+$/, ""), auth: s.keys.auth.replace(/=+$/, "") },
    }),
  };
}

function bytesOf(value: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return null;
  try {
    return decodeBase64Url(value.replace(/=+$/, ""));
  } catch {
    return null;
  }
}

/** What a device is sent for a notification (`data` values are strings, as FCM requires). */
export function pushMessageOf(n: NotificationView): {
  body: string;
  collapseId: string;
  data: Record<string, string>;
} {
  const chars = [...n.content];
  const body = chars.length > PUSH_BODY_MAX_CHARS
    ? `${chars.slice(0, PUSH_BODY_MAX_CHARS - 1).join("")}…`
    : n.content;
  const data: Record<string, string> = {
    notificationId: n.id,
    type: kindEnumValue(n.kind),
    kind: n.kind,
  };
  if (n.subjectType && n.subjectId) {
    data.subjectType = n.subjectType;
    data.subjectId = n.subjectId;
  }
  const args = JSON.stringify(n.args);
  if (new TextEncoder().encode(JSON.stringify(data) + args).length <= PUSH_DATA_MAX_BYTES) {
    data.args = args;
  }
  return { body, collapseId: n.id, data };
}
