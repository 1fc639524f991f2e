/**
 * The signature of the service's calls to the runner (DESIGN 3.3): `X-Workforce-Timestamp` (Unix
 * seconds) and `X-Workforce-Signature`, the lowercase hex HMAC-SHA256 with the shared secret of
 * `<timestamp>.<METHOD>.<path>.<raw body>`. A signature names one moment, one route and one body,
 * so it cannot be moved to another run or route, and the receiver refuses it outside a window
 * around its own clock. The calls the service receives keep spec 5.6's body-only signature
 * (`../hmac.ts`).
 *
 * @example
 * ```ts
 * const headers = await signRequest(secret, 1767614400, { method: "POST", path: "/runs", body });
 * const check = await checkRequestSignature(secret, new Headers(headers),
 *   { method: "POST", path: "/runs", body }, { now: clock.now(), windowSeconds: 300 });
 * // check.ok === true
 * ```
 */
import {
  hmacSha256Hex,
  SIGNATURE_HEADER,
  type VerificationKeys,
  verifyHmacSignature,
} from "../hmac.ts";

export const TIMESTAMP_HEADER = "X-Workforce-Timestamp";

/** How far a timestamp may be from the receiver's clock, either way, by default. */
export const DEFAULT_SIGNATURE_WINDOW_SECONDS = 300;

/** What a signature covers besides its timestamp. */
export interface SignedRequest {
  method: string;
  /** The path the runner routes on (`/runs`, `/runs/<id>/cancel`), without the query string. */
  path: string;
  body: Uint8Array | string;
}

const encoder = new TextEncoder();

/** The bytes signed: `<timestamp>.<METHOD>.<path>.<raw body>`. */
export function signedRequestMessage(timestamp: number, request: SignedRequest): Uint8Array {
  const head = encoder.encode(`${timestamp}.${request.method.toUpperCase()}.${request.path}.`);
  const body = typeof request.body === "string" ? encoder.encode(request.body) : request.body;
  const message = new Uint8Array(head.length + body.length);
  message.set(head);
  message.set(body, head.length);
  return message;
}

/** The two headers of a request signed with `secret` at `timestamp` (Unix seconds). */
export async function signRequest(
  secret: string,
  timestamp: number,
  request: SignedRequest,
): Promise<Record<string, string>> {
  return {
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: await hmacSha256Hex(secret, signedRequestMessage(timestamp, request)),
  };
}

export type RequestSignatureCheck =
  | {
    ok: true;
    timestamp: number;
    /** The signature as lowercase hex: what a replay would carry again. */
    signature: string;
  }
  | {
    ok: false;
    reason: "no_timestamp" | "outside_window" | "bad_signature";
    /** For the answer and the log; never holds a secret or a signature. */
    message: string;
  };

/** Unix seconds as a receiver accepts them: digits only, no sign, no fraction, no exponent. */
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks a request's timestamp against `now` (at most `windowSeconds` away, either way), then its
 * signature under one of `keys` (the current secret or, during a rotation, the next one). Replays
 * within the window are the receiver's to refuse: it remembers what passed.
 */
export async function checkRequestSignature(
  keys: VerificationKeys,
  headers: Headers,
  request: SignedRequest,
  options: { now: Date; windowSeconds: number },
): Promise<RequestSignatureCheck> {
  const stamp = headers.get(TIMESTAMP_HEADER)?.trim() ?? "";
  if (!UNIX_SECONDS.test(stamp)) {
    return {
      ok: false,
      reason: "no_timestamp",
      message: `missing or invalid ${TIMESTAMP_HEADER} (Unix seconds)`,
    };
  }
  const timestamp = Number(stamp);
  const skewSeconds = Math.abs(options.now.getTime() / 1000 - timestamp);
  if (skewSeconds > options.windowSeconds) {
    return {
      ok: false,
      reason: "outside_window",
      message: `${TIMESTAMP_HEADER} is ${
        Math.round(skewSeconds)
      } s from this clock, more than ${options.windowSeconds} s`,
    };
  }
  const signature = headers.get(SIGNATURE_HEADER);
  const message = signedRequestMessage(timestamp, request);
  if (!(await verifyHmacSignature(keys, message, signature))) {
    return {
      ok: false,
      reason: "bad_signature",
      message: `missing or invalid ${SIGNATURE_HEADER}`,
    };
  }
  return { ok: true, timestamp, signature: signature!.trim().toLowerCase() };
}
