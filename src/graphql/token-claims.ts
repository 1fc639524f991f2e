/**
 * The claims rules every session token this service mints (fallback and development tokens) is
 * held to, and identity-provider tokens too when `AUTH_TOKEN_MAX_AGE_SECONDS` is set: its age is
 * measured from `iat` by the service's clock, so an `iat` in the future cannot stretch a lifetime
 * cap, and it names this service as its audience. docs/auth.md, "Token age and audience".
 */
import type { JWTPayload } from "jose";

/** How far a token's `iat` may be ahead of the service's clock (hosts' clocks drift). */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

/** The `aud` of fallback and development tokens when `AUTH_AUDIENCE` is unset. */
export const DEFAULT_TOKEN_AUDIENCE = "goals-service";

/** The audience the service's own tokens carry and must carry: `AUTH_AUDIENCE`, else the default. */
export function serviceTokenAudience(config: { authAudience?: string }): string {
  return config.authAudience ?? DEFAULT_TOKEN_AUDIENCE;
}

/** Seconds a token may have lived since its `iat`: its kind's cap, lowered by the setting. */
export function tokenMaxAgeSeconds(
  kindCapSeconds: number | undefined,
  config: { authTokenMaxAgeSeconds?: number },
): number | undefined {
  const caps = [kindCapSeconds, config.authTokenMaxAgeSeconds].filter((cap) => cap !== undefined);
  return caps.length ? Math.min(...caps as number[]) : undefined;
}

/**
 * Why a token's `iat` is refused at `now`, or null: missing, further ahead than
 * {@link TOKEN_CLOCK_SKEW_SECONDS}, or older than `maxAgeSeconds`. The reason holds numbers only.
 */
export function issuedAtProblem(
  payload: JWTPayload,
  now: Date,
  maxAgeSeconds: number,
): string | null {
  const iat = payload.iat;
  if (typeof iat !== "number" || !Number.isFinite(iat)) return 'missing required "iat" claim';
  const nowSeconds = now.getTime() / 1000;
  const ahead = iat - nowSeconds;
  if (ahead > TOKEN_CLOCK_SKEW_SECONDS) {
    return `"iat" is ${
      Math.round(ahead)
    } s ahead of this clock (at most ${TOKEN_CLOCK_SKEW_SECONDS} s)`;
  }
  if (-ahead > maxAgeSeconds) {
    return `the token is older than ${maxAgeSeconds} s (measured from "iat")`;
  }
  return null;
}
