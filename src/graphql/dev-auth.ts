/**
 * Development sign-in (`DEV_AUTH=on`): an ES256 key pair kept in `DATA_DIR/dev-auth-key.json`,
 * created on first use, that signs session tokens for any subject (`main.ts dev-token`), so every
 * feature can be tried without an identity provider. `src/config.ts` refuses it in production.
 */
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import { join } from "node:path";
import { DEFAULT_TOKEN_AUDIENCE, issuedAtProblem } from "./token-claims.ts";

export const DEV_ALGORITHM = "ES256";
export const DEV_ISSUER = "dev-auth";
/** A token minted with `--admin` holds the admin permission whatever `ADMIN_SUBJECTS` says. */
export const DEV_ADMIN_CLAIM = "dev_admin";
export const DEV_MAX_TTL_SECONDS = 30 * 86_400;

export interface DevKey {
  /** The file the key pair is kept in. */
  path: string;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

export const devKeyPath = (dataDir: string) => join(dataDir, "dev-auth-key.json");

/** Reads the development key pair under `dataDir`, creating it when there is none. */
export async function loadDevKey(dataDir: string): Promise<DevKey> {
  const path = devKeyPath(dataDir);
  const jwk = await readJwk(path) ?? await createJwk(dataDir, path);
  const { d: _private, ...publicJwk } = jwk;
  return {
    path,
    kid: jwk.kid!,
    privateKey: await importKey(jwk),
    publicKey: await importKey(publicJwk),
  };
}

async function importKey(jwk: JWK): Promise<CryptoKey> {
  const key = await importJWK(jwk, DEV_ALGORITHM);
  if (key instanceof Uint8Array) throw new Error("the development key is not an asymmetric key");
  return key;
}

async function readJwk(path: string): Promise<JWK | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`cannot read the development key ${path}: ${(err as Error).message}`);
  }
}

/**
 * Writes a new key pair without ever exposing a half-written file: the service and
 * `main.ts dev-token` may both create it at once, and the first hard link wins.
 */
async function createJwk(dataDir: string, path: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const { d: _private, ...publicJwk } = jwk;
  jwk.kid = await calculateJwkThumbprint(publicJwk);
  jwk.alg = DEV_ALGORITHM;
  await Deno.mkdir(dataDir, { recursive: true });
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, JSON.stringify(jwk), { mode: 0o600 });
  try {
    await Deno.link(temporary, path);
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  } finally {
    await Deno.remove(temporary);
  }
  return (await readJwk(path))!;
}

/**
 * Mints a development session token for the service whose `AUTH_AUDIENCE` is `options.audience`
 * (its default when unset: `DEFAULT_TOKEN_AUDIENCE`).
 */
export async function mintDevToken(
  key: DevKey,
  subject: string,
  options: { ttlSeconds: number; admin?: boolean; now?: Date; audience?: string },
): Promise<string> {
  if (options.ttlSeconds <= 0 || options.ttlSeconds > DEV_MAX_TTL_SECONDS) {
    throw new Error("ttl must be between 1 second and 30 days");
  }
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  // The subject doubles as the username (cleaned like a provider's) so users are easy to tell apart.
  const claims = {
    preferred_username: subject,
    ...(options.admin ? { [DEV_ADMIN_CLAIM]: true } : {}),
  };
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: key.kid, typ: "JWT" })
    .setIssuer(DEV_ISSUER)
    .setAudience(options.audience ?? DEFAULT_TOKEN_AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds)
    .sign(key.privateKey);
}

/**
 * Verifies a development token's signature, issuer, audience, lifetime and age (from `iat`, at
 * most `maxAgeSeconds`, not ahead of `now` beyond the clock skew); throws jose's errors or an
 * `Error` saying what is wrong.
 */
export async function verifyDevToken(
  key: DevKey,
  token: string,
  options: { now: Date; audience: string; maxAgeSeconds: number },
): Promise<JWTPayload & Record<string, unknown>> {
  const { payload } = await jwtVerify(token, key.publicKey, {
    algorithms: [DEV_ALGORITHM],
    issuer: DEV_ISSUER,
    audience: options.audience,
    currentDate: options.now,
    requiredClaims: ["sub", "exp", "iat"],
  });
  if (payload.exp! - payload.iat! > DEV_MAX_TTL_SECONDS) {
    throw new Error("development token lifetime exceeds 30 days");
  }
  const problem = issuedAtProblem(payload, options.now, options.maxAgeSeconds);
  if (problem) throw new Error(problem);
  return payload;
}
