/**
 * OIDC identity tokens for service-to-service calls (spec 5.8, DESIGN 3.1 and 3.2), fetched from a
 * metadata endpoint (`OIDC_TOKEN_URL?audience=...`, header `Metadata-Flavor: Google`) and cached
 * per audience until one minute before they expire; used by both programs (the service toward the
 * runner and the LLM proxy, the runner toward the service and the LLM proxy). Also the check of
 * incoming bearers (the runner's `AUTH_MODE=oidc`).
 *
 * @example
 * ```ts
 * const tokens = createTokenSource({ tokenUrl, fetch, clock: systemClock });
 * const bearer = await tokens.token("https://api.example.com");
 * ```
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import type { Clock } from "./clock.ts";

/** The Google metadata server's identity-token endpoint (Cloud Run, GCE, GKE). */
export const DEFAULT_OIDC_TOKEN_URL =
  "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/identity";

export interface TokenSource {
  /** An identity token for `audience`, from the cache while it has more than a minute left. */
  token(audience: string): Promise<string>;
}

export interface TokenSourceOptions {
  tokenUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Refresh this long before `exp`. */
  refreshBeforeMs?: number;
  /** Bound on one call to the token endpoint (default 10 s). */
  timeoutMs?: number;
}

/** Lifetime assumed for a token without a readable `exp`. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const refreshBeforeMs = options.refreshBeforeMs ?? 60_000;
  const cache = new Map<string, { token: string; expiresAt: number }>();
  const pending = new Map<string, Promise<string>>();

  const fetchToken = async (audience: string): Promise<string> => {
    const url = new URL(options.tokenUrl);
    url.searchParams.set("audience", audience);
    url.searchParams.set("format", "full");
    const res = await options.fetch(url, {
      headers: { "Metadata-Flavor": "Google" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = (await res.text()).trim();
    if (!res.ok) throw new Error(`OIDC token endpoint answered ${res.status}`);
    const token = text.startsWith("{") ? String(JSON.parse(text).id_token ?? "") : text;
    if (!token) throw new Error("OIDC token endpoint answered without a token");
    let expiresAt = options.clock.now().getTime() + DEFAULT_LIFETIME_MS;
    try {
      const exp = decodeJwt(token).exp;
      if (typeof exp === "number") expiresAt = exp * 1000;
    } catch {
      // Not a JWT: keep the default lifetime.
    }
    cache.set(audience, { token, expiresAt });
    return token;
  };

  return {
    token(audience) {
      const cached = cache.get(audience);
      if (cached && cached.expiresAt - refreshBeforeMs > options.clock.now().getTime()) {
        return Promise.resolve(cached.token);
      }
      let inFlight = pending.get(audience);
      if (!inFlight) {
        inFlight = fetchToken(audience).finally(() => pending.delete(audience));
        pending.set(audience, inFlight);
      }
      return inFlight;
    },
  };
}

/** The audience Google-style identity tokens use for a service: the origin of its URL. */
export function audienceOf(url: string): string {
  return new URL(url).origin;
}

export interface BearerVerifier {
  /** True when the `Authorization` header holds a valid bearer for this runner. */
  verify(authorization: string | null): Promise<boolean>;
}

export function createBearerVerifier(options: {
  jwksUrl: string;
  issuer: string;
  audience: string;
  clock: Clock;
}): BearerVerifier {
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl));
  return {
    async verify(authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
      if (!match) return false;
      try {
        await jwtVerify(match[1], jwks, {
          issuer: options.issuer,
          audience: options.audience,
          currentDate: options.clock.now(),
        });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** How a program authenticates to the LLM proxy (DESIGN 3.2). */
export interface LlmProxyAuth {
  baseUrl: string;
  apiKey?: string;
  /** `oidc`: an identity token for the proxy's origin is the bearer (spec 5.8). */
  authMode?: "oidc";
  tokens?: TokenSource;
}

/**
 * The headers of a call to the LLM proxy: the key as the bearer, or with `oidc` an identity token
 * for the proxy's origin as the bearer and the key in `x-litellm-api-key` (LiteLLM's header).
 */
export async function llmProxyHeaders(auth: LlmProxyAuth): Promise<Record<string, string>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth.authMode !== "oidc") {
    if (auth.apiKey) headers.authorization = `Bearer ${auth.apiKey}`;
    return headers;
  }
  if (!auth.tokens) throw new Error("LLM_AUTH_MODE=oidc needs a token source");
  headers.authorization = `Bearer ${await auth.tokens.token(audienceOf(auth.baseUrl))}`;
  if (auth.apiKey) headers["x-litellm-api-key"] = `Bearer ${auth.apiKey}`;
  return headers;
}
