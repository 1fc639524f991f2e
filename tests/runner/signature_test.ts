/**
 * The signature of the service's calls to the runner (DESIGN 3.3, docs/runner.md): timestamp,
 * method, path and body under the shared secret, refused outside the window, when replayed within
 * it, when made the old body-only way, and when made for another route, run or method.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { reply } from "../support/fake-llm.ts";
import { createTestRunner, runRequest, TEST_SECRET, type TestRunner } from "../support/runner.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../src/platform/hmac.ts";
import { signRequest, TIMESTAMP_HEADER } from "../../src/platform/contract/request-signature.ts";
import { createReplayGuard } from "../../runner/replay-guard.ts";
import { parseRunnerConfig } from "../../runner/config.ts";
import { ConfigError } from "../../src/platform/env.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { waitFor } from "../support/wait.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };
const NEXT_SECRET = "next-workforce-secret-0123456789abcdef";

const secondsOf = (t: TestRunner) => Math.floor(t.clock.now().getTime() / 1000);

/** Sends `path` with exactly `headers` (no signing by the helper). */
async function send(
  t: TestRunner,
  path: string,
  init: { method: string; body?: string; headers: Record<string, string> },
): Promise<{ status: number; error?: string; message?: string }> {
  const res = await t.request(path, {
    method: init.method,
    body: init.body,
    headers: init.headers,
    signature: init.headers[SIGNATURE_HEADER] ?? null,
    timestamp: init.headers[TIMESTAMP_HEADER] ?? null,
  });
  const { error, message } = await res.json();
  return { status: res.status, ...(error ? { error, message } : {}) };
}

/** A run that stays in its model call until `release` resolves. */
async function startHeldRun(t: TestRunner, release: Promise<void>) {
  t.llm.script(reply.submit(ARTIFACT, { until: release }));
  const body = runRequest();
  assert.equal((await t.startRun(body)).status, 202);
  return body.run_id as string;
}

Deno.test("runner signature: the signed message is <timestamp>.<METHOD>.<path>.<raw body>", async () => {
  const t = createTestRunner();
  try {
    const body = JSON.stringify(runRequest());
    const at = secondsOf(t);
    const expected = createHmac("sha256", TEST_SECRET).update(`${at}.POST./runs.${body}`)
      .digest("hex");
    const headers = await signRequest(TEST_SECRET, at, { method: "POST", path: "/runs", body });
    assert.deepEqual(headers, { [TIMESTAMP_HEADER]: String(at), [SIGNATURE_HEADER]: expected });
    t.llm.script(reply.submit(ARTIFACT));
    assert.equal((await send(t, "/runs", { method: "POST", body, headers })).status, 202);
    assert.equal((await t.results()).length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: a timestamp outside the window, either way, is 401", async () => {
  const t = createTestRunner();
  try {
    const window = t.config.signatureWindowSeconds;
    assert.equal(window, 300, "the default window");
    const now = secondsOf(t);
    for (const [at, expected] of [[now - window - 1, 401], [now + window + 1, 401]] as const) {
      const body = JSON.stringify(runRequest());
      const headers = await signRequest(TEST_SECRET, at, { method: "POST", path: "/runs", body });
      const answer = await send(t, "/runs", { method: "POST", body, headers });
      assert.equal(answer.status, expected, `${at - now} s`);
      assert.equal(answer.error, "unauthorized");
      assert.match(answer.message!, /X-Workforce-Timestamp is \d+ s from this clock/);
    }
    assert.equal(t.llm.calls.length, 0);
    // The edges of the window, and a clock a minute ahead, are accepted.
    t.llm.script(reply.submit(ARTIFACT), reply.submit(ARTIFACT), reply.submit(ARTIFACT));
    for (const at of [now - window, now + window, now + 60]) {
      const body = JSON.stringify(runRequest());
      const headers = await signRequest(TEST_SECRET, at, { method: "POST", path: "/runs", body });
      assert.equal((await send(t, "/runs", { method: "POST", body, headers })).status, 202);
    }
    assert.equal((await t.results()).length, 3);
    const refusals = t.log.entries.filter((e) => e.msg === "signed request refused");
    assert.deepEqual(refusals.map((e) => e.reason), ["outside_window", "outside_window"]);
    const logged = JSON.stringify(t.log.entries);
    assert.ok(!logged.includes(TEST_SECRET), "no log line holds the secret");
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: SIGNATURE_WINDOW_SECONDS sets the window; bad values stop the runner", async () => {
  const t = createTestRunner({ env: { SIGNATURE_WINDOW_SECONDS: "30" } });
  try {
    const body = JSON.stringify(runRequest());
    const at = secondsOf(t) - 31;
    const headers = await signRequest(TEST_SECRET, at, { method: "POST", path: "/runs", body });
    assert.equal((await send(t, "/runs", { method: "POST", body, headers })).status, 401);
  } finally {
    await t.close();
  }
  const env = {
    WEBHOOK_URL: "http://service.test/webhooks/ai-workforce",
    WEBHOOK_SECRET: TEST_SECRET,
    LLM_BASE_URL: "http://llm.test",
    LLM_API_KEY: "sk-test",
  };
  for (const bad of ["0", "5", "3601", "1.5", "five minutes"]) {
    assert.throws(
      () => parseRunnerConfig({ ...env, SIGNATURE_WINDOW_SECONDS: bad }),
      (err) => err instanceof ConfigError && err.variable === "SIGNATURE_WINDOW_SECONDS",
      bad,
    );
  }
});

Deno.test("runner signature: a replay within the window is 401, and stays refused after it", async () => {
  const t = createTestRunner({ deps: { cancelPollMs: 20 } });
  try {
    const body = JSON.stringify(runRequest());
    const headers = await signRequest(TEST_SECRET, secondsOf(t), {
      method: "POST",
      path: "/runs",
      body,
    });
    const release = Promise.withResolvers<void>();
    t.llm.script(reply.submit(ARTIFACT, { until: release.promise }));
    assert.equal((await send(t, "/runs", { method: "POST", body, headers })).status, 202);
    const replayed = await send(t, "/runs", { method: "POST", body, headers });
    assert.deepEqual(replayed, {
      status: 401,
      error: "unauthorized",
      message: "this signed request was already received",
    });
    // Upper-case hex is the same signature.
    const shouted = { ...headers, [SIGNATURE_HEADER]: headers[SIGNATURE_HEADER].toUpperCase() };
    assert.equal((await send(t, "/runs", { method: "POST", body, headers: shouted })).status, 401);

    // A captured cancel is replayed: the first cancels, the copy is refused. The run is cancelled
    // once it is in its model call, so that the count below tells whether a replay started one.
    await waitFor(() => t.llm.calls.length === 1, { what: "the run's model call" });
    const runId = JSON.parse(body).run_id;
    const cancelPath = `/runs/${runId}/cancel`;
    const cancel = await signRequest(TEST_SECRET, secondsOf(t), {
      method: "POST",
      path: cancelPath,
      body: "",
    });
    assert.equal((await send(t, cancelPath, { method: "POST", headers: cancel })).status, 202);
    assert.equal((await send(t, cancelPath, { method: "POST", headers: cancel })).status, 401);
    release.resolve();
    assert.equal((await t.results())[0].error?.subtype, "cancelled");

    // Past the window the copy is refused for its age, and forgotten.
    t.clock.advance((t.config.signatureWindowSeconds + 1) * 1000);
    const late = await send(t, "/runs", { method: "POST", body, headers });
    assert.equal(late.status, 401);
    assert.match(late.message!, /X-Workforce-Timestamp/);
    const reasons = t.log.entries.filter((e) => e.msg === "signed request refused")
      .map((e) => e.reason);
    assert.deepEqual(reasons, ["replay", "replay", "replay", "outside_window"]);
    assert.equal(t.llm.calls.length, 1, "the replayed run never started again");
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: the old body-only signature is 401 on every route", async () => {
  const t = createTestRunner();
  try {
    const release = Promise.withResolvers<void>();
    const runId = await startHeldRun(t, release.promise);
    const body = JSON.stringify(runRequest());
    const at = String(secondsOf(t));
    for (
      const [method, path, sent] of [
        ["POST", "/runs", body],
        ["GET", `/runs/${runId}/status`, ""],
        ["POST", `/runs/${runId}/cancel`, ""],
      ]
    ) {
      // What the runner accepted before: HMAC of the body (the path for status), with and
      // without a timestamp beside it.
      const old = await hmacSha256Hex(TEST_SECRET, method === "GET" ? path : sent);
      for (const timestamp of [undefined, at]) {
        const headers: Record<string, string> = { [SIGNATURE_HEADER]: old };
        if (timestamp) headers[TIMESTAMP_HEADER] = timestamp;
        const answer = await send(t, path, { method, body: sent || undefined, headers });
        assert.equal(answer.status, 401, `${method} ${path} ${timestamp ?? "no timestamp"}`);
      }
    }
    assert.equal((await t.request(`/runs/${runId}/status`)).status, 200, "still running");
    release.resolve();
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: a signature made for another run, route or method is 401", async () => {
  const t = createTestRunner();
  try {
    const release = Promise.withResolvers<void>();
    const first = await startHeldRun(t, release.promise);
    const second = await startHeldRun(t, release.promise);
    const at = secondsOf(t);
    const sign = (method: string, path: string, body = "") =>
      signRequest(TEST_SECRET, at, { method, path, body });
    const runs = JSON.stringify(runRequest());
    const cases: [string, string, string, Record<string, string>][] = [
      // The cancel of one run does not cancel another (it used to be the same for every run).
      ["POST", `/runs/${second}/cancel`, "", await sign("POST", `/runs/${first}/cancel`)],
      ["POST", `/runs/${first}/cancel`, "", await sign("GET", `/runs/${first}/status`)],
      ["POST", `/runs/${first}/cancel`, "", await sign("POST", "/runs")],
      ["GET", `/runs/${first}/status`, "", await sign("POST", `/runs/${first}/status`)],
      ["GET", `/runs/${first}/status`, "", await sign("GET", `/runs/${second}/status`)],
      ["POST", "/runs", runs, await sign("POST", "/runs", `${runs} `)],
      ["POST", "/runs", runs, await sign("PUT", "/runs", runs)],
      ["POST", "/runs", runs, await sign("POST", "/runs/", runs)],
      ["POST", "/runs", runs, await sign("POST", "/prefix/runs", runs)],
      // The timestamp is part of what is signed.
      ["POST", "/runs", runs, {
        ...await sign("POST", "/runs", runs),
        [TIMESTAMP_HEADER]: String(at + 1),
      }],
      [
        "POST",
        "/runs",
        runs,
        await signRequest("another-secret", at, {
          method: "POST",
          path: "/runs",
          body: runs,
        }),
      ],
    ];
    for (const [method, path, body, headers] of cases) {
      const answer = await send(t, path, { method, body: body || undefined, headers });
      assert.equal(answer.status, 401, `${method} ${path}`);
      assert.equal(answer.message, "missing or invalid X-Workforce-Signature");
    }
    for (const id of [first, second]) {
      const status = await t.request(`/runs/${id}/status`);
      assert.equal((await status.json()).status, "running", "neither run was cancelled");
    }
    release.resolve();
    assert.equal((await t.results()).length, 2, "no other run started");
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: a missing or malformed timestamp is 401", async () => {
  const t = createTestRunner();
  try {
    const body = JSON.stringify(runRequest());
    const at = secondsOf(t);
    const signed = await signRequest(TEST_SECRET, at, { method: "POST", path: "/runs", body });
    const stamps = [null, "", "abc", "-1", `${at}.0`, `${at}e0`, `+${at}`, `0x${at.toString(16)}`];
    for (const timestamp of [...stamps, "9".repeat(20), `${at * 1000}`]) {
      const res = await t.request("/runs", {
        method: "POST",
        body,
        signature: signed[SIGNATURE_HEADER],
        timestamp,
      });
      assert.equal(res.status, 401, String(timestamp));
      assert.equal((await res.json()).error, "unauthorized");
    }
    assert.equal(t.llm.calls.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: during a rotation the next secret is accepted too", async () => {
  const t = createTestRunner({ env: { WEBHOOK_SECRET_NEXT: NEXT_SECRET } });
  try {
    t.llm.script(reply.submit(ARTIFACT), reply.submit(ARTIFACT));
    for (const secret of [TEST_SECRET, NEXT_SECRET]) {
      const body = JSON.stringify(runRequest());
      const headers = await signRequest(secret, secondsOf(t), {
        method: "POST",
        path: "/runs",
        body,
      });
      assert.equal((await send(t, "/runs", { method: "POST", body, headers })).status, 202);
    }
    assert.equal((await t.results()).length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("runner signature: replay memory forgets what left the window and is bounded", () => {
  const clock = new ManualClock();
  const at = Math.floor(clock.now().getTime() / 1000);
  const guard = createReplayGuard({ clock, windowSeconds: 10, capacity: 3 });
  assert.deepEqual(guard.admit("a", at), { verdict: "fresh" });
  assert.deepEqual(guard.admit("a", at), { verdict: "replay" });
  assert.deepEqual(guard.admit("b", at + 5), { verdict: "fresh" });
  assert.deepEqual(guard.admit("c", at), { verdict: "fresh" });
  // Full of signatures still in their window: refused, never made room for by forgetting one.
  assert.deepEqual(guard.admit("d", at), { verdict: "full", retryAfterSeconds: 10 });
  assert.deepEqual(guard.admit("a", at), { verdict: "replay" });
  assert.equal(guard.size, 3);
  clock.advance(11_000);
  assert.deepEqual(guard.admit("d", at + 11), { verdict: "fresh" });
  assert.equal(guard.size, 2, "a and c left the window and were forgotten; b and d remain");
  clock.advance(60_000);
  assert.deepEqual(guard.admit("e", at + 71), { verdict: "fresh" });
  assert.equal(guard.size, 1);
});

Deno.test("runner signature: a full replay memory answers 429 with Retry-After, then recovers", async () => {
  const t = createTestRunner({ deps: { replayMemory: 2 } });
  try {
    const path = "/runs/unknown_run_id_of_22_chars/status";
    const at = secondsOf(t);
    const status = async (timestamp: number) => {
      const headers = await signRequest(TEST_SECRET, timestamp, { method: "GET", path, body: "" });
      const res = await t.request(path, {
        signature: headers[SIGNATURE_HEADER],
        timestamp: headers[TIMESTAMP_HEADER],
      });
      await res.body?.cancel();
      return { status: res.status, retryAfter: res.headers.get("retry-after") };
    };
    assert.equal((await status(at - 100)).status, 404, "authenticated: an unknown run");
    assert.equal((await status(at)).status, 404);
    assert.deepEqual(await status(at + 1), { status: 429, retryAfter: "200" });
    t.clock.advance(201_000);
    assert.equal((await status(at + 201)).status, 404, "the oldest left the window");
    const full = t.log.entries.filter((e) => e.reason === "replay_memory_full");
    assert.equal(full.length, 1);
  } finally {
    await t.close();
  }
});
