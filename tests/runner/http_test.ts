import assert from "node:assert/strict";
import { reply } from "../support/fake-llm.ts";
import { createTestRunner, runRequest, TEST_SECRET } from "../support/runner.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import { signRequest } from "../../src/platform/contract/mod.ts";
import { waitFor } from "../support/wait.ts";
import { VERSION } from "../../src/platform/version.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };
const nowSeconds = (clock: { now(): Date }) => Math.floor(clock.now().getTime() / 1000);

Deno.test("runner http: GET /health answers ok with a timestamp and the build's version", async () => {
  const t = createTestRunner();
  try {
    const res = await t.request("/health");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: "ok",
      timestamp: "2026-01-05T12:00:00.000Z",
      version: VERSION,
    });
  } finally {
    await t.close();
  }
});

Deno.test("runner http: POST /runs answers 202 running, then status follows the run", async () => {
  const t = createTestRunner();
  try {
    const answer = Promise.withResolvers<void>();
    t.llm.script(reply.submit(ARTIFACT, { until: answer.promise }));
    const body = runRequest();
    const res = await t.startRun(body);
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { run_id: body.run_id, status: "running" });
    const during = await t.request(`/runs/${body.run_id}/status`);
    assert.deepEqual(await during.json(), { run_id: body.run_id, status: "running" });
    answer.resolve();
    await t.runner.idle();
    const after = await t.request(`/runs/${body.run_id}/status`);
    assert.equal(after.status, 200);
    assert.deepEqual(await after.json(), { run_id: body.run_id, status: "succeeded" });
  } finally {
    await t.close();
  }
});

Deno.test("runner http: a repeated POST /runs for the same run_id does not run it twice", async () => {
  const t = createTestRunner();
  try {
    const answer = Promise.withResolvers<void>();
    t.llm.script(reply.submit(ARTIFACT, { until: answer.promise }));
    const body = runRequest();
    assert.equal((await t.startRun(body)).status, 202);
    const again = await t.startRun(body);
    assert.equal(again.status, 202);
    assert.deepEqual(await again.json(), { run_id: body.run_id, status: "running" });
    answer.resolve();
    assert.equal((await t.results()).length, 1);
    assert.equal(t.llm.calls.length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("runner http: bad or missing signature is 401 and starts nothing", async () => {
  const t = createTestRunner();
  try {
    const body = JSON.stringify(runRequest());
    for (const signature of [null, "", "0".repeat(64), "not-hex"]) {
      const res = await t.request("/runs", { method: "POST", body, signature });
      assert.equal(res.status, 401, String(signature));
      assert.equal((await res.json()).error, "unauthorized");
    }
    // Signed with another secret.
    const other = await signRequest("other-secret", nowSeconds(t.clock), {
      method: "POST",
      path: "/runs",
      body,
    });
    const res = await t.request("/runs", { method: "POST", body, headers: other });
    assert.equal(res.status, 401);
    assert.equal(t.llm.calls.length, 0);
    assert.equal((await t.results()).length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner http: malformed JSON and invalid bodies are 400 with a message", async () => {
  const t = createTestRunner();
  try {
    const cases: [string, string][] = [
      ["{not json", "the body is not JSON"],
      [JSON.stringify({}), "run_id"],
      [JSON.stringify(runRequest({ budget_usd: -1 })), "budget_usd"],
      [JSON.stringify(runRequest({ max_turns: 2.5 })), "max_turns"],
      [JSON.stringify(runRequest({ employee: { task_prompt: "" } })), "employee.task_prompt"],
      [JSON.stringify(runRequest({ employee: { skills: ["../etc"] } })), "employee.skills.0"],
      [JSON.stringify(runRequest({ employee: { model: 42 } })), "employee.model"],
      [JSON.stringify(runRequest({ memory: { recent_rejections: "x" } })), "recent_rejections"],
      [JSON.stringify(runRequest({ run_id: "x".repeat(65) })), "run_id"],
      [JSON.stringify(runRequest({ run_id: "../../etc/passwd" })), "run_id: must be a public id"],
      [JSON.stringify(runRequest({ run_id: "short" })), "run_id"],
      [JSON.stringify(runRequest({ run_id: "a\u0000".repeat(12) })), "run_id"],
    ];
    for (const [body, expected] of cases) {
      const res = await t.request("/runs", { method: "POST", body });
      assert.equal(res.status, 400, body);
      const answer = await res.json();
      assert.equal(answer.error, body.startsWith("{not") ? "malformed_json" : "invalid_body");
      assert.ok(answer.message.includes(expected), `${answer.message} should name ${expected}`);
    }
    assert.equal(t.llm.calls.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner http: a body over 1 MiB is 413", async () => {
  const t = createTestRunner();
  try {
    const body = JSON.stringify(runRequest({ employee: { task_prompt: "x".repeat(1_100_000) } }));
    const res = await t.request("/runs", { method: "POST", body });
    assert.equal(res.status, 413);
    assert.equal(t.llm.calls.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner http: the status route is signed for its run; ids that cannot be runs are 404", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.submit(ARTIFACT));
    const body = runRequest();
    assert.equal((await t.startRun(body)).status, 202);
    await t.runner.idle();
    const path = `/runs/${body.run_id}/status`;
    assert.equal((await t.request(path)).status, 200);
    const at = nowSeconds(t.clock);
    const signed = async (secret: string, signedPath: string) =>
      (await signRequest(secret, at, { method: "GET", path: signedPath, body: "" }))[
        SIGNATURE_HEADER
      ];
    for (
      const signature of [
        null,
        "",
        await hmacSha256Hex(TEST_SECRET, ""),
        await hmacSha256Hex(TEST_SECRET, path),
        await signed(TEST_SECRET, "/runs/another_run_id_of_22_chars/status"),
        await signed("another secret", path),
      ]
    ) {
      const res = await t.request(path, { signature, timestamp: String(at) });
      assert.equal(res.status, 401, String(signature));
      assert.equal((await res.json()).error, "unauthorized");
    }
    for (const bad of ["..%2F..%2Fetc%2Fpasswd", "%E0%A4%A", "%00", "x"]) {
      for (const [route, method] of [["status", "GET"], ["cancel", "POST"]]) {
        const res = await t.request(`/runs/${bad}/${route}`, { method });
        assert.equal(res.status, 404, `${method} ${bad}`);
        await res.body?.cancel();
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("runner http: unknown runs are 404, unknown paths 404, wrong methods 405", async () => {
  const t = createTestRunner();
  try {
    assert.equal((await t.request("/runs/nope/status")).status, 404);
    assert.equal((await t.request("/runs/nope/cancel", { method: "POST" })).status, 404);
    assert.equal((await t.request("/elsewhere")).status, 404);
    assert.equal((await t.request("/runs")).status, 405);
    assert.equal((await t.request("/health", { method: "POST" })).status, 405);
    assert.equal((await t.request("/runs/x/cancel")).status, 405);
  } finally {
    await t.close();
  }
});

Deno.test("runner http: cancel needs a signature; a running run becomes cancelled", async () => {
  const t = createTestRunner({ deps: { cancelPollMs: 20 } });
  try {
    t.llm.script(reply.submit(ARTIFACT, { delayMs: 5_000 }));
    const body = runRequest();
    await t.startRun(body);
    await waitFor(() => t.llm.calls.length > 0, { what: "the model call" });
    const unsigned = await t.request(`/runs/${body.run_id}/cancel`, {
      method: "POST",
      signature: null,
    });
    assert.equal(unsigned.status, 401);
    const res = await t.request(`/runs/${body.run_id}/cancel`, { method: "POST" });
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { run_id: body.run_id, status: "cancelled" });
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "cancelled");
    const status = await t.request(`/runs/${body.run_id}/status`);
    assert.deepEqual(await status.json(), { run_id: body.run_id, status: "cancelled" });
    // Cancelling a finished run changes nothing.
    const done = runRequest();
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(done);
    await t.runner.idle();
    const late = await t.request(`/runs/${done.run_id}/cancel`, { method: "POST" });
    assert.equal(late.status, 409);
    assert.deepEqual(await late.json(), { run_id: done.run_id, status: "succeeded" });
  } finally {
    await t.close();
  }
});

Deno.test("runner http: after shutdown new runs are refused with 503", async () => {
  const t = createTestRunner();
  try {
    await t.runner.shutdown(1000);
    const res = await t.startRun(runRequest());
    assert.equal(res.status, 503);
  } finally {
    await t.close();
  }
});
