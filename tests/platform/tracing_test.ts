/**
 * One AI run is one trace (docs/observability.md): the GraphQL request that triggers it, its SQL,
 * the dispatch job (which continues the request's trace from the `traceparent` stored with it),
 * the runner process's request, run and model calls, and the result webhook back into the
 * service, all exported over OTLP by real processes to a local receiver.
 */
import assert from "node:assert/strict";
import { reply, startFakeLlm } from "../support/fake-llm.ts";
import { freePort } from "../support/metadata.ts";
import { startOtlpReceiver } from "../support/otlp.ts";
import { startProcess } from "../support/process.ts";
import { SKILLS_DIR, TEST_SECRET } from "../support/runner.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { waitFor } from "../support/wait.ts";
import { loadDevKey, mintDevToken } from "../../src/graphql/dev-auth.ts";

const RUNNER_ENTRY = new URL("../../runner/main.ts", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const TRACING = new URL("../../src/platform/tracing.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

Deno.test("tracing: request -> SQL -> dispatch job -> runner -> model call -> result webhook is one trace", async () => {
  const otlp = startOtlpReceiver();
  const llm = startFakeLlm();
  const db = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  const dataDir = await Deno.makeTempDir({ prefix: "tracing-" });
  const runnerUrl = `http://127.0.0.1:${freePort()}`;
  const service = await startProcess(MAIN, {
    ...otlp.env("goals-service"),
    DATA_DIR: dataDir,
    ...(db ? { DATABASE_URL: db.url } : {}),
    DEV_AUTH: "on",
    WORKFORCE_WEBHOOK_SECRET: TEST_SECRET,
    RUNNER_URL: runnerUrl,
  });
  const runner = await startProcess(RUNNER_ENTRY, {
    ...otlp.env("runner"),
    PORT: new URL(runnerUrl).port,
    HOST: "127.0.0.1",
    WEBHOOK_URL: `${service.url}/webhooks/ai-workforce`,
    WEBHOOK_SECRET: TEST_SECRET,
    LLM_BASE_URL: `${llm.url}/v1`,
    LLM_API_KEY: "sk-test",
    SKILLS_DIR,
  });
  try {
    const token = await mintDevToken(await loadDevKey(dataDir), "ops", {
      admin: true,
      ttlSeconds: 3600,
    });
    const graphql = async (query: string, variables: Record<string, unknown>) => {
      const res = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query, variables }),
      });
      const body = await res.json();
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      return body.data;
    };
    const created = await graphql(
      `mutation($role: String!) { createAiEmployee(name: "Reporter", role: $role,
        taskPrompt: "Write the weekly report.", skills: ["weekly-report"]) { employee { id } } }`,
      { role: `reporter_${crypto.randomUUID().slice(0, 8)}` },
    );
    llm.script(reply.submit({ kind: "report", title: "Weekly", payload: "Up 20%." }));
    const triggered = await graphql(
      `mutation TriggerRun($id: String!) { triggerAiRun(employeeId: $id) { run { id } } }`,
      { id: created.createAiEmployee.employee.id },
    );
    const runId = triggered.triggerAiRun.run.id;
    await waitFor(
      async () =>
        (await graphql(`query($id: String!) { aiRun(id: $id) { status } }`, { id: runId }))
          .aiRun.status === "succeeded",
      { timeoutMs: 30_000, what: "the run to succeed" },
    );
  } finally {
    await runner.stop();
    await service.stop();
    await llm.close();
    await db?.close();
  }
  try {
    const trigger = otlp.spans.find((s) => s.name === "graphql.mutation TriggerRun");
    assert.ok(trigger, `no GraphQL span among ${otlp.spans.map((s) => s.name).join(", ")}`);
    const trace = otlp.spans.filter((s) => s.traceId === trigger.traceId);
    const has = (service: string, match: (name: string) => boolean) =>
      trace.some((s) => s.service === service && match(s.name));
    assert.ok(has("goals-service", (n) => n === "POST /graphql"));
    assert.ok(has("goals-service", (n) => n === "INSERT"), "an SQL statement span");
    assert.ok(has("goals-service", (n) => n === "job ai_workforce.dispatch_run"));
    assert.ok(has("runner", (n) => n === "POST /runs"));
    assert.ok(has("runner", (n) => n === "run"));
    assert.ok(
      trace.some((s) =>
        s.service === "runner" && String(s.attributes["url.full"]).startsWith(llm.url)
      ),
      "the runner's model call",
    );
    assert.ok(has("goals-service", (n) => n === "POST /webhooks/ai-workforce"));
    // Connected: one root, and every other span's parent is in the same trace.
    const ids = new Set(trace.map((s) => s.spanId));
    const roots = trace.filter((s) => !s.parentSpanId);
    assert.deepEqual(roots.map((s) => s.name), ["POST /graphql"]);
    assert.deepEqual(trace.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)), []);
    // The request log line carries the trace id.
    const logged = service.lines.filter((l) => l.msg === "request" && l.path === "/graphql");
    assert.ok(logged.some((l) => l.trace_id === trigger.traceId));
  } finally {
    await otlp.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("tracing: in a trace the sampler drops, the code opens no span and propagates no traceparent", async () => {
  const probe = `
    import { currentTraceparent, inSpan, recordingSpan } from "${TRACING}";
    const seen = await inSpan("probe", {}, async (span) => ({
      span: span !== undefined,
      active: recordingSpan() !== undefined,
      traceparent: currentTraceparent(),
    }));
    console.log(JSON.stringify(seen));`;
  const run = async (sampler: string) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--config", CONFIG, probe],
      env: {
        OTEL_DENO: "true",
        OTEL_TRACES_SAMPLER: sampler,
        // Nothing listens there: the probe's export, if any, fails after it printed.
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
        OTEL_DENO_CONSOLE: "ignore",
      },
      stdout: "piped",
      stderr: "null",
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout).trim());
  };
  const on = await run("always_on");
  assert.equal(on.span, true);
  assert.equal(on.active, true);
  assert.match(on.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.deepEqual(await run("always_off"), { span: false, active: false, traceparent: null });
});
