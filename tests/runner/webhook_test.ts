import assert from "node:assert/strict";
import { SIGNATURE_HEADER, verifyHmacSignature } from "../../src/platform/hmac.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { createWebhookSender } from "../../runner/webhook.ts";
import type { RunResult } from "../../src/platform/contract/mod.ts";
import { startFakeServer } from "../support/http.ts";
import { reply } from "../support/fake-llm.ts";
import { createTestRunner, runRequest, TEST_SECRET } from "../support/runner.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };

Deno.test("runner webhook: signed with X-Workforce-Signature, verified by the service's verifier", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest());
    await t.runner.idle();
    const [received] = t.hook.requests;
    assert.equal(received.method, "POST");
    assert.equal(received.path, "/webhooks/ai-workforce");
    assert.equal(received.headers.get("content-type"), "application/json");
    const signature = received.headers.get(SIGNATURE_HEADER);
    assert.match(signature ?? "", /^[0-9a-f]{64}$/);
    assert.equal(await verifyHmacSignature(TEST_SECRET, received.body, signature), true);
    assert.equal(await verifyHmacSignature("wrong", received.body, signature), false);
    assert.equal(received.headers.get("authorization"), null, "no bearer in secret mode");
  } finally {
    await t.close();
  }
});

Deno.test("runner webhook: retried 3 times after 1 s, 2 s and 3 s", async () => {
  let calls = 0;
  const t = createTestRunner({
    webhook: () => ++calls < 4 ? new Response("busy", { status: 503 }) : Response.json({}),
  });
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest());
    await t.runner.idle();
    assert.equal(t.hook.requests.length, 4);
    assert.deepEqual(t.sleeps, [1000, 2000, 3000]);
    // Every attempt carries the same signed body.
    const bodies = new Set(t.hook.requests.map((r) => r.body));
    assert.equal(bodies.size, 1);
    assert.ok(t.log.entries.some((e) => e.msg === "webhook delivered" && e.attempt === 4));
  } finally {
    await t.close();
  }
});

Deno.test("runner webhook: gives up after the last retry and logs it", async () => {
  const t = createTestRunner({ webhook: () => new Response("down", { status: 500 }) });
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest());
    await t.runner.idle();
    assert.equal(t.hook.requests.length, 4);
    assert.deepEqual(t.sleeps, [1000, 2000, 3000]);
    assert.ok(t.log.entries.some((e) => e.msg === "webhook not delivered" && e.level === "error"));
  } finally {
    await t.close();
  }
});

Deno.test("runner webhook: a 4xx answer is final (not retried)", async () => {
  for (const status of [400, 401, 422]) {
    const t = createTestRunner({ webhook: () => new Response("no", { status }) });
    try {
      t.llm.script(reply.submit(ARTIFACT));
      await t.startRun(runRequest());
      await t.runner.idle();
      assert.equal(t.hook.requests.length, 1, String(status));
      assert.deepEqual(t.sleeps, []);
    } finally {
      await t.close();
    }
  }
});

Deno.test("runner webhook: each attempt has a time limit; a hung receiver is retried", async () => {
  let calls = 0;
  // The first attempt never gets an answer: only the sender's time limit can end it.
  const hook = startFakeServer(async (req) => {
    if (++calls === 1) {
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
    }
    return Response.json({});
  });
  const sleeps: number[] = [];
  try {
    const sender = createWebhookSender({
      url: `${hook.url}/webhooks/ai-workforce`,
      secret: TEST_SECRET,
      authMode: "secret",
      fetch,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      log: memoryLogger(),
      // Ends the hung first attempt; the second, answered at once, must not meet it.
      timeoutMs: 1000,
    });
    const result: RunResult = {
      run_id: "r1",
      status: "failed",
      artifact: null,
      post_filter: null,
      memory: {},
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, num_turns: 0 },
      error: { subtype: "cancelled", message: "x" },
      run_log: [],
    };
    assert.equal(await sender.send(result), true);
    assert.equal(calls, 2);
    assert.deepEqual(sleeps, [1000]);
  } finally {
    await hook.close();
  }
});

Deno.test("runner webhook: the default limit is 15 s per attempt", async () => {
  const { WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_WAITS_MS } = await import("../../runner/webhook.ts");
  assert.equal(WEBHOOK_TIMEOUT_MS, 15_000);
  assert.deepEqual(WEBHOOK_RETRY_WAITS_MS, [1000, 2000, 3000]);
});
