/**
 * Verified session tokens, kept briefly so a client's next requests skip the signature check.
 * Keyed by the SHA-256 of the token (the token itself is never held), bounded in size (least
 * recently used goes first), and an entry ends at the token's `exp` (or when it gets too old,
 * `expiresAt`), at the latest after
 * `maxAgeMs`, and whenever the clock reads before its `nbf`. Only tokens that passed
 * verification are put here.
 */
import { createHash } from "node:crypto";
import type { Clock } from "../platform/clock.ts";
import type { JWTPayload } from "jose";

/** What a verifier accepted: the subject and claims of a token that passed. */
export interface VerifiedToken {
  subject: string;
  claims: JWTPayload & Record<string, unknown>;
  fallback: boolean;
  /** A development token minted with `--admin`: an admin whatever `ADMIN_SUBJECTS` says. */
  admin?: boolean;
  /** Seconds since the epoch: `exp`, or earlier when the token's age runs out; sockets end here. */
  expiresAt?: number;
}

/** Which verifier accepted a token: a cached token is only as good as its verifier still is. */
export type VerifierKind = "provider" | "fallback" | "dev";

export interface CachedToken {
  kind: VerifierKind;
  verified: VerifiedToken;
}

export interface VerifiedTokenCache {
  /** The still valid entry of `token`, or null. */
  get(token: string): CachedToken | null;
  /** Keeps a token that just passed verification (one without `exp` is not kept). */
  set(token: string, entry: CachedToken): void;
  /** Forgets every entry of one verifier. */
  clear(kind?: VerifierKind): void;
  readonly size: number;
}

export const TOKEN_CACHE_MAX_ENTRIES = 10_000;
/** Bounds how long a key removed from the provider's JWKS keeps a verified token accepted. */
export const TOKEN_CACHE_MAX_AGE_MS = 60_000;

interface Entry extends CachedToken {
  notBeforeMs: number;
  untilMs: number;
}

const tokenKey = (token: string) => createHash("sha256").update(token).digest("base64");

export function createVerifiedTokenCache(
  clock: Clock,
  { maxEntries = TOKEN_CACHE_MAX_ENTRIES, maxAgeMs = TOKEN_CACHE_MAX_AGE_MS } = {},
): VerifiedTokenCache {
  const entries = new Map<string, Entry>();
  return {
    get(token) {
      const key = tokenKey(token);
      const entry = entries.get(key);
      if (!entry) return null;
      const now = clock.now().getTime();
      if (now >= entry.untilMs || now < entry.notBeforeMs) {
        entries.delete(key);
        return null;
      }
      // Re-inserted last: the map's order is the order of use.
      entries.delete(key);
      entries.set(key, entry);
      return { kind: entry.kind, verified: entry.verified };
    },
    set(token, { kind, verified }) {
      const exp = verified.claims.exp;
      if (typeof exp !== "number") return;
      const now = clock.now().getTime();
      const nbf = verified.claims.nbf;
      const untilMs = Math.min(exp * 1000, (verified.expiresAt ?? exp) * 1000, now + maxAgeMs);
      if (now >= untilMs) return;
      const key = tokenKey(token);
      entries.delete(key);
      entries.set(key, {
        kind,
        verified,
        notBeforeMs: typeof nbf === "number" ? nbf * 1000 : -Infinity,
        untilMs,
      });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    clear(kind) {
      if (!kind) return entries.clear();
      for (const [key, entry] of entries) if (entry.kind === kind) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
