/**
 * Generated corpora against the edges that authenticate callers, over real HTTP: the runner's
 * signed routes with hostile `X-Workforce-Timestamp` and `X-Workforce-Signature` pairs (DESIGN
 * 3.3), the service's spec 5.6 endpoints with the runner-call scheme, and the service's GraphQL
 * with fallback and development tokens whose claims have hostile types and values. Only the
 * well-formed controls pass; nothing answers 5xx or hangs, nothing runs twice, no log line holds a
 * secret or a stack, and both programs answer normally afterwards. Corpus sizes are printed.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { reply } from "../support/fake-llm.ts";
import { AUDIENCE } from "../support/identity.ts";
import { createTestRunner, runRequest, serveTestRunner, TEST_SECRET } from "../support/runner.ts";
import { setup } from "../support/setup.ts";
import { WORKFORCE_SECRET } from "../support/workforce.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import { signRequest, TIMESTAMP_HEADER } from "../../src/platform/contract/request-signature.ts";
import { FALLBACK_ISSUER } from "../../src/graphql/auth.ts";
import { DEV_ISSUER, loadDevKey } from "../../src/graphql/dev-auth.ts";

/** Each request is answered within this, or the test fails. */
const REQUEST_BOUND_MS = 15_000;
const FALLBACK_SECRET = "0123456789abcdef0123456789abcdef-fuzz";

interface Tally {
  statuses: Map<number, number>;
  failures: string[];
}

async function send(url: string, init: RequestInit, label: string, tally: Tally) {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    const text = await res.text();
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) tally.failures.push(`${res.status} ${label}`);
    return { status: res.status, text };
  } catch (err) {
    const ms = Math.round(performance.now() - started);
    tally.failures.push(`no answer after ${ms} ms (${(err as Error).name}) ${label}`);
    return { status: 0, text: "" };
  }
}

const summary = (count: number, tally: Tally) =>
  `${count} requests: ${
    [...tally.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(", ")
  }`;

/** Timestamps a receiver must refuse, relative to its clock's second `now` and its window. */
function hostileTimestamps(now: number, window: number): string[] {
  return [
    "",
    " ",
    "abc",
    "-1",
    "0",
    String(now - window - 1),
    String(now + window + 1),
    `${now}.5`,
    `${now}e0`,
    `+${now}`,
    `0x${now.toString(16)}`,
    `${now},${now}`,
    `${now} ${now}`,
    "9".repeat(13),
    "9".repeat(400),
    String(Number.MAX_SAFE_INTEGER),
    "1e309",
    "NaN",
    "Infinity",
    "%00",
    `${now * 1000}`,
  ];
}

Deno.test("auth fuzz: the runner's signed routes refuse every hostile timestamp and signature", async () => {
  const t = createTestRunner();
  const served = serveTestRunner(t);
  const base = served.url;
  const tally: Tally = { statuses: new Map(), failures: [] };
  let sent = 0;
  try {
    // A running run, so status and cancel have something to act on.
    const release = Promise.withResolvers<void>();
    const artifact = { kind: "report", title: "t", payload: "p" };
    t.llm.script(reply.submit(artifact, { until: release.promise }), reply.submit(artifact));
    const held = runRequest();
    assert.equal((await t.startRun(held)).status, 202);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const window = t.config.signatureWindowSeconds;
    const routes = [
      { method: "POST", path: "/runs", body: JSON.stringify(runRequest()) },
      { method: "GET", path: `/runs/${held.run_id}/status`, body: "" },
      { method: "POST", path: `/runs/${held.run_id}/cancel`, body: "" },
    ];
    for (const route of routes) {
      const valid = await signRequest(TEST_SECRET, now, route);
      const other = { ...route, path: route.path === "/runs" ? "/runs/" : "/runs" };
      const signatures = [
        "",
        "0".repeat(64),
        "g".repeat(64),
        valid[SIGNATURE_HEADER].slice(1),
        `${valid[SIGNATURE_HEADER]}0`,
        `${valid[SIGNATURE_HEADER]}, ${valid[SIGNATURE_HEADER]}`,
        "x".repeat(8000),
        await hmacSha256Hex(TEST_SECRET, route.body),
        await hmacSha256Hex(TEST_SECRET, route.path),
        (await signRequest(TEST_SECRET, now, other))[SIGNATURE_HEADER],
        (await signRequest("not-the-secret", now, route))[SIGNATURE_HEADER],
      ];
      const stamps = [...hostileTimestamps(now, window), String(now)];
      for (const timestamp of [undefined, ...stamps]) {
        for (const signature of [undefined, valid[SIGNATURE_HEADER], ...signatures]) {
          const validPair = timestamp === String(now) && signature === valid[SIGNATURE_HEADER];
          if (validPair) continue;
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (timestamp !== undefined) headers[TIMESTAMP_HEADER] = timestamp;
          if (signature !== undefined) headers[SIGNATURE_HEADER] = signature;
          const label = `${route.method} ${route.path.slice(0, 12)} t=${
            String(timestamp).slice(0, 16)
          } s=${String(signature).slice(0, 12)}`;
          sent++;
          const answer = await send(
            `${base}${route.path}`,
            {
              method: route.method,
              headers,
              body: route.body || undefined,
            },
            label,
            tally,
          );
          if (answer.status !== 401 && answer.status !== 0) {
            tally.failures.push(`${answer.status} instead of 401: ${label}`);
          }
        }
      }
    }
    // The valid pairs pass once each and are refused when sent again.
    for (const route of routes) {
      const headers = {
        "content-type": "application/json",
        ...await signRequest(TEST_SECRET, now, route),
      };
      const init = { method: route.method, headers, body: route.body || undefined };
      const first = await send(`${base}${route.path}`, init, `valid ${route.path}`, tally);
      const again = await send(`${base}${route.path}`, init, `replayed ${route.path}`, tally);
      sent += 2;
      assert.ok(first.status >= 200 && first.status < 300, `${route.path}: ${first.text}`);
      assert.equal(again.status, 401, `${route.path} replayed`);
    }
    console.log(`auth fuzz (runner signatures): ${summary(sent, tally)}`);
    assert.deepEqual(tally.failures, []);
    release.resolve();
    await t.runner.idle();
    assert.equal(t.llm.calls.length, 2, "the held run and the one valid POST /runs, nothing else");
    assert.ok(!JSON.stringify(t.log.entries).includes(TEST_SECRET), "no log line holds the secret");
    assert.ok(!t.log.entries.some((e) => e.stack), "no stack in the log");
    const health = await fetch(`${base}/health`);
    assert.equal((await health.json()).status, "ok");
  } finally {
    await served.close();
    await t.close();
  }
});

/** Claims sets a fallback or development token must be refused with (besides their signer's). */
function hostileClaims(now: number, audience: string): [string, Record<string, unknown>][] {
  const good = { sub: "admin-1", iat: now, exp: now + 3600, aud: audience };
  const cases: [string, Record<string, unknown>][] = [];
  const each = (claim: string, values: unknown[]) => {
    for (const value of values) {
      cases.push([`${claim}=${JSON.stringify(value)?.slice(0, 20)}`, { ...good, [claim]: value }]);
    }
  };
  each("iat", [
    undefined,
    null,
    String(now),
    [now],
    { n: now },
    true,
    now + 61,
    now + 365 * 86_400,
    1e308,
    -1e308,
    -now,
    now - 31 * 86_400,
  ]);
  each("exp", [undefined, null, String(now + 60), now - 1, 1e308, -1, [now + 60]]);
  each("nbf", [now + 120, String(now), [now]]);
  each("aud", [
    undefined,
    null,
    "",
    "other",
    [],
    ["other"],
    [null],
    [[audience]],
    { aud: audience },
    42,
    audience.toUpperCase(),
    ` ${audience}`,
    `${audience}\u0000`,
    "a".repeat(2_000),
  ]);
  each("sub", [undefined, null, "", "x".repeat(300), "a\u0000b", ["admin-1"], 1]);
  each("iss", [undefined, null, "", "elsewhere", ["fallback", "dev-auth"]]);
  return cases;
}

Deno.test("auth fuzz: fallback and development tokens with hostile claims are 401, never 5xx", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "auth-fuzz-" });
  const s = await setup({
    admins: ["admin-1"],
    serve: true,
    env: {
      FALLBACK_AUTH_SECRET: FALLBACK_SECRET,
      DEV_AUTH: "on",
      DATA_DIR: dataDir,
      AUTH_JWKS_URL: "",
      WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1000000",
    },
  });
  const tally: Tally = { statuses: new Map(), failures: [] };
  let sent = 0;
  try {
    const key = await loadDevKey(dataDir);
    const now = Math.floor(s.clock.now().getTime() / 1000);
    const signers = {
      fallback: (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .sign(new TextEncoder().encode(FALLBACK_SECRET)),
      dev: (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
          .sign(key.privateKey),
    };
    const issuers = { fallback: FALLBACK_ISSUER, dev: DEV_ISSUER };
    const tokens: string[] = [];
    const ask = async (token: string, label: string) => {
      sent++;
      return await send(
        `${s.served.url}/graphql`,
        {
          method: "POST",
          headers: { "content-type": "application/json", SessionToken: token },
          body: JSON.stringify({ query: `{ authzCheck(permission: "admin") }` }),
        },
        label,
        tally,
      );
    };
    for (const kind of ["fallback", "dev"] as const) {
      for (const [name, claims] of hostileClaims(now, AUDIENCE)) {
        const token = await signers[kind]({ iss: issuers[kind], ...claims });
        tokens.push(token);
        const answer = await ask(token, `${kind} ${name}`);
        if (answer.status !== 401) tally.failures.push(`${answer.status} for ${kind} ${name}`);
        else if (!answer.text.includes('"UNAUTHENTICATED"')) {
          tally.failures.push(`not UNAUTHENTICATED for ${kind} ${name}: ${answer.text}`);
        }
      }
      // The control: the same signer and well-formed claims pass.
      const control = await signers[kind]({
        iss: issuers[kind],
        sub: "admin-1",
        iat: now,
        exp: now + 3600,
        aud: AUDIENCE,
      });
      const accepted = await ask(control, `${kind} control`);
      assert.equal(accepted.status, 200, `${kind} control: ${accepted.text}`);
    }

    // The service's own endpoints keep spec 5.6: the body's HMAC alone, whatever else is sent.
    const body = "{}";
    const webhook = `${s.served.url}/webhooks/ai-workforce`;
    const post = (headers: Record<string, string>, label: string) => {
      sent++;
      return send(
        webhook,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        },
        label,
        tally,
      );
    };
    const bodyOnly = await hmacSha256Hex(WORKFORCE_SECRET, body);
    const runnerScheme = await signRequest(WORKFORCE_SECRET, now, {
      method: "POST",
      path: "/webhooks/ai-workforce",
      body,
    });
    const kept = await post({ [SIGNATURE_HEADER]: bodyOnly }, "spec 5.6 signature");
    assert.equal(kept.status, 400, "past the signature: {} is not a run result");
    for (const stamp of ["", "abc", String(now - 86_400), String(now)]) {
      const answer = await post({ [SIGNATURE_HEADER]: bodyOnly, [TIMESTAMP_HEADER]: stamp }, stamp);
      assert.equal(answer.status, 400, `a timestamp header (${stamp}) changes nothing`);
    }
    assert.equal((await post(runnerScheme, "runner scheme")).status, 401);

    console.log(`auth fuzz (service tokens and signatures): ${summary(sent, tally)}`);
    assert.deepEqual(tally.failures, []);
    const logged = JSON.stringify(s.t.log.entries);
    for (const secret of [FALLBACK_SECRET, WORKFORCE_SECRET, ...tokens]) {
      assert.ok(!logged.includes(secret), "no log line holds a secret or a token");
    }
    assert.ok(!s.t.log.entries.some((e) => e.stack), "no stack in the log");
    const up = await fetch(`${s.served.url}/up`);
    assert.equal(up.status, 200);
    await up.body?.cancel();
  } finally {
    await s.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
