/**
 * `GET /metrics` (docs/observability.md): guarded by `METRICS_TOKEN`, valid for `promtool`, and
 * its values follow the traffic: requests, GraphQL operations, failed and dead jobs, a `/cable`
 * subscription, and an AI run through the real runner; jobs released at shutdown; the separate
 * `METRICS_PORT` listener of the service and the runner processes.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { PROMTOOL, promtoolProblems, sample } from "../support/metrics.ts";
import { VERSION } from "../../src/platform/version.ts";
import { testNeeding } from "../support/requirements.ts";
import { serveApp, stream, wsClient } from "../support/cable.ts";
import { waitFor } from "../support/wait.ts";
import { reply } from "../support/fake-llm.ts";
import { createEmployee, setupWithRealRunner, triggerRun } from "../support/workforce.ts";
import { type ManualClock, systemClock } from "../../src/platform/clock.ts";
import { createServiceMetrics } from "../../src/platform/metrics.ts";
import type { ServiceMetrics } from "../../src/platform/service-metrics.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { type createTestJobs, shutDownMidJob } from "../support/jobs.ts";
import { startProcess } from "../support/process.ts";
import { startRunnerProcess } from "../support/runner.ts";

const TOKEN = "metrics-test-token-0123456789";

async function scrape(t: { request(path: string, init?: RequestInit): Promise<Response> }) {
  const res = await t.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  return await res.text();
}

Deno.test("metrics: /metrics answers only with the bearer token and counts requests by route", async () => {
  const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    assert.equal((await t.request("/metrics")).status, 401);
    const wrong = await t.request("/metrics", { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    await (await t.request("/up")).body?.cancel();
    await (await t.request("/no/such/route")).body?.cancel();
    const res = await t.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.equal(sample(text, "http_requests_total", { route: "/up", status: "200" }), 1);
    assert.equal(sample(text, "http_requests_total", { route: "unmatched", status: "404" }), 1);
    assert.equal(sample(text, "http_requests_total", { route: "/metrics", status: "401" }), 2);
    assert.equal(sample(text, "http_request_duration_seconds_count", { route: "/up" }), 1);
    assert.ok(sample(text, "process_resident_memory_bytes")! > 0);
  } finally {
    await t.close();
  }
  const closed = await createTestApp();
  try {
    assert.equal((await closed.request("/metrics")).status, 404);
  } finally {
    await closed.close();
  }
});

testNeeding(PROMTOOL)(
  "metrics: the service's /metrics output passes promtool check metrics",
  async () => {
    const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      await (await t.request("/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "query Probe { __typename }" }),
      })).body?.cancel();
      t.app.jobs.handle("metrics.noop", () => {});
      await t.app.jobs.enqueue(t.deps.db.sql, "metrics.noop", {});
      await t.app.jobs.runUntilIdle();
      const text = await scrape(t);
      assert.equal(sample(text, "graphql_operations_total", { operation: "Probe" }), 1);
      assert.equal(await promtoolProblems(text), "");
    } finally {
      await t.close();
    }
  },
);

Deno.test("metrics: a failed job, then the same job dead, and the dead set's size", async () => {
  const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    t.app.jobs.handle("metrics.broken", () => {
      throw new Error("always fails");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "metrics.broken", {}, { maxAttempts: 2 });
    await t.app.jobs.runUntilIdle();
    let text = await scrape(t);
    assert.equal(sample(text, "jobs_enqueued_total", { queue: "default" }), 1);
    assert.equal(
      sample(text, "jobs_finished_total", { name: "metrics.broken", outcome: "failed" }),
      1,
    );
    assert.ok(sample(text, "db_statement_duration_seconds_count", { outcome: "ok" })! > 0);
    (t.clock as ManualClock).advance(3_600_000);
    await t.app.jobs.runUntilIdle();
    text = await scrape(t);
    assert.equal(
      sample(text, "jobs_finished_total", { name: "metrics.broken", outcome: "dead" }),
      1,
    );
    assert.equal(sample(text, "job_duration_seconds_count", { name: "metrics.broken" }), 2);
    assert.equal(sample(text, "jobs_dead"), 1);
  } finally {
    await t.close();
  }
});

Deno.test("metrics: a /cable subscription, GraphQL operations, and a run through the real runner", async () => {
  const ctx = await setupWithRealRunner();
  const served = serveApp(ctx.t);
  const ws = wsClient(served.wsUrl, { headerToken: ctx.admin });
  try {
    const sub = stream(ws.client, "subscription { notificationUpdate { id } }");
    const render = () => ctx.t.app.metrics.render();
    await waitFor(async () =>
      sample(await render(), "cable_subscriptions", { protocol: "graphql-transport-ws" }) === 1
    );
    assert.equal(
      sample(await render(), "cable_connections", { protocol: "graphql-transport-ws" }),
      1,
    );
    sub.unsubscribe();

    const employee = await createEmployee(ctx);
    ctx.tr.llm.script(
      reply.submit({ kind: "report", title: "Weekly", payload: "Up 20%." }, { costUsd: 0.02 }),
    );
    const { errors } = await triggerRun(ctx, employee.id);
    assert.deepEqual(errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    await ctx.tr.runner.idle();

    const service = await render();
    assert.equal(sample(service, "graphql_operations_total", { type: "mutation" }), 2);
    assert.equal(
      sample(service, "integration_calls_total", { integration: "runner", outcome: "ok" }),
      1,
    );
    assert.equal(
      sample(service, "webhooks_received_total", {
        webhook: "/webhooks/ai-workforce",
        outcome: "accepted",
      }),
      1,
    );
    assert.equal(sample(service, "ai_spend_usd_total", { employee: employee.role }), 0.02);
    const runner = await ctx.tr.runner.metrics.render();
    assert.equal(sample(runner, "runner_runs_total", { outcome: "succeeded", error: "none" }), 1);
    assert.equal(sample(runner, "runner_run_turns_count"), 1);
    assert.equal(sample(runner, "runner_run_cost_usd_total"), 0.02);
    assert.equal(sample(runner, "runner_llm_request_duration_seconds_count", { outcome: "ok" }), 1);
    assert.equal(sample(runner, "runner_runs_running"), 0);
    if (PROMTOOL.present()) assert.equal(await promtoolProblems(runner), "");
  } finally {
    await ws.dispose();
    await served.close();
    await ctx.close();
  }
});

Deno.test("metrics: METRICS_PORT serves /metrics alone, without a token, on the service and the runner", async () => {
  const db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  const dataDir = await Deno.makeTempDir({ prefix: "metrics-port-" });
  const service = await startProcess("main.ts", {
    DATA_DIR: dataDir,
    ...(db ? { DATABASE_URL: db.url } : {}),
    METRICS_PORT: "0",
  });
  const { runner, close } = await startRunnerProcess({ METRICS_PORT: "0" });
  try {
    for (
      const [proc, metric, buildInfo] of [
        [service, "http_requests_total", "goals_build_info"],
        [runner, "runner_runs_total", "runner_build_info"],
      ] as const
    ) {
      const listening = await proc.waitForLog("metrics listening");
      assert.equal(listening.hostname, "127.0.0.1", "bound to loopback unless told otherwise");
      const metrics = `http://127.0.0.1:${listening.port}`;
      assert.notEqual(listening.port, proc.port);
      const res = await fetch(`${metrics}/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.match(text, new RegExp(`^# HELP ${metric} `, "m"));
      // Which build runs: the process's version, as `--version` and /health say.
      assert.equal(sample(text, buildInfo, { version: VERSION, deno: Deno.version.deno }), 1);
      assert.equal((await proc.waitForLog("listening")).version, VERSION);
      for (const path of ["/health", "/graphql", "/runs"]) {
        const other = await fetch(`${metrics}${path}`);
        assert.equal(other.status, 404, `${path} is not served on the metrics listener`);
        await other.body?.cancel();
      }
      const main = await fetch(`${proc.url}/metrics`);
      assert.equal(main.status, 404, "without METRICS_TOKEN the main port has no /metrics");
      await main.body?.cancel();
    }
  } finally {
    await close();
    await service.stop();
    await db?.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("metrics: a job released at shutdown counts as failed, as dead on its last attempt, and its late end is not counted again", async () => {
  const db = await createTestDatabase();
  let release!: () => void;
  const hang = new Promise<void>((r) => release = r);
  const deploys: { metrics: ServiceMetrics; log: ReturnType<typeof createTestJobs>["log"] }[] = [];
  try {
    await db.sql`insert into jobs (name, payload, run_at, max_attempts, created_at)
                 values ('metrics.endless', '{}', now(), 2, now())`;
    for (let deploy = 1; deploy <= 2; deploy++) {
      const metrics = createServiceMetrics();
      const { log } = await shutDownMidJob(db, "metrics.endless", hang, {
        clock: systemClock,
        metrics,
      });
      deploys.push({ metrics, log });
    }
    const finished = async (metrics: ServiceMetrics, outcome: string) =>
      sample(await metrics.render(), "jobs_finished_total", { name: "metrics.endless", outcome });
    assert.equal(await finished(deploys[0].metrics, "failed"), 1);
    assert.equal(await finished(deploys[1].metrics, "dead"), 1);
    assert.equal(
      sample(await deploys[1].metrics.render(), "job_duration_seconds_count", {
        name: "metrics.endless",
      }),
      1,
    );
    // Both handlers end now; each completion finds its lock gone.
    release();
    for (const { log } of deploys) {
      await waitFor(
        () => log.entries.some((e) => e.msg === "jobs finished after their lock was lost"),
        { what: "the late completion to be refused" },
      );
    }
    for (const { metrics } of deploys) {
      const text = await metrics.render();
      assert.equal(sample(text, "jobs_finished_total", { outcome: "processed" }), undefined);
      assert.equal(sample(text, "jobs_finished_total"), 1);
    }
  } finally {
    release();
    await db.close();
  }
});
