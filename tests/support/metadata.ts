/**
 * A local stand-in for the cloud metadata server (identity tokens for an audience, spec 5.8) and
 * the token issuer's JWKS: RS256 tokens minted on `GET /identity?audience=...` with the header
 * `Metadata-Flavor: Google`, the public key at `GET /jwks`. Records every token request.
 */
import { createLocalJWKSet, exportJWK, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../../src/platform/clock.ts";
import { type FakeServer, startFakeServer } from "./http.ts";
import { lendKeyPair } from "./keys.ts";

export const METADATA_ISSUER = "https://idp.test";

export interface MetadataServer {
  server: FakeServer;
  /** `OIDC_TOKEN_URL`. */
  tokenUrl: string;
  /** `OIDC_JWKS_URL`. */
  jwksUrl: string;
  /** An identity token for `audience`, as the endpoint issues them. */
  mint(audience: string, lifetimeS?: number): Promise<string>;
  /** The audience of a bearer it issued (throws for anything it did not sign). */
  audienceOf(authorization: string | null): Promise<string>;
  close(): Promise<void>;
}

export async function startMetadataServer(clock: Clock): Promise<MetadataServer> {
  const lent = await lendKeyPair();
  const { publicKey, privateKey } = lent;
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const keys = createLocalJWKSet({ keys: [jwk] });
  const mint = (audience: string, lifetimeS = 3600) => {
    const now = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({ email: "service@project.iam" })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(METADATA_ISSUER)
      .setAudience(audience)
      .setSubject("service-account")
      .setIssuedAt(now)
      .setExpirationTime(now + lifetimeS)
      .sign(privateKey);
  };
  const server = startFakeServer(async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
    if (req.headers.get("metadata-flavor") !== "Google") return new Response("", { status: 403 });
    return new Response(await mint(url.searchParams.get("audience") ?? ""));
  });
  return {
    server,
    tokenUrl: `${server.url}/identity`,
    jwksUrl: `${server.url}/jwks`,
    mint,
    async audienceOf(authorization) {
      const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
      if (!token) throw new Error(`not a bearer: ${authorization}`);
      const { payload } = await jwtVerify(token, keys, {
        issuer: METADATA_ISSUER,
        currentDate: clock.now(),
      });
      return String(payload.aud);
    },
    async close() {
      await server.close();
      lent.release();
    },
  };
}

/** A loopback port free right now (for a process that must know its own URL before it starts). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
