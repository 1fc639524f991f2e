import assert from "node:assert/strict";
import { SIGNATURE_HEADER, verifyHmacSignature } from "../../src/platform/hmac.ts";
import { systemClock } from "../../src/platform/clock.ts";
import { reply } from "../support/fake-llm.ts";
import type { FakeServer } from "../support/http.ts";
import { runRequest, serviceSigner, startRunnerProcess, TEST_SECRET } from "../support/runner.ts";
import { waitFor } from "../support/wait.ts";
import { statusOf, trickleBody, trickleHead } from "../support/slow-clients.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };

const waitForRequests = (server: FakeServer, count: number) =>
  waitFor(() => server.requests.length >= count, {
    timeoutMs: 20_000,
    what: `${count} webhook request(s)`,
  });

const sign = serviceSigner(TEST_SECRET, systemClock);

async function post(url: string, body: unknown): Promise<Response> {
  const text = JSON.stringify(body);
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...await sign({ method: "POST", path: new URL(url).pathname, body: text }),
    },
    body: text,
  });
}

Deno.test("runner process: PORT=0, a run end to end, SIGTERM reports running runs cancelled", async () => {
  const { llm, hook, runner, close } = await startRunnerProcess();
  try {
    assert.ok(runner.port > 0);
    // TEST_SECRET is shorter than 32 characters: accepted, with a warning naming the variable only.
    const warning = runner.lines.find((l) => l.msg === "secret shorter than 32 characters");
    assert.deepEqual([warning?.variable, warning?.min_length], ["WEBHOOK_SECRET", 32]);
    assert.ok(!JSON.stringify(runner.lines).includes(TEST_SECRET), "no log line holds it");
    const health = await fetch(`${runner.url}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, "ok");

    llm.script(
      reply.toolCall("remember", { key: "week", value: 2 }, { costUsd: 0.001 }),
      reply.submit(ARTIFACT, { costUsd: 0.002 }),
    );
    const first = runRequest();
    const accepted = await post(`${runner.url}/runs`, first);
    assert.equal(accepted.status, 202);
    assert.deepEqual(await accepted.json(), { run_id: first.run_id, status: "running" });
    await waitForRequests(hook, 1);
    const delivered = hook.requests[0];
    assert.ok(
      await verifyHmacSignature(
        TEST_SECRET,
        delivered.body,
        delivered.headers.get(SIGNATURE_HEADER),
      ),
    );
    const result = JSON.parse(delivered.body);
    assert.equal(result.status, "succeeded");
    assert.deepEqual(result.artifact, { ...ARTIFACT, metadata: { unsupported_figures: ["20%"] } });
    assert.deepEqual(result.memory, { week: 2 });
    assert.ok(Math.abs(result.usage.cost_usd - 0.003) < 1e-12);
    const statusPath = `/runs/${first.run_id}/status`;
    const unsigned = await fetch(`${runner.url}${statusPath}`);
    assert.equal(unsigned.status, 401, "the status route is signed like POST /runs");
    await unsigned.body?.cancel();
    const status = await fetch(`${runner.url}${statusPath}`, {
      headers: await sign({ method: "GET", path: statusPath }),
    });
    assert.deepEqual(await status.json(), { run_id: first.run_id, status: "succeeded" });

    // A run stuck in a slow model call when SIGTERM arrives.
    llm.script(reply.submit(ARTIFACT, { delayMs: 30_000 }));
    const second = runRequest();
    assert.equal((await post(`${runner.url}/runs`, second)).status, 202);
    await waitFor(() => llm.calls.length >= 3, {
      timeoutMs: 20_000,
      what: "the second run's model call",
    });
    const code = await runner.stop();
    assert.equal(code, 0);
    assert.equal(hook.requests.length, 2, "the cancelled run reported before exit");
    const cancelled = JSON.parse(hook.requests[1].body);
    assert.equal(cancelled.run_id, second.run_id);
    assert.equal(cancelled.status, "failed");
    assert.deepEqual(cancelled.error, {
      subtype: "cancelled",
      message: "the runner is shutting down",
    });
    assert.ok(runner.lines.some((line) => line.msg === "stopped"));
  } finally {
    await close();
  }
});

Deno.test("runner process: a trickled head or body is answered 408 at its bound; an address past its cap 429", async () => {
  // Two runners: the cap's held connections must outlive the check, so their bound is long.
  const [{ runner, close }, capped] = await Promise.all([
    startRunnerProcess({ HTTP_HEADERS_TIMEOUT_MS: "500", HTTP_BODY_TIMEOUT_MS: "500" }),
    startRunnerProcess({ HTTP_HEADERS_TIMEOUT_MS: "30000", HTTP_MAX_CONNECTIONS_PER_ADDRESS: "3" }),
  ]);
  try {
    const [head, body] = await Promise.all([
      trickleHead(runner.port, 100),
      trickleBody(runner.port, "/runs", 100_000, 100),
    ]);
    const [headClosed, bodyClosed] = await Promise.all([head.closed, body.closed]);
    assert.equal(statusOf(headClosed.text), 408, headClosed.text);
    assert.ok(headClosed.afterMs >= 500 && headClosed.afterMs < 2_500, `${headClosed.afterMs}`);
    assert.equal(statusOf(bodyClosed.text), 408, bodyClosed.text);
    assert.match(bodyClosed.text, /"error":"request_timeout"/);
    assert.ok(bodyClosed.afterMs >= 500 && bodyClosed.afterMs < 2_500, `${bodyClosed.afterMs}`);

    const held = await Promise.all(
      Array.from({ length: 3 }, () => trickleHead(capped.runner.port, 100)),
    );
    const refused = await fetch(`${capped.runner.url}/health`);
    assert.equal(refused.status, 429);
    assert.equal((await refused.json()).error, "too_many_connections");
    for (const h of held) h.abandon();
  } finally {
    await Promise.all([close(), capped.close()]);
  }
});
