import assert from "node:assert/strict";
import { serviceEnv } from "./support/service-env.ts";
import { startProcess } from "./support/process.ts";
import { startFakeServer } from "./support/http.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

Deno.test("server: starts, serves /health, and on SIGTERM finishes in-flight requests and exits 0", async () => {
  let releaseProbe = () => {};
  const probeHeld = new Promise<void>((r) => (releaseProbe = r));
  let probeArrived = () => {};
  const arrived = new Promise<void>((r) => (probeArrived = r));
  const llm = startFakeServer(async () => {
    probeArrived();
    await probeHeld;
    return new Response("ok");
  });
  const { env, cleanup } = await serviceEnv();
  const service = await startProcess(MAIN, { ...env, LLM_BASE_URL: llm.url });
  try {
    const listening = service.lines.find((l) => l.msg === "listening")!;
    assert.equal(typeof listening.port, "number");
    assert.notEqual(listening.port, 0);
    // main.ts puts the process in production mode before graphql-js loads.
    assert.equal(listening.node_env, "production");

    const inFlight = fetch(`${service.url}/health`);
    await arrived;
    service.child.kill("SIGTERM");
    await service.waitForLog("shutting down");
    releaseProbe();
    const res = await inFlight;
    assert.equal(res.status, 200, "the request in flight at SIGTERM still completes");
    assert.equal((await res.json()).status, "ok");
    const code = await service.stop();
    assert.equal(code, 0);
    assert.ok(service.lines.some((l) => l.msg === "stopped"));
  } finally {
    releaseProbe();
    await llm.close();
    await cleanup();
  }
});

Deno.test("server: with METRICS_TOKEN set the started service records and serves its metrics; short secrets are named, never shown", async () => {
  const { env, cleanup } = await serviceEnv();
  const token = "metrics-token-0123456789";
  const webhookSecret = "hunter2-short";
  const service = await startProcess(MAIN, {
    ...env,
    METRICS_TOKEN: token,
    WORKFORCE_WEBHOOK_SECRET: webhookSecret,
  });
  try {
    // Both are shorter than 32 characters: accepted for compatibility, with a warning each.
    assert.deepEqual(
      service.lines.filter((l) => l.msg === "secret shorter than 32 characters").map((l) => [
        l.level,
        l.variable,
      ]),
      [["warn", "WORKFORCE_WEBHOOK_SECRET"], ["warn", "METRICS_TOKEN"]],
    );
    const logged = JSON.stringify(service.lines);
    assert.ok(!logged.includes(webhookSecret) && !logged.includes(token), "no value is logged");
    const health = await fetch(`${service.url}/health`);
    await health.body?.cancel();
    const res = await fetch(`${service.url}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^http_requests_total\{method="GET",route="\/health"/m);
    assert.equal(await service.stop(), 0);
  } finally {
    await cleanup();
  }
});
