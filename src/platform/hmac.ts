/**
 * HMAC-SHA256 signatures for service-to-service calls (`X-Workforce-Signature`, spec 5.6): the
 * lowercase hex HMAC of the raw request body, keyed with the shared secret.
 *
 * @example
 * ```ts
 * const signature = await hmacSha256Hex("secret", body);
 * await verifyHmacSignature("secret", body, signature); // true
 * // During a rotation: the current secret or the next one.
 * await verifyHmacSignature(["secret", "next-secret"], body, signature); // true
 * ```
 */

/** The header that carries the signature on the runner protocol and the integration endpoints. */
export const SIGNATURE_HEADER = "X-Workforce-Signature";

const encoder = new TextEncoder();

function bytes(value: Uint8Array | string): Uint8Array<ArrayBuffer> {
  if (typeof value === "string") return encoder.encode(value);
  return new Uint8Array(value);
}

function importKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}

/** Lowercase hex HMAC-SHA256 of `body` keyed with `secret`. */
export async function hmacSha256Hex(secret: string, body: Uint8Array | string): Promise<string> {
  const key = await importKey(secret, "sign");
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes(body)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * The keys a signature may be made with: one secret, or the current one and, during a rotation,
 * the next one (`WORKFORCE_WEBHOOK_SECRET` and `WORKFORCE_WEBHOOK_SECRET_NEXT` on the service,
 * `WEBHOOK_SECRET` and `WEBHOOK_SECRET_NEXT` on the runner). Unset and empty entries are skipped.
 */
export type VerificationKeys = string | undefined | readonly (string | undefined)[];

/** The usable secrets of `keys`, without unset or empty ones. */
export function verificationSecrets(keys: VerificationKeys): string[] {
  const list = typeof keys === "string" || keys === undefined ? [keys] : keys;
  return list.filter((key): key is string => typeof key === "string" && key.length > 0);
}

/**
 * True when `signature` is the hex HMAC-SHA256 of `body` under one of `keys` (the current secret
 * or, during a rotation, the next one). False when no secret is set, or the signature is missing
 * or not 64 hex digits. Each comparison is constant time (WebCrypto's HMAC verify), and every key
 * is tried whatever the first answered, so the answer leaks nothing about how much of a guess
 * matched.
 */
export async function verifyHmacSignature(
  keys: VerificationKeys,
  body: Uint8Array | string,
  signature: string | null,
): Promise<boolean> {
  const secrets = verificationSecrets(keys);
  if (secrets.length === 0 || signature === null) return false;
  const candidate = signature.trim();
  if (!HEX_SHA256.test(candidate)) return false;
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i++) mac[i] = parseInt(candidate.slice(i * 2, i * 2 + 2), 16);
  const data = bytes(body);
  const verdicts = await Promise.all(
    secrets.map(async (secret) =>
      await crypto.subtle.verify("HMAC", await importKey(secret, "verify"), mac, data)
    ),
  );
  return verdicts.includes(true);
}

let comparisonKey: Promise<CryptoKey> | undefined;

/**
 * True when `given` equals the configured `expected` secret (e.g. a static `Authorization`
 * header). False when the secret is unset or empty or nothing was given. Constant time: both
 * values go through HMAC under a random per-process key and WebCrypto's verify compares the
 * digests, so neither the length nor the matching prefix of a guess shows in the timing.
 */
export async function secretsMatch(
  expected: string | undefined,
  given: string | null,
): Promise<boolean> {
  if (!expected || given === null) return false;
  comparisonKey ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]) as Promise<CryptoKey>;
  const key = await comparisonKey;
  const mac = await crypto.subtle.sign("HMAC", key, bytes(expected));
  return await crypto.subtle.verify("HMAC", key, mac, bytes(given));
}
