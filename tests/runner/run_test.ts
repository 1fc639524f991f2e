import assert from "node:assert/strict";
import { reply } from "../support/fake-llm.ts";
import { createTestRunner, runRequest, SKILLS_DIR } from "../support/runner.ts";
import { waitFor } from "../support/wait.ts";

const ARTIFACT = { kind: "report", title: "Weekly report", payload: "Sign-ups rose 20%." };

Deno.test("runner run: tool calls, memory and a valid artifact make a succeeded result", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(
      reply.toolCall("read_skill_file", { skill: "weekly-report", path: "template.md" }),
      reply.toolCall("remember", { key: "last_signups", value: 120 }, {
        usage: { prompt_tokens: 1000, completion_tokens: 200 },
      }),
      reply.submit(ARTIFACT, { usage: { prompt_tokens: 2000, completion_tokens: 300 } }),
    );
    const body = runRequest({
      memory: { recent_rejections: ["Invented a retention figure", "Used emoji"], tone: "plain" },
    });
    await t.startRun(body);
    const [result] = await t.results();
    assert.equal(result.run_id, body.run_id);
    assert.equal(result.status, "succeeded");
    // "20%" is in none of the run's sources: the grounding check lists it.
    assert.deepEqual(result.artifact, { ...ARTIFACT, metadata: { unsupported_figures: ["20%"] } });
    assert.equal(result.post_filter, null);
    assert.equal(result.error, null);
    assert.deepEqual(result.memory, { last_signups: 120 });
    assert.equal(result.usage.num_turns, 3);
    assert.equal(result.usage.input_tokens, 3100);
    assert.equal(result.usage.output_tokens, 550);
    // gpt-4o-mini: 0.15 / 0.6 USD per million tokens.
    assert.ok(Math.abs(result.usage.cost_usd - (3100 * 0.15 + 550 * 0.6) / 1e6) < 1e-12);
    assert.deepEqual(Object.keys(result).sort(), [
      "artifact",
      "error",
      "memory",
      "post_filter",
      "run_id",
      "run_log",
      "status",
      "usage",
    ]);

    // The prompt: skills, memory, and rejections as mistakes to avoid.
    const first = t.llm.calls[0].body;
    assert.equal(first.model, "gpt-4o-mini");
    const system = first.messages[0].content ?? "";
    assert.match(system, /weekly-report: Writes the weekly progress report/);
    assert.match(system, /template\.md/);
    assert.match(
      system,
      /## Avoid these mistakes[\s\S]*- Invented a retention figure\n- Used emoji/,
    );
    assert.match(system, /"tone": "plain"/);
    assert.equal(
      first.messages[1].content,
      body.employee && (body.employee as { task_prompt: string }).task_prompt,
    );
    assert.deepEqual(first.tools?.map((tool) => tool.function.name), [
      "read_skill_file",
      "remember",
      "submit_artifact",
    ]);
    assert.equal(first.max_tokens, 4096);
    const submit = first.tools?.find((tool) => tool.function.name === "submit_artifact") as
      | { function: { parameters: { properties: { kind: { enum: string[] } } } } }
      | undefined;
    assert.deepEqual(
      submit?.function.parameters.properties.kind.enum,
      [
        "code_patch",
        "email_template",
        "slack_message",
        "report",
        "draft_post",
        "recommendation",
        "other",
      ],
      "the kinds the employee may produce (every kind when the request names none)",
    );
    assert.equal(t.llm.calls[0].headers.get("authorization"), "Bearer sk-test");
    // The tool results went back to the model.
    const second = t.llm.calls[1].body.messages;
    const template = await Deno.readTextFile(`${SKILLS_DIR}/weekly-report/template.md`);
    assert.equal(second.at(-1)?.role, "tool");
    assert.equal(second.at(-1)?.content, template);
    assert.equal(t.llm.calls[2].body.messages.at(-1)?.content, 'remembered "last_signups"');

    // run_log: every turn with usage and timing, every tool call.
    const types = result.run_log.map((entry) => entry.type);
    assert.deepEqual(types, [
      "start",
      "prompt",
      "turn",
      "tool",
      "turn",
      "tool",
      "turn",
      "tool",
      "grounding",
      "finish",
    ]);
    const turn = result.run_log.find((entry) => entry.type === "turn")!;
    assert.equal(turn.role, "assistant");
    assert.deepEqual(turn.tool_calls, [{
      name: "read_skill_file",
      arguments: '{"skill":"weekly-report","path":"template.md"}',
    }]);
    assert.deepEqual(turn.usage, { input_tokens: 100, output_tokens: 50 });
    assert.equal(typeof turn.duration_ms, "number");
    assert.equal(turn.at, "2026-01-05T12:00:00.000Z");
  } finally {
    await t.close();
  }
});

Deno.test("runner run: the proxy's reported cost wins over the price table", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.submit(ARTIFACT, { costUsd: 0.0123 }));
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.usage.cost_usd, 0.0123);
    assert.equal(result.run_log.find((e) => e.type === "turn")?.cost_source, "proxy");
  } finally {
    await t.close();
  }
});

Deno.test("runner run: the turn limit gives error_max_turns, a failed result", async () => {
  const t = createTestRunner();
  try {
    for (let i = 0; i < 3; i++) {
      t.llm.script(reply.toolCall("remember", { key: `k${i}`, value: i }));
    }
    await t.startRun(runRequest({ max_turns: 3 }));
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_max_turns");
    assert.match(result.error?.message ?? "", /turn limit of 3/);
    assert.equal(result.artifact, null);
    assert.equal(result.usage.num_turns, 3);
    assert.equal(t.llm.calls.length, 3);
    assert.deepEqual(result.memory, { k0: 0, k1: 1, k2: 2 });
  } finally {
    await t.close();
  }
});

Deno.test("runner run: MAX_TURNS caps a larger max_turns in the request", async () => {
  const t = createTestRunner({ env: { MAX_TURNS: "2" } });
  try {
    for (let i = 0; i < 5; i++) t.llm.script(reply.toolCall("remember", { key: "k", value: i }));
    await t.startRun(runRequest({ max_turns: 20 }));
    const [result] = await t.results();
    assert.equal(result.error?.subtype, "error_max_turns");
    assert.equal(t.llm.calls.length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: the budget gives error_max_budget_usd after the call that crosses it", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(
      reply.toolCall("remember", { key: "a", value: 1 }, { costUsd: 0.3 }),
      reply.toolCall("remember", { key: "b", value: 2 }, { costUsd: 0.3 }),
      reply.submit(ARTIFACT, { costUsd: 0.01 }),
    );
    await t.startRun(runRequest({ budget_usd: 0.5 }));
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_max_budget_usd");
    assert.match(result.error?.message ?? "", /budget of 0\.5 USD/);
    assert.equal(t.llm.calls.length, 2);
    assert.ok(Math.abs(result.usage.cost_usd - 0.6) < 1e-9);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: MAX_RUN_BUDGET_USD caps the request's budget; unknown models cost", async () => {
  const t = createTestRunner({ env: { MAX_RUN_BUDGET_USD: "0.01", MAX_TOKENS_PER_CALL: "100" } });
  try {
    t.llm.script(reply.submit(ARTIFACT));
    await t.startRun(runRequest({ budget_usd: 5, employee: { model: "acme/mystery-1" } }));
    const [result] = await t.results();
    // An unknown model costs the dearest price (15 / 75 USD per million tokens): the prompt's
    // input alone could cost more than 0.01 USD, so the call is never made.
    assert.equal(result.error?.subtype, "error_max_budget_usd");
    assert.match(
      result.error?.message ?? "",
      /budget of 0\.01 USD is left: stopped before calling/,
    );
    assert.equal(t.llm.calls.length, 0);
    assert.equal(result.usage.cost_usd, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a call whose worst case would pass the budget is not made", async () => {
  const t = createTestRunner({ env: { MAX_TOKENS_PER_CALL: "4000" } });
  try {
    t.llm.script(
      reply.toolCall("remember", { key: "a", value: 1 }, { costUsd: 0.1 }),
      reply.submit(ARTIFACT),
    );
    // gpt-4o-mini: 4000 output tokens at 0.6 USD / M are 0.0024 USD at worst; 0.1 is spent
    // after the first call, so with a budget of 0.101 the second call could pass it.
    await t.startRun(runRequest({ budget_usd: 0.101 }));
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_max_budget_usd");
    assert.match(result.error?.message ?? "", /stopped before calling/);
    assert.equal(t.llm.calls.length, 1, "the second call was never made");
    assert.equal(t.llm.pending(), 1);
    assert.ok(result.usage.cost_usd <= 0.101);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: cancel stops an in-flight model call within the poll interval", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.submit(ARTIFACT, { delayMs: 10_000 }));
    const body = runRequest();
    await t.startRun(body);
    await waitFor(() => t.llm.calls.length > 0, { what: "the model call" });
    await t.request(`/runs/${body.run_id}/cancel`, { method: "POST" });
    const [result] = await t.results();
    // The poll aborted the call: it never completed, so no turn was counted.
    assert.equal(result.usage.num_turns, 0);
    assert.ok(!result.run_log.some((entry) => entry.type === "turn"));
    assert.equal(result.status, "failed");
    assert.deepEqual(result.error, { subtype: "cancelled", message: "cancelled on request" });
    assert.equal(result.artifact, null);
    assert.equal(result.run_log.at(-1)?.type, "finish");
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a cancel between turns stops before the next call", async () => {
  const t = createTestRunner({ deps: { cancelPollMs: 60_000 } });
  try {
    let cancel = (): Promise<unknown> => Promise.resolve();
    t.llm.script(
      // The call is answered once the cancel has landed; the poll is off (60 s).
      (_call) => reply.toolCall("remember", { key: "a", value: 1 }, { until: cancel() }),
      reply.submit(ARTIFACT),
    );
    const body = runRequest();
    cancel = () => t.request(`/runs/${body.run_id}/cancel`, { method: "POST" });
    await t.startRun(body);
    const [result] = await t.results();
    assert.equal(result.error?.subtype, "cancelled");
    assert.equal(t.llm.calls.length, 1, "the flag is checked between turns");
    assert.equal(t.llm.pending(), 1);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a missing skill fails the run with a clear message and no model call", async () => {
  const t = createTestRunner();
  try {
    await t.startRun(runRequest({ employee: { skills: ["weekly-report", "no-such-skill"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_during_execution");
    assert.equal(
      result.error?.message,
      'skill "no-such-skill" not found: no no-such-skill/SKILL.md in SKILLS_DIR',
    );
    assert.equal(t.llm.calls.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a text answer is not the work: the model is told to submit", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(
      reply.text("```json\n" + JSON.stringify(ARTIFACT) + "\n```"),
      reply.submit(ARTIFACT),
    );
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    assert.equal(result.artifact?.title, ARTIFACT.title);
    const reminder = t.llm.calls[1].body.messages.at(-1);
    assert.equal(reminder?.role, "user");
    assert.match(reminder?.content ?? "", /submit_artifact/);
    assert.ok(result.run_log.some((e) => e.type === "repair"));
  } finally {
    await t.close();
  }
});

Deno.test("runner run: only text, never a submission, fails the run", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.text("Here is the report."), reply.text(JSON.stringify(ARTIFACT)));
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.subtype, "error_during_execution");
    assert.match(result.error?.message ?? "", /instead of calling submit_artifact/);
    assert.equal(t.llm.calls.length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: an invalid submission is refused back to the model, which submits again", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(
      reply.submit({ kind: "poem", title: "x", payload: "y" }),
      reply.submit({ kind: "report", title: "", payload: "y" }),
      reply.submit({ kind: "slack_message", title: "Hi", payload: "y" }),
      reply.submit({ kind: "report", title: "Fine", payload: "y" }),
    );
    await t.startRun(runRequest({ employee: { allowed_kinds: ["report", "recommendation"] } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    assert.equal(result.artifact?.title, "Fine");
    const refusals = t.llm.calls.slice(1).map((call) => call.body.messages.at(-1)?.content ?? "");
    assert.match(refusals[0], /^error: invalid arguments: kind: /);
    assert.match(refusals[1], /^error: invalid arguments: title: /);
    assert.match(refusals[2], /^error: invalid arguments: kind: .*"report"\|"recommendation"/);
    const tools = result.run_log.filter((e) => e.type === "tool");
    assert.deepEqual(tools.map((e) => e.refused ?? false), [true, true, true, false]);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: post-filter pass and fail", async () => {
  const t = createTestRunner();
  try {
    const filtered = { employee: { post_filter_skill: "brand-voice" } };
    t.llm.script(reply.submit(ARTIFACT), reply.json({ passed: true, reason: null }));
    await t.startRun(runRequest(filtered));
    await t.runner.idle();
    t.llm.script(
      reply.submit(ARTIFACT),
      reply.json({ passed: false, reason: 'shouting: "HUGE WEEK"' }),
    );
    await t.startRun(runRequest(filtered));
    const [pass, fail] = await t.results();
    assert.equal(pass.status, "succeeded");
    assert.deepEqual(pass.post_filter, { passed: true, reason: null });
    assert.equal(fail.status, "succeeded");
    assert.deepEqual(fail.artifact, { ...ARTIFACT, metadata: { unsupported_figures: ["20%"] } });
    assert.deepEqual(fail.post_filter, { passed: false, reason: 'shouting: "HUGE WEEK"' });
    // The filter query carries the skill's rules and the artifact, without tools.
    const check = t.llm.calls[1].body;
    assert.match(check.messages[0].content ?? "", /Brand-voice checker/);
    assert.match(check.messages[1].content ?? "", /Sign-ups rose 20%/);
    assert.equal(check.tools, undefined);
    assert.equal(pass.usage.num_turns, 2);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: an unreadable post-filter answer fails closed after one repair", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(reply.submit(ARTIFACT), reply.text("looks fine"), reply.text("yes"));
    await t.startRun(runRequest({ employee: { post_filter_skill: "brand-voice" } }));
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    assert.equal(result.post_filter?.passed, false);
    assert.equal(t.llm.calls.length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("runner run: bad tool calls are answered with an error the model can read", async () => {
  const t = createTestRunner();
  try {
    t.llm.script(
      reply.toolCall("read_skill_file", {
        skill: "weekly-report",
        path: "../brand-voice/SKILL.md",
      }),
      reply.toolCall("read_skill_file", { skill: "brand-voice", path: "SKILL.md" }),
      reply.toolCall("remember", { key: "recent_rejections", value: [] }),
      reply.toolCall("delete_everything", {}),
      reply.toolCall("remember", "{not json"),
      reply.submit(ARTIFACT),
    );
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.status, "succeeded");
    const answers = t.llm.calls.slice(1).map((call) => call.body.messages.at(-1)?.content);
    assert.deepEqual(answers, [
      'error: path "../brand-voice/SKILL.md" is outside the skill\'s folder',
      'error: "brand-voice" is not one of your skills',
      'error: "recent_rejections" is kept by the service',
      'error: unknown tool "delete_everything"',
      "error: the arguments are not JSON",
    ]);
    assert.deepEqual(result.memory, {});
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a 5xx from the proxy is retried; a lasting one fails the run", async () => {
  const t = createTestRunner();
  try {
    // One run at a time: they share the fake's queue.
    t.llm.script(reply.error(503), reply.submit(ARTIFACT));
    await t.startRun(runRequest());
    await t.runner.idle();
    t.llm.script(reply.error(500), reply.error(502), reply.error(503));
    await t.startRun(runRequest());
    await t.runner.idle();
    t.llm.script(reply.error(400));
    await t.startRun(runRequest());
    const [retried, down, refused] = await t.results();
    assert.equal(retried.status, "succeeded");
    assert.equal(down.status, "failed");
    assert.equal(down.error?.subtype, "error_during_execution");
    assert.match(down.error?.message ?? "", /LLM proxy answered 503/);
    assert.match(refused.error?.message ?? "", /LLM proxy answered 400/);
    assert.equal(t.llm.calls.length, 6);
    assert.deepEqual(t.sleeps, [1000, 1000, 2000], "waits before the retries of model calls");
  } finally {
    await t.close();
  }
});

Deno.test("runner run: a proxy body that is not JSON fails the run", async () => {
  const t = createTestRunner();
  try {
    t.llm.script({ rawBody: "<html>gateway</html>" });
    await t.startRun(runRequest());
    const [result] = await t.results();
    assert.equal(result.error?.subtype, "error_during_execution");
    assert.match(result.error?.message ?? "", /not JSON/);
  } finally {
    await t.close();
  }
});
