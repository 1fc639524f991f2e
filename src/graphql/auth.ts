/**
 * Session tokens (spec 5): the identity provider's RS256 JWT in the `SessionToken` header,
 * verified against `AUTH_JWKS_URL` (keys cached; an unknown `kid` refetches, with a cooldown).
 * Fallback tokens (spec 5.9): HS256 with `iss: "fallback"`, signed by `FALLBACK_AUTH_SECRET`,
 * admin subjects only, at most 12 h, each use logged with `fallback_auth`.
 * Development tokens (`DEV_AUTH=on` only): ES256, signed by the key under `DATA_DIR`
 * (`dev-auth.ts`), any subject, admin when minted with `--admin`.
 * Both carry this service's audience and are aged from `iat` (`token-claims.ts`), as
 * identity-provider tokens are when `AUTH_TOKEN_MAX_AGE_SECONDS` is set.
 * A token that passed is kept briefly (`token-cache.ts`), never past its `exp`.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import type { Config } from "../config.ts";
import type { Clock } from "../platform/clock.ts";
import type { Logger } from "../platform/log.ts";
import { textProblem } from "../platform/text.ts";
import {
  DEV_ADMIN_CLAIM,
  DEV_ALGORITHM,
  DEV_MAX_TTL_SECONDS,
  type DevKey,
  loadDevKey,
  verifyDevToken,
} from "./dev-auth.ts";
import {
  DEFAULT_TOKEN_AUDIENCE,
  issuedAtProblem,
  serviceTokenAudience,
  tokenMaxAgeSeconds,
} from "./token-claims.ts";
import {
  type CachedToken,
  createVerifiedTokenCache,
  type VerifiedToken,
  type VerifiedTokenCache,
} from "./token-cache.ts";

export const SESSION_TOKEN_HEADER = "SessionToken";
export const FALLBACK_ISSUER = "fallback";
export const FALLBACK_MAX_TTL_SECONDS = 12 * 60 * 60;

export type { VerifiedToken };

/** Longest `sub` accepted: identity providers' subjects are far shorter (Auth0's, Google's). */
export const SUBJECT_MAX_CHARS = 255;

/**
 * A subject names the user row, so it is never truncated: one too long or not text is refused.
 * Display claims (names, usernames) are cut to size or ignored where users are created.
 */
function checkSubject(subject: unknown): asserts subject is string {
  if (typeof subject !== "string") throw new AuthError("the token's sub claim is not a string");
  const problem = textProblem(subject, SUBJECT_MAX_CHARS);
  if (problem || !subject) {
    throw new AuthError(`the token's sub claim ${problem ?? "is empty"}`);
  }
}

export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthError";
  }
}

export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export interface VerifierDeps {
  config: Pick<
    Config,
    | "authJwksUrl"
    | "authIssuer"
    | "authAudience"
    | "fallbackAuthSecret"
    | "authTokenMaxAgeSeconds"
    | "adminSubjects"
    | "devAuth"
    | "dataDir"
  >;
  clock: Clock;
  log: Logger;
  /** Where verified tokens are kept (default: a cache of this verifier's own). */
  tokenCache?: VerifiedTokenCache;
}

export function createTokenVerifier(deps: VerifierDeps): TokenVerifier {
  const { config } = deps;
  const jwks = config.authJwksUrl
    ? createRemoteJWKSet(new URL(config.authJwksUrl), {
      timeoutDuration: 3000,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    })
    : undefined;
  const fallbackKey = config.fallbackAuthSecret
    ? new TextEncoder().encode(config.fallbackAuthSecret)
    : undefined;
  const audience = serviceTokenAudience(config);
  const fallbackMaxAge = tokenMaxAgeSeconds(FALLBACK_MAX_TTL_SECONDS, config)!;
  const devMaxAge = tokenMaxAgeSeconds(DEV_MAX_TTL_SECONDS, config)!;
  const providerMaxAge = config.authTokenMaxAgeSeconds;

  async function verifyFallback(token: string): Promise<VerifiedToken> {
    if (!fallbackKey) throw new AuthError("fallback authentication is not enabled");
    const now = deps.clock.now();
    const { payload } = await jwtVerify(token, fallbackKey, {
      algorithms: ["HS256"],
      issuer: FALLBACK_ISSUER,
      audience,
      currentDate: now,
      requiredClaims: ["sub", "exp", "iat"],
    }).catch((err) => {
      throw new AuthError(`invalid fallback token: ${err.message}`);
    });
    checkSubject(payload.sub!);
    if (payload.exp! - payload.iat! > FALLBACK_MAX_TTL_SECONDS) {
      throw new AuthError("fallback token lifetime exceeds 12 hours");
    }
    const problem = issuedAtProblem(payload, now, fallbackMaxAge);
    if (problem) throw new AuthError(`invalid fallback token: ${problem}`);
    if (!config.adminSubjects.includes(payload.sub!)) {
      throw new AuthError("fallback tokens are for admin subjects only");
    }
    return {
      subject: payload.sub!,
      claims: payload,
      fallback: true,
      expiresAt: Math.min(payload.exp!, payload.iat! + fallbackMaxAge),
    };
  }

  let devKey: Promise<DevKey> | undefined;
  const loadDevKeyOnce = () =>
    devKey ??= loadDevKey(config.dataDir).catch((err) => {
      devKey = undefined;
      throw err;
    });

  async function verifyDev(token: string): Promise<VerifiedToken> {
    if (!config.devAuth) throw new AuthError("development tokens are refused: DEV_AUTH is not on");
    const payload = await verifyDevToken(await loadDevKeyOnce(), token, {
      now: deps.clock.now(),
      audience,
      maxAgeSeconds: devMaxAge,
    }).catch((err) => {
      throw new AuthError(`invalid development token: ${err.code ?? err.name}: ${err.message}`);
    });
    checkSubject(payload.sub!);
    return {
      subject: payload.sub!,
      claims: payload,
      fallback: false,
      admin: payload[DEV_ADMIN_CLAIM] === true,
      expiresAt: Math.min(payload.exp!, payload.iat! + devMaxAge),
    };
  }

  async function verifyProvider(token: string): Promise<VerifiedToken> {
    if (!jwks) throw new AuthError("no identity provider is configured");
    const now = deps.clock.now();
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: ["RS256"],
      issuer: config.authIssuer,
      audience: config.authAudience,
      currentDate: now,
      requiredClaims: ["sub", "exp"],
    }).catch((err) => {
      throw new AuthError(`invalid session token: ${err.code ?? err.name}: ${err.message}`);
    });
    checkSubject(payload.sub!);
    let expiresAt = payload.exp!;
    if (providerMaxAge !== undefined) {
      const problem = issuedAtProblem(payload, now, providerMaxAge);
      if (problem) throw new AuthError(`invalid session token: ${problem}`);
      expiresAt = Math.min(expiresAt, payload.iat! + providerMaxAge);
    }
    return { subject: payload.sub!, claims: payload, fallback: false, expiresAt };
  }

  const cache = deps.tokenCache ?? createVerifiedTokenCache(deps.clock);

  /** Whether tokens of `kind` verified earlier may still be accepted. */
  function stillAccepted({ kind, verified }: CachedToken): boolean {
    if (kind === "fallback") {
      return fallbackKey !== undefined && config.adminSubjects.includes(verified.subject);
    }
    return kind === "dev" ? config.devAuth : jwks !== undefined;
  }

  function accepted(entry: CachedToken): VerifiedToken {
    if (entry.kind === "fallback") {
      deps.log.warn("fallback authentication used", {
        fallback_auth: true,
        sub: entry.verified.subject,
      });
    }
    return entry.verified;
  }

  return async (token) => {
    const cached = cache.get(token);
    if (cached && stillAccepted(cached)) return accepted(cached);
    if (cached) cache.clear(cached.kind);
    const entry = await verifyUncached(token);
    cache.set(token, entry);
    return accepted(entry);
  };

  async function verifyUncached(token: string): Promise<CachedToken> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new AuthError("session token is not a JWT");
    }
    if (header.alg === "HS256") return { kind: "fallback", verified: await verifyFallback(token) };
    if (header.alg === DEV_ALGORITHM) return { kind: "dev", verified: await verifyDev(token) };
    if (header.alg !== "RS256") {
      // The caller wrote it, and the reason is logged: bounded.
      const alg = String(JSON.stringify(header.alg)).slice(0, 40);
      throw new AuthError(`unsupported token algorithm ${alg}`);
    }
    if (!header.kid) throw new AuthError("session token has no key id (kid)");
    return { kind: "provider", verified: await verifyProvider(token) };
  }
}

/** Parses `30m`, `1h`, `2d`-style lifetimes into seconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(text.trim());
  if (!match) throw new Error(`invalid ttl ${JSON.stringify(text)} (use e.g. 30m or 1h)`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

/**
 * Mints a fallback token offline (operators only: `main.ts fallback-token`), for the service whose
 * `AUTH_AUDIENCE` is `audience` (its default when unset: `DEFAULT_TOKEN_AUDIENCE`).
 */
export async function mintFallbackToken(
  secret: string,
  subject: string,
  ttlSeconds: number,
  now = new Date(),
  audience = DEFAULT_TOKEN_AUDIENCE,
): Promise<string> {
  if (ttlSeconds <= 0 || ttlSeconds > FALLBACK_MAX_TTL_SECONDS) {
    throw new Error("ttl must be between 1 second and 12 hours");
  }
  const iat = Math.floor(now.getTime() / 1000);
  return await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(FALLBACK_ISSUER)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}
