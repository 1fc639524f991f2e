import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { setup } from "../support/setup.ts";
import { sharedKv } from "../support/kv.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { clientAddress } from "../../src/http/client-address.ts";
import { stream, wsClient } from "../support/cable.ts";
import { gqlRaw } from "../support/graphql.ts";

const PREVIEW = `{ teamInvitePreview(token: "no-such-invite") { valid } }`;

/** A request as `Deno.serve` hands it over: from a socket peer at `address`. */
async function from(
  t: TestApp,
  address: string,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const info = {
    remoteAddr: { transport: "tcp", hostname: address, port: 40000 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo<Deno.NetAddr>;
  return await t.app.handler(new Request(new URL(path, "http://test.local"), init), info);
}

const anonymousQuery = (t: TestApp, address: string, headers: Record<string, string> = {}) =>
  from(t, address, "/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query: PREVIEW }),
  });

async function assertLimited(res: Response, retryAfter: number) {
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), String(retryAfter));
  return await res.json();
}

Deno.test("rate limit: per user, 429 with Retry-After, allowed again in the next window", async () => {
  const s = await setup({ env: { RATE_LIMIT_USER_PER_MINUTE: "3" } });
  try {
    s.clock.advance(15_000);
    for (let i = 0; i < 3; i++) assert.equal((await s.run("{ me { id } }")).status, 200);
    const refused = await s.run("{ me { id } }");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "45");
    assert.deepEqual(refused.body, {
      errors: [{
        message: "too many requests: retry after 45 s",
        extensions: { code: "RATE_LIMITED", retryAfter: 45 },
      }],
    });
    assert.equal((await s.run("{ me { id } }", {}, "bob")).status, 200, "another user");
    s.clock.advance(45_000);
    assert.equal((await s.run("{ me { id } }")).status, 200, "the next window");
  } finally {
    await s.close();
  }
});

Deno.test("rate limit: operations over /cable count as the user's requests", async () => {
  const s = await setup({ serve: true, env: { RATE_LIMIT_USER_PER_MINUTE: "2" } });
  const ws = wsClient(s.served.wsUrl, { headerToken: await s.token("alice") });
  try {
    for (let i = 0; i < 2; i++) {
      const ok = stream(ws.client, "{ me { id } }");
      await ok.done;
      assert.equal(ok.error, undefined);
    }
    const refused = stream(ws.client, "{ me { id } }");
    await refused.done;
    assert.deepEqual(refused.error, [{
      message: "too many requests: retry after 60 s",
      extensions: { code: "RATE_LIMITED", retryAfter: 60 },
    }]);
    assert.equal((await s.run("{ me { id } }")).status, 429, "HTTP shares the count");
  } finally {
    await ws.dispose();
    await s.close();
  }
});

Deno.test("rate limit: anonymous calls, refused tokens and admin pages count per address", async () => {
  const t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "3" } });
  try {
    assert.equal((await anonymousQuery(t, "203.0.113.5")).status, 200);
    const refusedToken = await anonymousQuery(t, "203.0.113.5", { SessionToken: "guess" });
    assert.equal(refusedToken.status, 401);
    await refusedToken.body?.cancel();
    const page = await from(t, "203.0.113.5", "/admin/sign-in");
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const body = await assertLimited(await anonymousQuery(t, "203.0.113.5"), 60);
    assert.equal(body.errors[0].extensions.code, "RATE_LIMITED");
    const refusedPage = await from(t, "203.0.113.5", "/admin/sign-in");
    assert.deepEqual(await assertLimited(refusedPage, 60), {
      error: "rate_limited",
      message: "too many requests",
      retry_after_seconds: 60,
    });
    assert.equal((await anonymousQuery(t, "203.0.113.6")).status, 200, "another address");
    for (const path of ["/health", "/up", "/webhooks/billing-provider"]) {
      const res = await from(
        t,
        "203.0.113.5",
        path,
        path.startsWith("/webhooks") ? { method: "POST", body: "{}" } : {},
      );
      assert.notEqual(res.status, 429, path);
      await res.body?.cancel();
    }
  } finally {
    await t.close();
  }
});

Deno.test("rate limit: 0 turns a limit off", async () => {
  const t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0" } });
  try {
    for (let i = 0; i < 5; i++) {
      const res = await anonymousQuery(t, "203.0.113.5");
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  } finally {
    await t.close();
  }
});

Deno.test("rate limit: two instances sharing one store share the count", async () => {
  const clock = new ManualClock();
  const { a, b } = sharedKv();
  const env = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "2" };
  const first = await createTestApp({ clock, kv: a, env });
  const second = await createTestApp({ clock, kv: b, env });
  try {
    assert.equal((await anonymousQuery(first, "198.51.100.1")).status, 200);
    assert.equal((await anonymousQuery(second, "198.51.100.1")).status, 200);
    await assertLimited(await anonymousQuery(first, "198.51.100.1"), 60);
    await assertLimited(await anonymousQuery(second, "198.51.100.1"), 60);
  } finally {
    await second.close();
    await first.close();
  }
});

Deno.test("rate limit: X-Forwarded-For counts only behind TRUST_PROXY_HOPS", async () => {
  const direct = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1" } });
  const proxied = await createTestApp({
    env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1", TRUST_PROXY_HOPS: "1" },
  });
  try {
    // Untrusted: a new forged address per request changes nothing.
    assert.equal(
      (await anonymousQuery(direct, "203.0.113.9", { "x-forwarded-for": "1.1.1.1" }))
        .status,
      200,
    );
    await assertLimited(
      await anonymousQuery(direct, "203.0.113.9", { "x-forwarded-for": "2.2.2.2" }),
      60,
    );
    // Behind one proxy (10.0.0.2): the client is what it appended; forged entries left of it
    // are ignored.
    const lb = "10.0.0.2";
    assert.equal(
      (await anonymousQuery(proxied, lb, { "x-forwarded-for": "198.51.100.7" }))
        .status,
      200,
    );
    await assertLimited(
      await anonymousQuery(proxied, lb, { "x-forwarded-for": "9.9.9.9, 198.51.100.7" }),
      60,
    );
    assert.equal(
      (await anonymousQuery(proxied, lb, { "x-forwarded-for": "198.51.100.8" }))
        .status,
      200,
      "another client behind the same proxy",
    );
  } finally {
    await direct.close();
    await proxied.close();
  }
});

Deno.test("client address: right-to-left through trusted hops, never a forged entry", () => {
  assert.equal(clientAddress("10.0.0.2", "1.1.1.1", 0), "10.0.0.2");
  assert.equal(clientAddress("10.0.0.2", "1.1.1.1, 2.2.2.2", 1), "2.2.2.2");
  assert.equal(clientAddress("10.0.0.2", "1.1.1.1, 2.2.2.2, 10.0.0.1", 2), "2.2.2.2");
  assert.equal(clientAddress("10.0.0.2", null, 1), "10.0.0.2", "no header: the peer");
  assert.equal(clientAddress("10.0.0.2", "2001:db8::1", 1), "2001:db8::1");
  assert.equal(clientAddress("10.0.0.2", "not an address", 1), "10.0.0.2");
  assert.equal(clientAddress(undefined, "1.1.1.1", 1), undefined);
});

/** The `RateLimit-*` headers of an answer (null for each one absent). */
const rateHeaders = (res: { headers: Headers }) => ({
  limit: res.headers.get("ratelimit-limit"),
  remaining: res.headers.get("ratelimit-remaining"),
  reset: res.headers.get("ratelimit-reset"),
  policy: res.headers.get("ratelimit-policy"),
});

Deno.test("rate limit: every answer of a counted request carries the RateLimit headers", async () => {
  const s = await setup({ env: { RATE_LIMIT_USER_PER_MINUTE: "4" } });
  try {
    s.clock.advance(20_000);
    const left = (remaining: number, reset = 40) => ({
      limit: "4",
      remaining: String(remaining),
      reset: String(reset),
      policy: "4;w=60",
    });
    // Data, a GraphQL error (200) and a batch (counted once) each say what is left.
    assert.deepEqual(rateHeaders(await s.run("{ me { id } }")), left(3));
    const invalid = await s.run("{ nope }");
    assert.equal(invalid.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
    assert.deepEqual(rateHeaders(invalid), left(2));
    s.clock.advance(10_000);
    const batch = await gqlRaw(s.t, [{ query: "{ me { id } }" }, { query: "{ __typename }" }], {
      token: await s.token(),
    });
    assert.equal(batch.status, 200);
    assert.deepEqual(rateHeaders(batch), left(1, 30));
    assert.deepEqual(rateHeaders(await s.run("{ me { id } }")), left(0, 30));
    const refused = await s.run("{ me { id } }");
    assert.equal(refused.status, 429);
    assert.deepEqual(rateHeaders(refused), left(0, 30));
    s.clock.advance(30_000);
    assert.deepEqual(rateHeaders(await s.run("{ me { id } }")), left(3, 60));
  } finally {
    await s.close();
  }
});

Deno.test("rate limit: anonymous answers, refused tokens and admin pages carry them too; an off limit none", async () => {
  const t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "5" } });
  const off = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0" } });
  try {
    const ok = await anonymousQuery(t, "203.0.113.20");
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.deepEqual(rateHeaders(ok), {
      limit: "5",
      remaining: "4",
      reset: "60",
      policy: "5;w=60",
    });
    const token = await anonymousQuery(t, "203.0.113.20", { SessionToken: "guess" });
    assert.equal(token.status, 401);
    await token.body?.cancel();
    assert.equal(token.headers.get("ratelimit-remaining"), "3");
    const page = await from(t, "203.0.113.20", "/admin/sign-in");
    await page.body?.cancel();
    assert.equal(page.headers.get("ratelimit-remaining"), "2");
    // Not counted (the limit is off, or the route has none): no headers.
    const free = await anonymousQuery(off, "203.0.113.20");
    await free.body?.cancel();
    assert.deepEqual(rateHeaders(free), {
      limit: null,
      remaining: null,
      reset: null,
      policy: null,
    });
    const health = await from(t, "203.0.113.20", "/up");
    await health.body?.cancel();
    assert.equal(health.headers.get("ratelimit-limit"), null);
  } finally {
    await off.close();
    await t.close();
  }
});
