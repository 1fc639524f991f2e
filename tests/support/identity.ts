/**
 * A stand-in identity provider: RS256 keys generated at test start, a real JWKS endpoint, and
 * tokens minted with any claims (or deliberately broken ones).
 */
import { exportJWK, type JWK, SignJWT } from "jose";
import type { Clock } from "../../src/platform/clock.ts";
import { startFakeServer } from "./http.ts";
import { lendKeyPair, type LentKeyPair } from "./keys.ts";

export const ISSUER = "https://id.test.local/";
export const AUDIENCE = "goals-app";

export interface TokenOptions {
  sub?: string;
  claims?: Record<string, unknown>;
  /** Seconds from the clock's now; negative = already expired. */
  expiresIn?: number;
  notBefore?: number;
  issuer?: string;
  audience?: string;
  /** Sign with a key the JWKS does not hold (under the published kid). */
  foreignKey?: boolean;
  /** Leave `kid` out of the header. */
  noKid?: boolean;
}

export interface IdentityProvider {
  jwksUrl: string;
  env: Record<string, string>;
  token(options?: TokenOptions): Promise<string>;
  /** Make the JWKS endpoint answer 503. */
  setDown(down: boolean): void;
  jwksRequests(): number;
  close(): Promise<void>;
}

export async function startIdentityProvider(clock: Clock): Promise<IdentityProvider> {
  const kid = `key-${crypto.randomUUID().slice(0, 8)}`;
  const own = await lendKeyPair();
  const { publicKey, privateKey } = own;
  // A key the JWKS does not hold, lent only to providers whose tests sign with one.
  let foreign: Promise<LentKeyPair> | undefined;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  let down = false;
  const server = startFakeServer(() =>
    down ? new Response("unavailable", { status: 503 }) : Response.json({ keys: [jwk] })
  );
  return {
    jwksUrl: `${server.url}/.well-known/jwks.json`,
    env: {
      AUTH_JWKS_URL: `${server.url}/.well-known/jwks.json`,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
    },
    async token(options = {}) {
      const now = Math.floor(clock.now().getTime() / 1000);
      const jwt = new SignJWT({ ...options.claims })
        .setProtectedHeader(options.noKid ? { alg: "RS256" } : { alg: "RS256", kid })
        .setSubject(options.sub ?? "user-1")
        .setIssuer(options.issuer ?? ISSUER)
        .setAudience(options.audience ?? AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + (options.expiresIn ?? 3600));
      if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
      if (!options.foreignKey) return await jwt.sign(privateKey);
      foreign ??= lendKeyPair();
      return await jwt.sign((await foreign).privateKey);
    },
    setDown: (value) => (down = value),
    jwksRequests: () => server.requests.length,
    async close() {
      await server.close();
      own.release();
      (await foreign)?.release();
    },
  };
}
