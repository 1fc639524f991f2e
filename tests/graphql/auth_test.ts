import assert from "node:assert/strict";
import { createTestApp, logged } from "../support/app.ts";
import { dataOf, gql, USER_ERRORS } from "../support/graphql.ts";
import { AUDIENCE, startIdentityProvider } from "../support/identity.ts";
import { setup } from "../support/setup.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { mintFallbackToken } from "../../src/graphql/auth.ts";
import { requireAdmin } from "../../src/graphql/context.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";

const FALLBACK_SECRET = "0123456789abcdef0123456789abcdef-fallback";

const probeModule: SchemaModule = {
  typeDefs: `extend type Query { adminOnly: String!  openToAll: String! }`,
  resolvers: {
    Query: {
      adminOnly: (_: unknown, __: unknown, ctx: Parameters<typeof requireAdmin>[0]) => {
        requireAdmin(ctx);
        return "secret";
      },
      openToAll: () => "hello",
    },
  },
  publicFields: ["openToAll"],
};

/** The shared setup with `admin-1` as the service admin and the probe module. */
const setupAuth = (env: Record<string, string> = {}) =>
  setup({ admins: ["admin-1"], env, app: { extraModules: [probeModule] } });

const ME =
  `{ me { id username firstName lastName timeZone isSupporter supporterTier onboardingCompletedAt } }`;
const SYNC =
  `mutation { syncUser { user { id firstName lastName username } firstSignIn ${USER_ERRORS} } }`;

function assert401(
  result: { status: number; body: { errors: { extensions: { code: string } }[] } },
) {
  assert.equal(result.status, 401);
  assert.equal(result.body.errors[0].extensions.code, "UNAUTHENTICATED");
  assert.equal(typeof (result.body.errors[0] as unknown as { message: string }).message, "string");
}

Deno.test("auth: a valid SessionToken reaches me; syncUser reports the first sign-in once", async () => {
  const ctx = await setupAuth();
  try {
    const token = await ctx.idp.token({
      sub: "user-1",
      claims: { given_name: "Ada", family_name: "Lovelace", preferred_username: "ada" },
    });
    const first = dataOf(await gql(ctx.t, SYNC, {}, { token }));
    assert.equal(first.syncUser.firstSignIn, true);
    assert.deepEqual(first.syncUser.errors, []);
    assert.equal(first.syncUser.user.firstName, "Ada");
    assert.equal(first.syncUser.user.lastName, "Lovelace");
    assert.equal(first.syncUser.user.username, "ada");
    assert.match(first.syncUser.user.id, /^[A-Za-z0-9_-]{22,}$/);

    const second = dataOf(await gql(ctx.t, SYNC, {}, { token }));
    assert.equal(second.syncUser.firstSignIn, false);
    assert.equal(second.syncUser.user.id, first.syncUser.user.id);

    const me = dataOf(await gql(ctx.t, ME, {}, { token })).me;
    assert.equal(me.id, first.syncUser.user.id);
    assert.equal(me.timeZone, "UTC");
    assert.equal(me.isSupporter, false);
    assert.equal(me.supporterTier, null);
    assert.equal(me.onboardingCompletedAt, null);

    const [entry] = logged(ctx.t.log, "request").slice(-1);
    assert.equal(entry.user_id, me.id);
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: the first authenticated request of any kind is the first sign-in", async () => {
  const ctx = await setupAuth();
  try {
    const token = await ctx.idp.token({ sub: "user-2" });
    dataOf(await gql(ctx.t, ME, {}, { token }));
    const sync = dataOf(await gql(ctx.t, SYNC, {}, { token }));
    assert.equal(sync.syncUser.firstSignIn, false);
    assert.match(sync.syncUser.user.username, /^user_[a-z0-9]{8}$/, "generated username");
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: concurrent first requests of one user create one user", async () => {
  const ctx = await setupAuth();
  try {
    const token = await ctx.idp.token({ sub: "racer", claims: { username: "racer" } });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => gql(ctx.t, SYNC, {}, { token })),
    );
    const payloads = results.map((r) => dataOf(r).syncUser);
    assert.equal(new Set(payloads.map((p) => p.user.id)).size, 1);
    assert.equal(payloads.filter((p) => p.firstSignIn).length, 1);
    const [{ n }] = await ctx.t.deps.db
      .sql`select count(*)::int as n from users where subject = 'racer'`;
    assert.equal(n, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: taken usernames get a unique variant", async () => {
  const ctx = await setupAuth();
  try {
    const a = dataOf(
      await gql(ctx.t, SYNC, {}, {
        token: await ctx.idp.token({ sub: "a", claims: { username: "sam" } }),
      }),
    );
    const b = dataOf(
      await gql(ctx.t, SYNC, {}, {
        token: await ctx.idp.token({ sub: "b", claims: { username: "SAM" } }),
      }),
    );
    assert.equal(a.syncUser.user.username, "sam");
    assert.notEqual(b.syncUser.user.username.toLowerCase(), "sam");
    assert.match(b.syncUser.user.username, /^SAM_/);
  } finally {
    await ctx.close();
  }
});

for (
  const [label, options] of [
    ["expired", { expiresIn: -10 }],
    ["not yet valid (nbf)", { notBefore: 600 }],
    ["signed by another key", { foreignKey: true }],
    ["from another issuer", { issuer: "https://evil.example/" }],
    ["for another audience", { audience: "other-app" }],
    ["without a kid", { noKid: true }],
  ] as const
) {
  Deno.test(`auth: a token ${label} answers 401 UNAUTHENTICATED`, async () => {
    const ctx = await setupAuth();
    try {
      const token = await ctx.idp.token(options);
      assert401(await gql(ctx.t, ME, {}, { token }));
      const [{ n }] = await ctx.t.deps.db.sql`select count(*)::int as n from users`;
      assert.equal(n, 0, "no user is created for a refused token");
    } finally {
      await ctx.close();
    }
  });
}

Deno.test("auth: a sub that is too long or not text is 401 with a reason, and creates no user", async () => {
  const ctx = await setupAuth();
  try {
    for (const sub of ["s".repeat(20_000), "s".repeat(256), "user\u0000x", "\ud800abc"]) {
      const result = await gql(ctx.t, ME, {}, { token: await ctx.idp.token({ sub }) });
      assert401(result);
    }
    const reasons = logged(ctx.t.log, "session token refused").map((e) => String(e.reason));
    assert.ok(
      reasons.some((r) => /sub claim is longer than 255 characters/.test(r)),
      reasons.join(),
    );
    assert.ok(reasons.some((r) => /sub claim contains a control character/.test(r)));
    const [{ n }] = await ctx.t.deps.db.sql`select count(*)::int as n from users`;
    assert.equal(n, 0);
    // 255 characters is a subject.
    dataOf(await gql(ctx.t, ME, {}, { token: await ctx.idp.token({ sub: "s".repeat(255) }) }));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: huge or hostile display claims are cut to size or ignored, never a failure", async () => {
  const ctx = await setupAuth();
  try {
    const claims = {
      given_name: "😀".repeat(20_000),
      family_name: "Doe\u0000",
      username: "u".repeat(20_000),
      preferred_username: "\ud800",
      name: "x".repeat(50_000),
    };
    const token = await ctx.idp.token({ sub: "hostile-claims", claims });
    const me = dataOf(await gql(ctx.t, ME, {}, { token })).me;
    assert.equal(me.firstName, "😀".repeat(50), "cut to 50 characters, never half a character");
    assert.equal(me.lastName, null, "a name with a control character is ignored");
    assert.equal(me.username, "u".repeat(30));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: garbage in SessionToken, or only Authorization: Bearer, is 401", async () => {
  const ctx = await setupAuth();
  try {
    assert401(await gql(ctx.t, ME, {}, { token: "not-a-jwt" }));
    const token = await ctx.idp.token();
    assert401(await gql(ctx.t, ME, {}, { headers: { Authorization: `Bearer ${token}` } }));
    assert401(await gql(ctx.t, ME));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: with the JWKS endpoint down, requests with a token are 401", async () => {
  const ctx = await setupAuth();
  try {
    ctx.idp.setDown(true);
    assert401(await gql(ctx.t, ME, {}, { token: await ctx.idp.token() }));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: keys are cached between requests", async () => {
  const ctx = await setupAuth();
  try {
    for (const sub of ["c1", "c2", "c3"]) {
      dataOf(await gql(ctx.t, ME, {}, { token: await ctx.idp.token({ sub }) }));
    }
    assert.equal(ctx.idp.jwksRequests(), 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: without AUTH_JWKS_URL every authenticated request is 401", async () => {
  const clock = new ManualClock();
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({ clock });
  try {
    assert401(await gql(t, ME, {}, { token: await idp.token() }));
  } finally {
    await t.close();
    await idp.close();
  }
});

Deno.test("auth: anonymous callers may run public operations only", async () => {
  const ctx = await setupAuth();
  try {
    assert.deepEqual(dataOf(await gql(ctx.t, `{ openToAll }`)), { openToAll: "hello" });
    assert.deepEqual(dataOf(await gql(ctx.t, `{ __typename }`)), { __typename: "Query" });
    assert401(await gql(ctx.t, `{ openToAll me { id } }`));
    assert401(await gql(ctx.t, `mutation { syncUser { firstSignIn } }`));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: admins hold the admin permission; the guard answers FORBIDDEN to others", async () => {
  const ctx = await setupAuth();
  try {
    const admin = await ctx.idp.token({ sub: "admin-1" });
    const user = await ctx.idp.token({ sub: "user-9" });
    assert.equal(
      dataOf(await gql(ctx.t, `{ authzCheck(permission: "admin") }`, {}, { token: admin }))
        .authzCheck,
      true,
    );
    assert.equal(
      dataOf(await gql(ctx.t, `{ authzCheck(permission: "admin") }`, {}, { token: user }))
        .authzCheck,
      false,
    );
    assert.equal(
      dataOf(await gql(ctx.t, `{ authzCheck(permission: "root") }`, {}, { token: admin }))
        .authzCheck,
      false,
    );
    assert.equal(
      dataOf(await gql(ctx.t, `{ adminOnly }`, {}, { token: admin })).adminOnly,
      "secret",
    );
    const refused = await gql(ctx.t, `{ adminOnly }`, {}, { token: user });
    assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
    assert.equal(refused.body.data, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: fallback tokens work for admins only, when enabled, and are logged", async () => {
  const ctx = await setupAuth({ FALLBACK_AUTH_SECRET: FALLBACK_SECRET });
  try {
    const now = ctx.clock.now();
    const admin = await mintFallbackToken(FALLBACK_SECRET, "admin-1", 3600, now, AUDIENCE);
    const result = await gql(ctx.t, `{ adminOnly }`, {}, { token: admin });
    assert.equal(dataOf(result).adminOnly, "secret");
    const warning = ctx.t.log.entries.find((e) => e.fallback_auth === true);
    assert.ok(warning, "fallback use is logged");
    assert.equal(warning!.level, "warn");

    assert401(
      await gql(ctx.t, ME, {}, {
        token: await mintFallbackToken(FALLBACK_SECRET, "user-9", 3600, now, AUDIENCE),
      }),
    );
    assert401(
      await gql(ctx.t, ME, {}, {
        token: await mintFallbackToken(
          "another-secret-that-is-32-chars-long!",
          "admin-1",
          3600,
          now,
          AUDIENCE,
        ),
      }),
    );
    await assert.rejects(() =>
      mintFallbackToken(FALLBACK_SECRET, "admin-1", 13 * 3600, now, AUDIENCE)
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: fallback tokens are 401 when FALLBACK_AUTH_SECRET is unset", async () => {
  const ctx = await setupAuth();
  try {
    const token = await mintFallbackToken(FALLBACK_SECRET, "admin-1", 3600, ctx.clock.now());
    assert401(await gql(ctx.t, ME, {}, { token }));
  } finally {
    await ctx.close();
  }
});

Deno.test("auth: main.ts fallback-token mints a token the service accepts", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../main.ts", import.meta.url).pathname,
      "fallback-token",
      "--sub",
      "admin-1",
      "--ttl",
      "1h",
    ],
    env: { FALLBACK_AUTH_SECRET: FALLBACK_SECRET, ADMIN_SUBJECTS: "admin-1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const token = new TextDecoder().decode(out.stdout).trim();
  const t = await createTestApp({
    clock: new ManualClock(new Date()),
    env: { FALLBACK_AUTH_SECRET: FALLBACK_SECRET, ADMIN_SUBJECTS: "admin-1" },
  });
  try {
    assert.equal(
      dataOf(await gql(t, `{ authzCheck(permission: "admin") }`, {}, { token })).authzCheck,
      true,
    );
  } finally {
    await t.close();
  }
  const refused = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../main.ts", import.meta.url).pathname,
      "fallback-token",
      "--sub",
      "admin-1",
    ],
    env: {},
    stderr: "piped",
  }).output();
  assert.equal(refused.code, 2);
});
