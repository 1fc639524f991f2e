import assert from "node:assert/strict";
import { healthReport, type QueueFigures } from "../../src/http/health.ts";
import { createRedisKv } from "../../src/platform/kv-redis.ts";
import { createLogger } from "../../src/platform/log.ts";
import { createTestApp } from "../support/app.ts";
import { createTestDatabase } from "../support/db.ts";
import { createTestKv } from "../support/kv.ts";
import { closedPort, startFakeServer } from "../support/http.ts";
import { VERSION } from "../../src/platform/version.ts";

const zeroQueue = (): Promise<QueueFigures> =>
  Promise.resolve({ processed: 0, failed: 0, enqueued: 0, dead: 0, queues: [] });

Deno.test("health: every check ok answers 200 with the spec's shape", async () => {
  const t = await createTestApp();
  try {
    const res = await t.request("/health");
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status, "ok");
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
    assert.equal(body.version, VERSION, "which build answers, beside the spec's fields");
    assert.deepEqual(Object.keys(body), ["status", "timestamp", "version", "checks"]);
    assert.equal(body.checks.database.status, "ok");
    assert.equal(typeof body.checks.database.active_connections, "number");
    assert.equal(typeof body.checks.database.max_connections, "number");
    assert.ok(body.checks.database.max_connections > 0);
    assert.deepEqual(body.checks.redis, { status: "ok" });
    assert.deepEqual(
      Object.keys(body.checks.sidekiq).sort(),
      ["dead", "enqueued", "failed", "processed", "queues", "status"],
    );
    assert.deepEqual(body.checks.litellm, { status: "ok", message: "not configured" });
    assert.equal(body.checks.agent_runner.status, "not_applicable");
    assert.equal(typeof body.checks.agent_runner.message, "string");
  } finally {
    await t.close();
  }
});

Deno.test("health: database down is an error check and 503", async () => {
  const db = await createTestDatabase();
  const kv = createTestKv();
  await db.close();
  try {
    const report = await healthReport({
      db,
      kv,
      queueFigures: zeroQueue,
      deadThreshold: 25,
      fetch,
      now: () => new Date(),
      checkTimeoutMs: 1500,
    });
    assert.equal(report.status, 503);
    const body = report.body as { status: string; checks: Record<string, Record<string, unknown>> };
    assert.equal(body.status, "degraded");
    assert.equal(body.checks.database.status, "error");
    assert.equal(typeof body.checks.database.message, "string");
    assert.equal(body.checks.database.active_connections, undefined);
    assert.equal(body.checks.redis.status, "ok");
  } finally {
    await kv.close();
  }
});

Deno.test("health: Redis down is an error check and 503", async () => {
  const kv = createRedisKv({
    url: `redis://127.0.0.1:${closedPort()}`,
    log: createLogger({ level: "error" }),
  });
  const t = await createTestApp({ kv });
  try {
    const res = await t.request("/health");
    assert.equal(res.status, 503);
    const body = await res.json();
    assert.equal(body.status, "degraded");
    assert.equal(body.checks.redis.status, "error");
    assert.ok(body.checks.redis.message);
    assert.equal(body.checks.database.status, "ok");
  } finally {
    await t.close();
  }
});

Deno.test("health: LLM proxy liveness is probed; down or failing is 503", async () => {
  const proxy = startFakeServer((req) =>
    new URL(req.url).pathname === "/health/liveliness"
      ? new Response("I'm alive!")
      : new Response("no", { status: 404 })
  );
  const up = await createTestApp({ env: { LLM_BASE_URL: proxy.url } });
  const down = await createTestApp({ env: { LLM_BASE_URL: `http://127.0.0.1:${closedPort()}` } });
  try {
    const ok = await up.request("/health");
    assert.equal(ok.status, 200);
    assert.deepEqual((await ok.json()).checks.litellm, { status: "ok" });
    assert.equal(proxy.requests[0].path, "/health/liveliness");

    const bad = await down.request("/health");
    assert.equal(bad.status, 503);
    const body = await bad.json();
    assert.equal(body.checks.litellm.status, "error");
    assert.ok(body.checks.litellm.message);
  } finally {
    await up.close();
    await down.close();
    await proxy.close();
  }
});

Deno.test("health: a hung dependency times out instead of hanging /health", async () => {
  let release = () => {};
  const hung = new Promise<void>((r) => (release = r));
  const proxy = startFakeServer(async () => {
    await hung;
    return new Response("late");
  });
  const db = await createTestDatabase();
  const kv = createTestKv();
  try {
    const started = performance.now();
    const report = await healthReport({
      db,
      kv,
      queueFigures: zeroQueue,
      deadThreshold: 25,
      llmBaseUrl: proxy.url,
      fetch,
      now: () => new Date(),
      checkTimeoutMs: 300,
    });
    const elapsed = performance.now() - started;
    // The dependency never answers: any end at all is the check's own timeout.
    assert.ok(elapsed < 10_000, `answered after ${Math.round(elapsed)} ms`);
    assert.equal(report.status, 503);
    const body = report.body as { checks: { litellm: { status: string; message: string } } };
    assert.equal(body.checks.litellm.status, "error");
    assert.match(body.checks.litellm.message, /timed out/);
  } finally {
    release();
    await kv.close();
    await db.close();
    await proxy.close();
  }
});

Deno.test("health: dead jobs above the threshold degrade; failed never gates", async () => {
  const db = await createTestDatabase();
  const kv = createTestKv();
  const figures = (dead: number, failed: number) => () =>
    Promise.resolve({ processed: 10, failed, enqueued: 0, dead, queues: [] });
  try {
    const base = { db, kv, fetch, now: () => new Date(), deadThreshold: 25 };
    const atThreshold = await healthReport({ ...base, queueFigures: figures(25, 9999) });
    assert.equal(atThreshold.status, 200);
    const above = await healthReport({ ...base, queueFigures: figures(26, 0) });
    assert.equal(above.status, 503);
    const body = above.body as { status: string; checks: { sidekiq: { status: string } } };
    assert.equal(body.status, "degraded");
    assert.equal(body.checks.sidekiq.status, "degraded");
    const broken = await healthReport({
      ...base,
      queueFigures: () => Promise.reject(new Error("relation jobs does not exist")),
    });
    assert.equal(broken.status, 503);
    assert.equal(
      (broken.body as { checks: { sidekiq: { status: string } } }).checks.sidekiq.status,
      "error",
    );
  } finally {
    await kv.close();
    await db.close();
  }
});
