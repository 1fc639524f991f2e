/** Public identifiers: URL-safe base64 of 16 random bytes (22 characters). */
import { encodeBase64Url } from "./base64url.ts";

export function publicId(bytes = 16): string {
  return encodeBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** True for strings shaped like a publicId (cheap input validation before a lookup). */
export function looksLikePublicId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22,64}$/.test(value);
}
