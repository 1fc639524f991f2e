/**
 * Token age and audience (docs/auth.md, "Token age and audience"): fallback and development tokens
 * are aged from `iat` by the service's clock (an `iat` ahead of it by more than 60 s is refused, so
 * it cannot stretch a lifetime cap), held to `AUTH_TOKEN_MAX_AGE_SECONDS` when set, and must name
 * this service as their audience; identity-provider tokens are aged too when the setting is set.
 */
import assert from "node:assert/strict";
import { decodeJwt, SignJWT } from "jose";
import { createTestApp, type TestApp } from "../support/app.ts";
import { codeOf, dataOf, gql } from "../support/graphql.ts";
import { AUDIENCE } from "../support/identity.ts";
import { runMain } from "../support/process.ts";
import { setup } from "../support/setup.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { parseConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/platform/env.ts";
import { FALLBACK_ISSUER, mintFallbackToken } from "../../src/graphql/auth.ts";
import { DEV_ISSUER, loadDevKey, mintDevToken } from "../../src/graphql/dev-auth.ts";
import { DEFAULT_TOKEN_AUDIENCE } from "../../src/graphql/token-claims.ts";

const SECRET = "0123456789abcdef0123456789abcdef-fallback";
const IS_ADMIN = `{ authzCheck(permission: "admin") }`;
const HOUR = 3600;
const YEAR = 365 * 86_400;

/** A fallback token with exactly these claims (what an attacker holding the secret could mint). */
function fallbackToken(claims: { iat: number; exp: number; aud?: string | string[] }) {
  const jwt = new SignJWT({ ...(claims.aud === undefined ? {} : { aud: claims.aud }) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(FALLBACK_ISSUER)
    .setSubject("admin-1")
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

const secondsOf = (clock: ManualClock) => Math.floor(clock.now().getTime() / 1000);

/** `authzCheck` for `token`: true/false when accepted, the error code when refused. */
async function ask(t: TestApp, token: string): Promise<boolean | string | undefined> {
  const result = await gql(t, IS_ADMIN, {}, { token });
  return result.status === 200 ? dataOf(result).authzCheck : codeOf(result);
}

/** The reasons the service logged for refused tokens, and that none holds a secret or token. */
function refusals(t: TestApp, secrets: string[]): string[] {
  const lines = t.log.entries.filter((e) => e.msg === "session token refused");
  for (const secret of secrets) {
    assert.ok(!JSON.stringify(t.log.entries).includes(secret), "the log holds no secret or token");
  }
  return lines.map((e) => String(e.reason));
}

Deno.test("token age: a fallback token issued in the future cannot stretch its 12 h cap", async () => {
  const ctx = await setup({ admins: ["admin-1"], env: { FALLBACK_AUTH_SECRET: SECRET } });
  try {
    const now = secondsOf(ctx.clock);
    // The finding: iat a year ahead, a 12 h span, accepted for a year.
    const yearAhead = await fallbackToken({
      iat: now + YEAR,
      exp: now + YEAR + 12 * HOUR,
      aud: AUDIENCE,
    });
    assert.equal(await ask(ctx.t, yearAhead), "UNAUTHENTICATED");
    const justOver = await fallbackToken({ iat: now + 61, exp: now + HOUR, aud: AUDIENCE });
    assert.equal(await ask(ctx.t, justOver), "UNAUTHENTICATED");
    // Within the clock skew, and the normal case, are accepted.
    const skewed = await fallbackToken({ iat: now + 60, exp: now + HOUR, aud: AUDIENCE });
    assert.equal(await ask(ctx.t, skewed), true);
    assert.equal(
      await ask(ctx.t, await mintFallbackToken(SECRET, "admin-1", HOUR, ctx.clock.now(), AUDIENCE)),
      true,
    );
    assert.deepEqual(refusals(ctx.t, [SECRET, yearAhead, justOver]), [
      `invalid fallback token: "iat" is ${YEAR} s ahead of this clock (at most 60 s)`,
      'invalid fallback token: "iat" is 61 s ahead of this clock (at most 60 s)',
    ]);
  } finally {
    await ctx.close();
  }
});

Deno.test("token age: fallback tokens must name this service's audience", async () => {
  const ctx = await setup({ admins: ["admin-1"], env: { FALLBACK_AUTH_SECRET: SECRET } });
  try {
    const now = secondsOf(ctx.clock);
    const span = { iat: now, exp: now + HOUR };
    const refused = [
      await fallbackToken(span),
      await fallbackToken({ ...span, aud: "https://another-service.example" }),
      await fallbackToken({ ...span, aud: DEFAULT_TOKEN_AUDIENCE }),
      await fallbackToken({ ...span, aud: [] }),
    ];
    for (const token of refused) assert.equal(await ask(ctx.t, token), "UNAUTHENTICATED");
    assert.equal(
      await ask(ctx.t, await fallbackToken({ ...span, aud: ["other", AUDIENCE] })),
      true,
    );
    assert.deepEqual(refusals(ctx.t, [SECRET, ...refused]), [
      'invalid fallback token: missing required "aud" claim',
      'invalid fallback token: unexpected "aud" claim value',
      'invalid fallback token: unexpected "aud" claim value',
      'invalid fallback token: unexpected "aud" claim value',
    ]);
  } finally {
    await ctx.close();
  }
  // Without AUTH_AUDIENCE the service's own audience is the default one, which mints use.
  const clock = new ManualClock();
  const t = await createTestApp({
    clock,
    env: { FALLBACK_AUTH_SECRET: SECRET, ADMIN_SUBJECTS: "admin-1" },
  });
  try {
    const now = secondsOf(clock);
    assert.equal(await ask(t, await mintFallbackToken(SECRET, "admin-1", HOUR, clock.now())), true);
    const foreign = await fallbackToken({ iat: now, exp: now + HOUR, aud: AUDIENCE });
    assert.equal(await ask(t, foreign), "UNAUTHENTICATED");
    assert.equal(
      await ask(t, await fallbackToken({ iat: now, exp: now + HOUR })),
      "UNAUTHENTICATED",
    );
  } finally {
    await t.close();
  }
});

Deno.test("token age: AUTH_TOKEN_MAX_AGE_SECONDS ages fallback tokens from iat", async () => {
  const ctx = await setup({
    admins: ["admin-1"],
    env: { FALLBACK_AUTH_SECRET: SECRET, AUTH_TOKEN_MAX_AGE_SECONDS: "600" },
  });
  try {
    const token = await mintFallbackToken(SECRET, "admin-1", HOUR, ctx.clock.now(), AUDIENCE);
    assert.equal(await ask(ctx.t, token), true);
    ctx.clock.advance(600_000);
    assert.equal(await ask(ctx.t, token), true, "600 s old: the limit itself");
    ctx.clock.advance(1_000);
    assert.equal(await ask(ctx.t, token), "UNAUTHENTICATED", "past the cached minute too");
    assert.deepEqual(refusals(ctx.t, [SECRET, token]), [
      'invalid fallback token: the token is older than 600 s (measured from "iat")',
    ]);
  } finally {
    await ctx.close();
  }
});

Deno.test("token age: development tokens follow the same rules", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "token-age-" });
  const clock = new ManualClock();
  const key = await loadDevKey(dataDir);
  const start = (env: Record<string, string> = {}) =>
    createTestApp({ clock, env: { DATA_DIR: dataDir, DEV_AUTH: "on", ...env } });
  const t = await start();
  try {
    const mint = (options: { now?: Date; ttlSeconds?: number; audience?: string } = {}) =>
      mintDevToken(key, "alice", { ttlSeconds: HOUR, now: clock.now(), ...options });
    assert.equal(await ask(t, await mint()), false, "accepted: alice is no admin");
    const ahead = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000);
    assert.equal(await ask(t, await mint({ now: ahead(60) })), false);
    const refused = [
      await mint({ now: ahead(YEAR), ttlSeconds: 12 * HOUR }),
      await mint({ now: ahead(61) }),
      await mint({ audience: "https://another-service.example" }),
      await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
        .setIssuer(DEV_ISSUER)
        .setSubject("alice")
        .setIssuedAt(secondsOf(clock))
        .setExpirationTime(secondsOf(clock) + HOUR)
        .sign(key.privateKey),
    ];
    for (const token of refused) assert.equal(await ask(t, token), "UNAUTHENTICATED");
    assert.deepEqual(refusals(t, refused), [
      `invalid development token: Error: "iat" is ${YEAR} s ahead of this clock (at most 60 s)`,
      'invalid development token: Error: "iat" is 61 s ahead of this clock (at most 60 s)',
      'invalid development token: ERR_JWT_CLAIM_VALIDATION_FAILED: unexpected "aud" claim value',
      'invalid development token: ERR_JWT_CLAIM_VALIDATION_FAILED: missing required "aud" claim',
    ]);
  } finally {
    await t.close();
  }
  const aged = await start({ AUTH_TOKEN_MAX_AGE_SECONDS: "600" });
  try {
    const token = await mintDevToken(key, "alice", { ttlSeconds: 7 * 86_400, now: clock.now() });
    assert.equal(await ask(aged, token), false);
    clock.advance(601_000);
    assert.equal(await ask(aged, token), "UNAUTHENTICATED");
  } finally {
    await aged.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("token age: identity-provider tokens are aged only when AUTH_TOKEN_MAX_AGE_SECONDS is set", async () => {
  for (const maxAge of [undefined, "600"]) {
    const ctx = await setup({ env: maxAge ? { AUTH_TOKEN_MAX_AGE_SECONDS: maxAge } : {} });
    try {
      const token = await ctx.idp.token({ sub: "user-1", expiresIn: 2 * HOUR });
      assert.equal(await ask(ctx.t, token), false, "fresh: accepted");
      // The service's clock behind the provider's by two minutes: the token's iat is ahead.
      const ahead = await ctx.idp.token({ sub: "user-2", expiresIn: HOUR });
      ctx.clock.advance(-120_000);
      const early = await ask(ctx.t, ahead);
      ctx.clock.advance(120_000 + 601_000);
      const old = await ask(ctx.t, token);
      if (maxAge) {
        assert.deepEqual([early, old], ["UNAUTHENTICATED", "UNAUTHENTICATED"]);
        assert.deepEqual(refusals(ctx.t, [token, ahead]), [
          'invalid session token: "iat" is 120 s ahead of this clock (at most 60 s)',
          'invalid session token: the token is older than 600 s (measured from "iat")',
        ]);
      } else {
        assert.deepEqual([early, old], [false, false], "only exp and nbf apply");
      }
    } finally {
      await ctx.close();
    }
  }
});

Deno.test("token age: AUTH_TOKEN_MAX_AGE_SECONDS is checked at start, and the mint commands keep to it", async () => {
  for (const bad of ["0", "59", String(30 * 86_400 + 1), "1h", "-600"]) {
    assert.throws(
      () => parseConfig({ AUTH_TOKEN_MAX_AGE_SECONDS: bad }),
      (err) => err instanceof ConfigError && err.variable === "AUTH_TOKEN_MAX_AGE_SECONDS",
      bad,
    );
  }
  assert.equal(parseConfig({}).authTokenMaxAgeSeconds, undefined);
  const env = {
    FALLBACK_AUTH_SECRET: SECRET,
    ADMIN_SUBJECTS: "admin-1",
    AUTH_TOKEN_MAX_AGE_SECONDS: "600",
  };
  const tooLong = await runMain(["fallback-token", "--sub", "admin-1", "--ttl", "1h"], env);
  assert.equal(tooLong.code, 2);
  assert.match(tooLong.stderr, /--ttl is longer than AUTH_TOKEN_MAX_AGE_SECONDS \(600 s\)/);
  const minted = await runMain(["fallback-token", "--sub", "admin-1", "--ttl", "10m"], {
    ...env,
    AUTH_AUDIENCE: "https://api.example.com",
  });
  assert.equal(minted.code, 0, minted.stderr);
  const claims = decodeJwt(minted.stdout.trim());
  assert.equal(claims.aud, "https://api.example.com");
  assert.equal(claims.exp! - claims.iat!, 600);
});
