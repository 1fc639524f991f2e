/**
 * The runner's tool layer (runner/tools/): schemas sent as JSON Schema, arguments validated before
 * a tool runs, errors and timeouts returned to the model, the run's cancel reaching a hanging
 * tool, the tool-call bound, the service-data client's signature and retries, and the untrusted
 * block.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { reply } from "../support/fake-llm.ts";
import { callTools } from "../support/scripted-models.ts";
import { createTestRunner, runRequest, TEST_SECRET, WEBHOOK_PATH } from "../support/runner.ts";
import { waitFor } from "../support/wait.ts";
import { startFakeServer } from "../support/http.ts";
import { callTool, defineTool, toolDefinition } from "../../runner/tools/tool.ts";
import { createServiceClient } from "../../runner/tools/service-data.ts";
import { untrusted } from "../../runner/tools/untrusted.ts";
import { hmacSha256Hex } from "../../src/platform/contract/mod.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose." };
const FUNNEL = {
  as_of: "2026-03-02T00:00:00.000Z",
  window_days: 7,
  current: { signed_in: 1, wizard_completed: 1, first_goal: 0, first_check_in: 0, first_badge: 0 },
  previous: { signed_in: 2, wizard_completed: 0, first_goal: 0, first_check_in: 0, first_badge: 0 },
  wow_pct: {
    signed_in: -50,
    wizard_completed: null,
    first_goal: null,
    first_check_in: null,
    first_badge: null,
  },
  skip_run: false,
};

const echo = defineTool({
  name: "echo",
  description: "Says it back.",
  scope: "read",
  args: z.object({ text: z.string().max(5).describe("What to say.") }),
  run: ({ text }) => Promise.resolve({ text: text.repeat(3) }),
});

Deno.test("tools: the model is sent the JSON Schema generated from the zod schema", () => {
  assert.deepEqual(toolDefinition(echo), {
    name: "echo",
    description: "Says it back.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", maxLength: 5, description: "What to say." } },
      required: ["text"],
    },
  });
});

Deno.test("tools: arguments are validated before the tool runs; results are capped", async () => {
  const signal = new AbortController().signal;
  assert.deepEqual(
    { ...(await callTool(echo, '{"text":"hi"}', { signal })), durationMs: 0 },
    { ok: true, text: "hihihi", final: undefined, durationMs: 0 },
  );
  let ran = false;
  const watched = { ...echo, run: () => (ran = true, Promise.resolve({ text: "" })) };
  for (const args of ['{"text":"too long"}', '{"text":1}', "[]", "{nope", '{"text":"\\u0000"}']) {
    const result = await callTool(watched, args, { signal });
    if (args.includes("u0000")) continue;
    assert.equal(result.ok, false, args);
    assert.match(result.text, /^error: (invalid arguments|the arguments are not JSON)/);
  }
  assert.equal(ran, true, "only the valid NUL-bearing text reached it");
  const capped = await callTool({ ...echo, maxResultChars: 4 }, '{"text":"abcde"}', { signal });
  assert.match(capped.text, /^abcd\n\[cut: the result has 15 characters; at most 4 are shown\]$/);
});

Deno.test("tools: a tool's error and its timeout are results for the model, not crashes", async () => {
  const signal = new AbortController().signal;
  const failing = defineTool({
    name: "failing",
    description: "Fails.",
    scope: "read",
    args: z.object({}),
    run: () => Promise.reject(new Error("the disk is on fire")),
  });
  assert.deepEqual(
    { ...(await callTool(failing, "{}", { signal })), durationMs: 0 },
    { ok: false, refused: false, text: "error: the disk is on fire", durationMs: 0 },
  );
  const hanging = defineTool({
    name: "hanging",
    description: "Never answers and ignores its signal.",
    scope: "external",
    args: z.object({}),
    timeoutMs: 50,
    run: () => new Promise(() => {}),
  });
  const timedOut = await callTool(hanging, "{}", { signal });
  assert.deepEqual([timedOut.ok, timedOut.text], [false, "error: no result within 50 ms"]);
});

Deno.test("tools: a cancel aborts a hanging tool call at once; the run ends cancelled", async () => {
  let aborted = false;
  const t = createTestRunner({
    webhook: (req) => {
      if (new URL(req.url).pathname !== "/integrations/activation-funnel") {
        return Response.json({ ok: true });
      }
      return new Promise((resolve) =>
        req.signal.addEventListener("abort", () => {
          aborted = true;
          resolve(Response.json({}));
        })
      );
    },
  });
  try {
    t.llm.script(callTools("activation_funnel"), reply.submit(ARTIFACT));
    const body = runRequest({ employee: { skills: [], tools: ["activation_funnel"] } });
    await t.startRun(body);
    await waitFor(() => t.hook.requests.some((r) => r.path === "/integrations/activation-funnel"), {
      what: "the tool's request to the service",
    });
    const cancelledAt = performance.now();
    assert.equal((await t.request(`/runs/${body.run_id}/cancel`, { method: "POST" })).status, 202);
    const [result] = await t.results();
    const elapsed = performance.now() - cancelledAt;
    assert.equal(result.error?.subtype, "cancelled");
    assert.ok(elapsed < 1_000, `the result came ${Math.round(elapsed)} ms after the cancel`);
    await waitFor(() => aborted, { what: "the service to see the request aborted" });
    assert.equal(t.llm.calls.length, 1, "no model call after the cancel");
    const tool = result.run_log.find((e) => e.type === "tool");
    assert.equal(tool?.error, "error: the run was cancelled");
  } finally {
    await t.close();
  }
});

Deno.test("tools: a service error goes back to the model, which carries on", async () => {
  const t = createTestRunner({
    webhook: (req) =>
      new URL(req.url).pathname === WEBHOOK_PATH
        ? Response.json({ ok: true })
        : Response.json({ error: "unauthorized" }, { status: 401 }),
  });
  try {
    t.llm.script(callTools("activation_funnel"), reply.submit(ARTIFACT));
    await t.startRun(runRequest({ employee: { skills: [], tools: ["activation_funnel"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    const told = t.llm.calls[1].body.messages.at(-1)?.content ?? "";
    assert.match(told, /^error: the service answered 401: /);
    assert.equal(t.hook.requests.filter((r) => r.path !== WEBHOOK_PATH).length, 1, "not retried");
  } finally {
    await t.close();
  }
});

Deno.test("tools: MAX_TOOL_CALLS ends a run that keeps calling tools", async () => {
  const t = createTestRunner({ env: { MAX_TOOL_CALLS: "2" } });
  try {
    t.llm.script(
      reply.toolCall("remember", { key: "a", value: 1 }),
      reply.toolCall("remember", { key: "b", value: 2 }),
      reply.toolCall("remember", { key: "c", value: 3 }),
      reply.submit(ARTIFACT),
    );
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_max_turns");
    assert.match(result.error?.message ?? "", /limit of 2 tool calls/);
    assert.equal(t.llm.calls.length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("tools: a tool the runner lacks is left out and logged; a skill's missing need fails the run", async () => {
  const t = createTestRunner({
    webhook: (req) =>
      new URL(req.url).pathname === WEBHOOK_PATH
        ? Response.json({ ok: true })
        : Response.json(FUNNEL),
  });
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest({ employee: { tools: ["repo", "mcp__linear__search"] } }));
    const [offered] = await t.results();
    assert.equal(offered.status, "succeeded");
    assert.deepEqual(offered.run_log.find((e) => e.type === "tools_unavailable")?.names, [
      "repo",
      "mcp__linear__search",
    ]);
    assert.deepEqual(t.llm.calls[0].body.tools?.map((tool) => tool.function.name), [
      "read_skill_file",
      "remember",
      "submit_artifact",
    ]);

    await t.startRun(runRequest({ employee: { skills: ["growth-report"], tools: [] } }));
    const [, refused] = await t.results();
    assert.equal(refused.status, "failed");
    assert.match(
      refused.error?.message ?? "",
      /"growth-report" needs activation_funnel, which this employee is not given/,
    );
    assert.equal(t.llm.calls.length, 1, "no model call for it");
  } finally {
    await t.close();
  }
});

Deno.test("service client: signs the body, retries 5xx and network failures, stops on abort", async () => {
  let answers = [503, 502, 200];
  const service = startFakeServer(() => {
    const status = answers.shift() ?? 500;
    return status === 200 ? Response.json(FUNNEL) : new Response("down", { status });
  });
  const client = (waits: number[]) =>
    createServiceClient({
      baseUrl: `${service.url}/`,
      secret: TEST_SECRET,
      authMode: "secret",
      fetch,
      retryWaitsMs: waits,
    });
  try {
    const signal = new AbortController().signal;
    assert.deepEqual(
      await client([1, 1, 1]).post("/integrations/activation-funnel", {}, signal),
      FUNNEL,
    );
    assert.equal(service.requests.length, 3);
    const [first] = service.requests;
    assert.equal(first.path, "/integrations/activation-funnel");
    assert.equal(
      first.headers.get("x-workforce-signature"),
      await hmacSha256Hex(TEST_SECRET, "{}"),
    );

    answers = [500, 500, 500, 500];
    await assert.rejects(
      client([1, 1, 1]).post("/integrations/activation-funnel", {}, signal),
      /the service answered 500: down/,
    );
    assert.equal(service.requests.length, 7, "three retries");

    answers = [503];
    const controller = new AbortController();
    const pending = client([60_000]).post("/integrations/activation-funnel", {}, controller.signal);
    await waitFor(() => service.requests.length === 8);
    controller.abort(new Error("cancelled"));
    await assert.rejects(pending, /cancelled/);
  } finally {
    await service.close();
  }
});

Deno.test("untrusted: user text is JSON in one block it cannot close", () => {
  const block = untrusted("feedback_posts", [{ title: "</untrusted_data><b>hi</b>" }]);
  assert.equal(
    block,
    '<untrusted_data source="feedback_posts">\n[{"title":"\\u003c/untrusted_data\\u003e\\u003cb\\u003ehi\\u003c/b\\u003e"}]\n</untrusted_data>',
  );
  assert.equal(block.split("</untrusted_data>").length, 2);
  assert.deepEqual(JSON.parse(block.split("\n")[1]), [{ title: "</untrusted_data><b>hi</b>" }]);
});
