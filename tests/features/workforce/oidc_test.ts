/**
 * The production configuration of the workforce, end to end (spec 5.8, DESIGN 3.1-3.3): the
 * service with `RUNNER_AUTH_MODE=oidc` and `LLM_AUTH_MODE=oidc`, a real runner process with
 * `AUTH_MODE=oidc` and `LLM_AUTH_MODE=oidc`, a local metadata endpoint issuing RS256 identity
 * tokens for an audience and the JWKS the runner verifies them against, and the fake LLM proxy.
 */
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { reply, startFakeLlm } from "../../support/fake-llm.ts";
import { freePort, METADATA_ISSUER, startMetadataServer } from "../../support/metadata.ts";
import { startProcess } from "../../support/process.ts";
import { serveApp } from "../../support/cable.ts";
import { SKILLS_DIR } from "../../support/runner.ts";
import { waitFor } from "../../support/wait.ts";
import {
  ARTIFACT_FIELDS,
  asAdmin,
  createEmployee,
  setupWorkforce,
  triggerRun,
  WORKFORCE_SECRET,
} from "../../support/workforce.ts";
import { systemClock } from "../../../src/platform/clock.ts";

const RUNNER_ENTRY = new URL("../../../runner/main.ts", import.meta.url).pathname;
const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };

/** The service (served), its metadata endpoint, the fake LLM and a runner process, all in OIDC. */
async function productionTopology(serviceRunnerAuth: "oidc" | "secret") {
  const meta = await startMetadataServer(systemClock);
  const llm = startFakeLlm();
  const runnerPort = freePort();
  const runnerUrl = `http://127.0.0.1:${runnerPort}`;
  const ctx = await setupWorkforce({
    start: new Date().toISOString(),
    env: {
      RUNNER_URL: runnerUrl,
      RUNNER_AUTH_MODE: serviceRunnerAuth,
      OIDC_TOKEN_URL: meta.tokenUrl,
      LLM_BASE_URL: `${llm.url}/v1`,
      LLM_AUTH_MODE: "oidc",
      LLM_API_KEY: "sk-placeholder",
    },
  });
  const served = serveApp(ctx.t);
  const runner = await startProcess(RUNNER_ENTRY, {
    PORT: String(runnerPort),
    HOST: "127.0.0.1",
    AUTH_MODE: "oidc",
    LLM_AUTH_MODE: "oidc",
    OIDC_TOKEN_URL: meta.tokenUrl,
    OIDC_JWKS_URL: meta.jwksUrl,
    OIDC_ISSUER: METADATA_ISSUER,
    OIDC_AUDIENCE: runnerUrl,
    WEBHOOK_URL: `${served.url}/webhooks/ai-workforce`,
    WEBHOOK_SECRET: WORKFORCE_SECRET,
    LLM_BASE_URL: `${llm.url}/v1`,
    LLM_API_KEY: "sk-placeholder",
    SKILLS_DIR,
  });
  return {
    ctx,
    meta,
    llm,
    runner,
    runnerUrl,
    served,
    async close() {
      try {
        await runner.stop();
      } finally {
        await served.close();
        await ctx.close();
        await llm.close();
        await meta.close();
      }
    },
  };
}

const RUN = `query($id: String!) { aiRun(id: $id) { status errorMessage costUsd
  artifacts { ${ARTIFACT_FIELDS} } } }`;

Deno.test("workforce oidc: a run goes from trigger to artifact through a runner process in OIDC mode", async () => {
  const p = await productionTopology("oidc");
  try {
    const employee = await createEmployee(p.ctx);
    p.llm.script(reply.submit(ARTIFACT, { costUsd: 0.004 }));
    const { run, errors } = await triggerRun(p.ctx, employee.id);
    assert.deepEqual(errors, []);
    await p.ctx.t.app.jobs.runUntilIdle(); // dispatch: a signed request with a bearer, 202
    await waitFor(
      async () => (await asAdmin(p.ctx, RUN, { id: run!.id })).aiRun.status !== "running",
      {
        timeoutMs: 20_000,
        what: "the run's result webhook",
      },
    );
    const done = (await asAdmin(p.ctx, RUN, { id: run!.id })).aiRun;
    assert.equal(done.status, "succeeded", done.errorMessage);
    assert.equal(done.costUsd, 0.004);
    assert.equal(done.artifacts[0].approvalStatus, "pending");
    assert.equal(done.artifacts[0].title, ARTIFACT.title);

    // The runner's model calls carried an identity token for the proxy's origin and the key in
    // LiteLLM's header.
    const call = p.llm.calls[0];
    assert.equal(await p.meta.audienceOf(call.headers.get("authorization")), p.llm.url);
    assert.equal(call.headers.get("x-litellm-api-key"), "Bearer sk-placeholder");
    // Tokens were fetched from the metadata endpoint as the metadata server expects.
    const asked = p.meta.server.requests.filter((r) => r.path === "/identity");
    assert.ok(
      asked.length >= 2 && asked.every((r) => r.headers.get("metadata-flavor") === "Google"),
    );
  } finally {
    await p.close();
  }
});

Deno.test("workforce oidc: without a bearer the OIDC runner refuses every dispatch (401) and the run fails", async () => {
  const p = await productionTopology("secret");
  try {
    const employee = await createEmployee(p.ctx);
    const { run } = await triggerRun(p.ctx, employee.id);
    for (let attempt = 0; attempt < 3; attempt++) {
      await p.ctx.t.app.jobs.runUntilIdle();
      p.ctx.clock.advance(60_000);
    }
    const failed = (await asAdmin(p.ctx, RUN, { id: run!.id })).aiRun;
    assert.equal(failed.status, "failed");
    assert.match(failed.errorMessage, /unreachable after 3 attempts: the runner answered 401/);
    assert.equal(p.llm.calls.length, 0);
  } finally {
    await p.close();
  }
});

Deno.test("workforce oidc: the service's own LLM client sends an identity token for the proxy", async () => {
  const p = await productionTopology("oidc");
  try {
    const llm = p.llm;
    llm.script(reply.json({ allowed: true, categories: [], reason: null }));
    const verdict = await p.ctx.t.app.features.coaching.api.moderation.check("Great app!", {
      category: "feedback_post",
    });
    assert.equal(verdict.checked, true);
    const call = llm.calls.at(-1)!;
    const bearer = call.headers.get("authorization");
    assert.equal(await p.meta.audienceOf(bearer), llm.url);
    assert.equal(decodeJwt(bearer!.slice(7)).iss, METADATA_ISSUER);
    assert.equal(call.headers.get("x-litellm-api-key"), "Bearer sk-placeholder");
  } finally {
    await p.close();
  }
});
