import assert from "node:assert/strict";
import { logged } from "../support/app.ts";
import { dataOf, gql, USER_ERRORS } from "../support/graphql.ts";
import { setup } from "../support/setup.ts";
import { AUDIENCE } from "../support/identity.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { mintFallbackToken, type VerifiedToken } from "../../src/graphql/auth.ts";
import { createVerifiedTokenCache } from "../../src/graphql/token-cache.ts";
import { createViewerCache } from "../../src/features/users/viewer-cache.ts";
import type { UserRow } from "../../src/features/users/store.ts";

const FALLBACK_SECRET = "0123456789abcdef0123456789abcdef-fallback";
const ME = `{ me { id username timeZone onboardingCompletedAt } }`;

const status = async (ctx: Awaited<ReturnType<typeof setup>>, token: string) =>
  (await gql(ctx.t, `{ me { id } }`, {}, { token })).status;

Deno.test("token cache: a token verified once stops being accepted at its exp", async () => {
  const ctx = await setup();
  try {
    const token = await ctx.idp.token({ sub: "short-lived", expiresIn: 90 });
    assert.equal(await status(ctx, token), 200);
    ctx.clock.advance(89_000);
    assert.equal(await status(ctx, token), 200);
    ctx.clock.advance(1_000);
    assert.equal(await status(ctx, token), 401);
  } finally {
    await ctx.close();
  }
});

Deno.test("token cache: a token is refused before its nbf, and accepted from then on", async () => {
  const ctx = await setup();
  try {
    const token = await ctx.idp.token({ sub: "patient", notBefore: 30 });
    assert.equal(await status(ctx, token), 401);
    assert.equal(await status(ctx, token), 401);
    ctx.clock.advance(30_000);
    assert.equal(await status(ctx, token), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("token cache: a token that failed verification is never taken as valid", async () => {
  const ctx = await setup();
  try {
    const valid = await ctx.idp.token({ sub: "victim" });
    assert.equal(await status(ctx, valid), 200);
    const forged = await ctx.idp.token({ sub: "victim", foreignKey: true });
    const [head, body] = valid.split(".");
    const tampered = `${head}.${body}.${forged.split(".")[2]}`;
    for (let i = 0; i < 2; i++) {
      assert.equal(await status(ctx, forged), 401);
      assert.equal(await status(ctx, tampered), 401);
    }
    assert.equal(await status(ctx, valid), 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("token cache: each token yields its own user, however requests interleave", async () => {
  const ctx = await setup({ usernames: true });
  try {
    const ids = new Map<string, string>();
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        ["ann", "bob", "ann", "bob"].map(async (sub) => ({
          sub,
          me: (await ctx.data(ME, {}, sub)).me,
        })),
      );
      for (const { sub, me } of answers) {
        assert.equal(me.username, sub);
        if (!ids.has(sub)) ids.set(sub, me.id);
        assert.equal(me.id, ids.get(sub));
      }
    }
    assert.notEqual(ids.get("ann"), ids.get("bob"));
  } finally {
    await ctx.close();
  }
});

Deno.test("viewer cache: the signed-in user's row costs no statement, and a change is seen by the next request", async () => {
  const ctx = await setup({ usernames: true });
  try {
    const first = (await ctx.data(ME)).me;
    assert.equal(first.timeZone, "UTC");
    await ctx.data(ME);
    assert.equal(ctx.lastStatements(), 0);

    const updated = await ctx.data(
      `mutation { updateMe(username: "renamed", timeZone: "Asia/Tokyo") {
        user { id } ${USER_ERRORS} } }`,
    );
    assert.deepEqual(updated.updateMe.errors, []);
    const after = (await ctx.data(ME)).me;
    assert.equal(after.username, "renamed");
    assert.equal(after.timeZone, "Asia/Tokyo");

    // Today in the new zone decides a habit's check-in day: 23:30 UTC is the next day in Tokyo.
    ctx.clock.set("2026-03-02T23:30:00Z");
    const goal = await ctx.data(
      `mutation { addGoal(title: "Stretch", kind: habit) { goal { id } ${USER_ERRORS} } }`,
    );
    const checkIn = await ctx.data(
      `mutation($id: String!) { checkInHabit(goalId: $id) { checkIn { date } ${USER_ERRORS} } }`,
      { id: goal.addGoal.goal.id },
    );
    assert.equal(checkIn.checkInHabit.checkIn.date, "2026-03-03");

    await ctx.data(`mutation { completeOnboarding { user { id } ${USER_ERRORS} } }`);
    assert.notEqual((await ctx.data(ME)).me.onboardingCompletedAt, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("token cache: a cached fallback token is logged at every use", async () => {
  const ctx = await setup({ admins: ["admin-1"], env: { FALLBACK_AUTH_SECRET: FALLBACK_SECRET } });
  try {
    const token = await mintFallbackToken(
      FALLBACK_SECRET,
      "admin-1",
      3600,
      ctx.clock.now(),
      AUDIENCE,
    );
    for (let i = 0; i < 3; i++) dataOf(await gql(ctx.t, `{ me { id } }`, {}, { token }));
    const uses = ctx.t.log.entries.filter((e) => e.fallback_auth === true);
    assert.equal(uses.length, 3);
    assert.equal(logged(ctx.t.log, "request").length >= 3, true);
  } finally {
    await ctx.close();
  }
});

const verified = (subject: string, exp: number, nbf?: number): VerifiedToken => ({
  subject,
  claims: { sub: subject, exp, ...(nbf === undefined ? {} : { nbf }) },
  fallback: false,
  expiresAt: exp,
});

Deno.test("token cache: bounded, least recently used first out, keyed by the whole token", () => {
  const clock = new ManualClock("2026-01-05T12:00:00Z");
  const exp = clock.now().getTime() / 1000 + 3600;
  const cache = createVerifiedTokenCache(clock, { maxEntries: 3 });
  for (const n of [1, 2, 3]) {
    cache.set(`token-${n}`, { kind: "provider", verified: verified(`s${n}`, exp) });
  }
  assert.equal(cache.get("token-1")?.verified.subject, "s1");
  cache.set("token-4", { kind: "provider", verified: verified("s4", exp) });
  assert.equal(cache.size, 3);
  assert.equal(cache.get("token-2"), null);
  assert.equal(cache.get("token-1")?.verified.subject, "s1");
  assert.equal(cache.get("token-4")?.verified.subject, "s4");
  assert.equal(cache.get("token-4x"), null);
  assert.equal(cache.get("token-"), null);
});

Deno.test("token cache: an entry ends at exp, at its maximum age, and reads the clock for nbf", () => {
  const clock = new ManualClock("2026-01-05T12:00:00Z");
  const now = clock.now().getTime() / 1000;
  const cache = createVerifiedTokenCache(clock, { maxAgeMs: 60_000 });
  cache.set("soon", { kind: "dev", verified: verified("a", now + 10) });
  cache.set("later", { kind: "dev", verified: verified("b", now + 3600, now - 5) });
  cache.set("no-exp", { kind: "dev", verified: { ...verified("c", 0), claims: { sub: "c" } } });
  assert.equal(cache.get("no-exp"), null);
  clock.advance(9_999);
  assert.equal(cache.get("soon")?.verified.subject, "a");
  clock.advance(1);
  assert.equal(cache.get("soon"), null);
  clock.set(new Date((now - 6) * 1000));
  assert.equal(cache.get("later"), null, "a clock before nbf");
  cache.set("later", { kind: "dev", verified: verified("b", now + 3600) });
  clock.set(new Date(now * 1000 - 6_000 + 60_000));
  assert.equal(cache.get("later"), null, "past the maximum age");
  cache.set("k1", { kind: "fallback", verified: verified("f", now + 3600) });
  cache.set("k2", { kind: "dev", verified: verified("d", now + 3600) });
  cache.clear("fallback");
  assert.equal(cache.get("k1"), null);
  assert.equal(cache.get("k2")?.verified.subject, "d");
});

Deno.test("token cache: an entry ends when its token's age runs out, before its exp", () => {
  const clock = new ManualClock("2026-01-05T12:00:00Z");
  const now = clock.now().getTime() / 1000;
  const cache = createVerifiedTokenCache(clock);
  const aged = { ...verified("a", now + 3600), expiresAt: now + 20 };
  cache.set("aged", { kind: "fallback", verified: aged });
  clock.advance(19_999);
  assert.equal(cache.get("aged")?.verified.subject, "a");
  clock.advance(1);
  assert.equal(cache.get("aged"), null);
});

const row = (id: string, subject: string): UserRow => ({
  id,
  publicId: `p${id}`,
  subject,
  username: subject,
  firstName: null,
  lastName: null,
  timeZone: "UTC",
  supporterTier: null,
  onboardingCompletedAt: null,
  discoverability: "exact_username",
  createdAt: new Date(0),
  deletionRequestedAt: null,
});

Deno.test("viewer cache: rows expire, are invalidated, bounded, and a read older than a change is not kept", () => {
  const clock = new ManualClock("2026-01-05T12:00:00Z");
  const cache = createViewerCache(clock, { ttlMs: 5_000, maxEntries: 2 });
  cache.remember(row("1", "a"), cache.generation);
  assert.equal(cache.bySubject("a")?.id, "1");
  assert.equal(cache.byId("1")?.subject, "a");
  clock.advance(5_000);
  assert.equal(cache.bySubject("a"), null);
  assert.equal(cache.byId("1"), null);

  cache.remember(row("1", "a"), cache.generation);
  cache.invalidate("1");
  assert.equal(cache.byId("1"), null);

  const readAt = cache.generation;
  cache.invalidate("1");
  cache.remember(row("1", "a"), readAt);
  assert.equal(cache.byId("1"), null);

  for (const [id, sub] of [["1", "a"], ["2", "b"], ["3", "c"]]) {
    cache.remember(row(id, sub), cache.generation);
  }
  assert.equal(cache.size, 2);
  assert.equal(cache.byId("1"), null);
  assert.equal(cache.byId("3")?.subject, "c");
});
