import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.ts";
import { reply } from "../support/fake-llm.ts";
import { METADATA_ISSUER, startMetadataServer } from "../support/metadata.ts";
import { createTestRunner, runRequest, TEST_SECRET } from "../support/runner.ts";
import type { FakeHandler } from "../support/http.ts";
import { callTools } from "../support/scripted-models.ts";
import { hmacSha256Hex } from "../../src/platform/hmac.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };
const RUNNER_AUDIENCE = "https://runner.test";

async function oidcRunner(webhook?: FakeHandler) {
  const clock = new ManualClock();
  const idp = await startMetadataServer(clock);
  const t = createTestRunner({
    clock,
    webhook,
    env: {
      AUTH_MODE: "oidc",
      LLM_AUTH_MODE: "oidc",
      OIDC_TOKEN_URL: idp.tokenUrl,
      OIDC_JWKS_URL: idp.jwksUrl,
      OIDC_ISSUER: METADATA_ISSUER,
      OIDC_AUDIENCE: RUNNER_AUDIENCE,
    },
  });
  return {
    t,
    idp,
    async close() {
      await t.close();
      await idp.close();
    },
  };
}

Deno.test("runner oidc: /runs needs both a valid bearer and the HMAC signature", async () => {
  const { t, idp, close } = await oidcRunner();
  try {
    const body = JSON.stringify(runRequest());
    const bearer = `Bearer ${await idp.mint(RUNNER_AUDIENCE)}`;
    const wrongAudience = `Bearer ${await idp.mint("https://elsewhere.test")}`;
    const expired = `Bearer ${await idp.mint(RUNNER_AUDIENCE, -10)}`;
    for (const authorization of [undefined, "Bearer garbage", wrongAudience, expired]) {
      const headers = authorization ? { authorization } : undefined;
      const res = await t.request("/runs", { method: "POST", body, headers });
      assert.equal(res.status, 401, String(authorization).slice(0, 30));
    }
    const unsigned = await t.request("/runs", {
      method: "POST",
      body,
      signature: null,
      headers: { authorization: bearer },
    });
    assert.equal(unsigned.status, 401);
    const status = await t.request("/runs/x/status");
    assert.equal(status.status, 401);
    assert.equal(t.llm.calls.length, 0);

    t.llm.script(reply.submit(ARTIFACT));
    const ok = await t.request("/runs", {
      method: "POST",
      body,
      headers: { authorization: bearer },
    });
    assert.equal(ok.status, 202);
    await t.runner.idle();
    const known = await t.request(`/runs/${JSON.parse(body).run_id}/status`, {
      headers: { authorization: bearer },
    });
    assert.equal(known.status, 200);
  } finally {
    await close();
  }
});

Deno.test("runner oidc: webhook and LLM calls carry cached identity tokens per audience", async () => {
  const { t, idp, close } = await oidcRunner();
  try {
    const bearer = `Bearer ${await idp.mint(RUNNER_AUDIENCE)}`;
    const run = async () => {
      t.llm.script(reply.submit(ARTIFACT));
      const body = JSON.stringify(runRequest());
      const res = await t.request("/runs", {
        method: "POST",
        body,
        headers: { authorization: bearer },
      });
      assert.equal(res.status, 202);
      await t.runner.idle();
    };
    await run();
    await run();

    const tokenCalls = () =>
      idp.server.requests.filter((r) => r.path === "/identity").map((r) => r.headers);
    assert.equal(tokenCalls().length, 2, "one token per audience, reused by the second run");
    const hookOrigin = new URL(t.config.webhookUrl).origin;
    const llmOrigin = new URL(t.config.llmBaseUrl).origin;

    const hookAuth = t.hook.requests[0].headers.get("authorization") ?? "";
    const llmCall = t.llm.calls[0];
    const { decodeJwt } = await import("jose");
    assert.equal(decodeJwt(hookAuth.replace("Bearer ", "")).aud, hookOrigin);
    assert.equal(
      decodeJwt((llmCall.headers.get("authorization") ?? "").replace("Bearer ", "")).aud,
      llmOrigin,
    );
    assert.equal(llmCall.headers.get("x-litellm-api-key"), "Bearer sk-test");

    // Shortly before expiry (less than a minute left) the token is fetched again.
    t.clock.advance(3600_000 - 30_000);
    await run();
    assert.equal(tokenCalls().length, 4);
  } finally {
    await close();
  }
});

Deno.test("runner oidc: service-data tools send the signature and a bearer for the service", async () => {
  const funnel = {
    as_of: "2026-03-02T00:00:00.000Z",
    window_days: 7,
    current: {
      signed_in: 1,
      wizard_completed: 0,
      first_goal: 0,
      first_check_in: 0,
      first_badge: 0,
    },
    previous: {
      signed_in: 0,
      wizard_completed: 0,
      first_goal: 0,
      first_check_in: 0,
      first_badge: 0,
    },
    wow_pct: {
      signed_in: null,
      wizard_completed: null,
      first_goal: null,
      first_check_in: null,
      first_badge: null,
    },
    skip_run: false,
  };
  const { t, idp, close } = await oidcRunner((req) =>
    new URL(req.url).pathname === "/integrations/activation-funnel"
      ? Response.json(funnel)
      : Response.json({ ok: true })
  );
  try {
    const bearer = `Bearer ${await idp.mint(RUNNER_AUDIENCE)}`;
    t.llm.script(callTools("activation_funnel"), reply.submit(ARTIFACT));
    const res = await t.request("/runs", {
      method: "POST",
      body: JSON.stringify(runRequest({ employee: { tools: ["activation_funnel"] } })),
      headers: { authorization: bearer },
    });
    assert.equal(res.status, 202);
    await t.runner.idle();
    const [read] = t.hook.requests.filter((r) => r.path === "/integrations/activation-funnel");
    assert.ok(read, "the tool read the funnel");
    assert.equal(read.headers.get("x-workforce-signature"), await hmacSha256Hex(TEST_SECRET, "{}"));
    const { decodeJwt } = await import("jose");
    const token = (read.headers.get("authorization") ?? "").replace("Bearer ", "");
    assert.equal(decodeJwt(token).aud, new URL(t.config.webhookUrl).origin);
    const [result] = t.hook.requests.filter((r) => r.path !== read.path).map((r) =>
      JSON.parse(r.body)
    );
    assert.equal(result.status, "succeeded");
  } finally {
    await close();
  }
});

Deno.test("runner oidc: an unreachable token endpoint leaves the webhook undelivered, logged", async () => {
  const { closedPort } = await import("../support/http.ts");
  const t = createTestRunner({
    env: { AUTH_MODE: "oidc", OIDC_AUDIENCE: RUNNER_AUDIENCE },
    deps: {
      bearer: { verify: () => Promise.resolve(true) },
      tokens: { token: () => fetch(`http://127.0.0.1:${closedPort()}/`).then(() => "never") },
    },
  });
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest());
    await t.runner.idle();
    assert.equal(t.hook.requests.length, 0);
    assert.ok(t.log.entries.some((e) => e.msg === "webhook not delivered"));
  } finally {
    await t.close();
  }
});
