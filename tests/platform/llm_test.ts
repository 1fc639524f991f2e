/** The LLM client (the service's and the runner's) against the fake OpenAI-compatible proxy. */
import assert from "node:assert/strict";
import { z } from "zod";
import { createLlmClient, LlmError } from "../../src/platform/llm.ts";
import { estimateCostUsd } from "../../src/platform/contract/mod.ts";
import { reply, startFakeLlm } from "../support/fake-llm.ts";

const schema = z.object({ greeting: z.string().min(1) });
const ask = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };

async function withLlm(
  fn: (llm: ReturnType<typeof startFakeLlm>, client: ReturnType<typeof createLlmClient>) => unknown,
  options: { timeoutMs?: number } = {},
) {
  const llm = startFakeLlm();
  const client = createLlmClient({
    baseUrl: `${llm.url}/v1/`,
    apiKey: "sk-test",
    fetch,
    retryDelayMs: 10,
    ...options,
  });
  try {
    await fn(llm, client);
  } finally {
    await llm.close();
  }
}

Deno.test("llm: JSON-schema request, bearer key, validated value, usage and proxy cost", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.json({ greeting: "hello" }, { costUsd: 0.0123 }));
    const result = await client.chatJson({ ...ask, temperature: 0.2, maxTokens: 300 }, schema);
    assert.deepEqual(result.value, { greeting: "hello" });
    assert.equal(result.usage.inputTokens, 100);
    assert.equal(result.usage.outputTokens, 50);
    assert.equal(result.usage.costUsd, 0.0123);
    assert.equal(result.usage.costSource, "proxy");
    assert.equal(result.usage.attempts, 1);
    const call = llm.calls[0];
    assert.equal(call.path, "/v1/chat/completions");
    assert.equal(call.headers.get("authorization"), "Bearer sk-test");
    assert.equal(call.body.model, "gpt-4o-mini");
    assert.equal(call.body.temperature, 0.2);
    assert.equal(call.body.max_tokens, 300);
    const format = call.body.response_format as {
      type: string;
      json_schema: { schema: { properties: Record<string, unknown> } };
    };
    assert.equal(format.type, "json_schema");
    assert.ok(format.json_schema.schema.properties.greeting);
  });
});

Deno.test("llm: JSON mode, fenced JSON, and the cost estimated from tokens without the header", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.text('```json\n{"greeting": "yo"}\n```', {
      usage: { prompt_tokens: 1_000_000, completion_tokens: 0 },
    }));
    const result = await client.chatJson({ ...ask, responseFormat: "json_object" }, schema);
    assert.equal(result.value.greeting, "yo");
    assert.equal(result.usage.costSource, "estimate");
    assert.equal(result.usage.costUsd, 0.15);
    assert.deepEqual(llm.calls[0].body.response_format, { type: "json_object" });
  });
  // An unknown model is never free.
  const tokens = { input: 1000, output: 1000 };
  assert.ok(estimateCostUsd("acme/mystery-1", tokens) > estimateCostUsd("gpt-4o", tokens));
});

Deno.test("llm: one retry on 5xx and on 429, then success", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.error(503), reply.text("fine"));
    const first = await client.chat(ask);
    assert.equal(first.content, "fine");
    assert.equal(first.usage.attempts, 2);
    llm.script(reply.error(429, { headers: { "retry-after": "0" } }), reply.text("later"));
    assert.equal((await client.chat(ask)).content, "later");
    assert.equal(llm.calls.length, 4);
  });
});

Deno.test("llm: two failures give up after exactly one retry; a 400 is not retried", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.error(500), reply.error(502));
    await assert.rejects(client.chat(ask), (err) => {
      assert.ok(err instanceof LlmError);
      assert.equal(err.kind, "unavailable");
      assert.match(err.message, /502/);
      return true;
    });
    assert.equal(llm.calls.length, 2);
    llm.script(reply.error(400), reply.text("never asked"));
    await assert.rejects(client.chat(ask), (err) => (err as LlmError).kind === "rejected");
    assert.equal(llm.calls.length, 3);
    assert.equal(llm.pending(), 1);
  });
});

Deno.test("llm: a proxy that does not answer in time is a timeout (after one retry)", async () => {
  await withLlm(async (llm, client) => {
    // The proxy would answer after a minute (closing the fake cuts the wait short).
    llm.script(reply.text("slow", { delayMs: 60_000 }), reply.text("slow", { delayMs: 60_000 }));
    const started = performance.now();
    await assert.rejects(client.chat(ask), (err) => (err as LlmError).kind === "timeout");
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 10_000, `gave up after ${Math.round(elapsed)} ms, not at the answer`);
    assert.equal(llm.calls.length, 2);
  }, { timeoutMs: 150 });
});

Deno.test("llm: an unreachable proxy is unavailable", async () => {
  const llm = startFakeLlm();
  const url = llm.url;
  await llm.close();
  const client = createLlmClient({ baseUrl: url, fetch, retryDelayMs: 1 });
  await assert.rejects(client.chat(ask), (err) => (err as LlmError).kind === "unavailable");
});

Deno.test("llm: an answer that is not a completion body is unavailable", async () => {
  await withLlm(async (llm, client) => {
    llm.script({ rawBody: "not json" });
    await assert.rejects(client.chat(ask), (err) => (err as LlmError).kind === "unavailable");
    llm.script({ rawBody: '{"choices": []}' });
    await assert.rejects(client.chat(ask), (err) => (err as LlmError).kind === "unavailable");
  });
});

Deno.test("llm: invalid output is asked for once more with the problem, usage summed", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.text("no json here"), reply.json({ greeting: "ok" }));
    const result = await client.chatJson(ask, schema);
    assert.equal(result.value.greeting, "ok");
    assert.equal(result.usage.inputTokens, 200);
    const repair = llm.calls[1].body.messages;
    assert.equal(repair.length, 3);
    assert.equal(repair[1].role, "assistant");
    assert.match(repair[2].content!, /not valid JSON/);

    llm.script(reply.json({ greeting: "" }), reply.json({ wrong: true }), reply.json({}));
    await assert.rejects(client.chatJson(ask, schema), (err) => {
      assert.ok(err instanceof LlmError);
      assert.equal(err.kind, "invalid_output");
      assert.equal(err.usage?.attempts, 2);
      return true;
    });
    assert.equal(llm.calls.length, 4);
    assert.equal(llm.pending(), 1);
  });
});

const remember = {
  name: "remember",
  description: "Store a fact for later.",
  parameters: {
    type: "object",
    properties: { key: { type: "string" }, value: {} },
    required: ["key", "value"],
  },
};

Deno.test("llm: tools go out as functions and the model's tool calls come back", async () => {
  await withLlm(async (llm, client) => {
    llm.script({
      content: null,
      toolCalls: [{ id: "call_1", name: "remember", arguments: { key: "tone", value: "calm" } }],
      costUsd: 0.001,
    });
    const result = await client.chat({ ...ask, tools: [remember], toolChoice: "required" });
    assert.deepEqual(result.toolCalls, [{
      id: "call_1",
      name: "remember",
      arguments: '{"key":"tone","value":"calm"}',
    }]);
    assert.equal(result.content, "");
    assert.equal(result.finishReason, "tool_calls");
    assert.equal(result.usage.costUsd, 0.001);
    assert.deepEqual(llm.calls[0].body.tools, [{ type: "function", function: remember }]);
    assert.equal(llm.calls[0].body.tool_choice, "required");

    llm.script(reply.text("no tools needed"));
    const plain = await client.chat({ ...ask, toolChoice: "none" });
    assert.deepEqual(plain.toolCalls, []);
    assert.equal(plain.finishReason, "stop");
    assert.equal("tools" in llm.calls[1].body, false);
    assert.equal("tool_choice" in llm.calls[1].body, false, "no tool_choice without tools");
  });
});

Deno.test("llm: an assistant message with tool calls and a tool result in the wire format", async () => {
  await withLlm(async (llm, client) => {
    llm.script(reply.text("done"));
    await client.chat({
      model: "gpt-4o-mini",
      tools: [remember],
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Remember the tone." },
        {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "call_7", name: "remember", arguments: '{"key":"tone"}' }],
        },
        { role: "tool", toolCallId: "call_7", content: 'remembered "tone"' },
        { role: "assistant", content: "Noted." },
      ],
    });
    assert.deepEqual(llm.calls[0].body.messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Remember the tone." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_7",
          type: "function",
          function: { name: "remember", arguments: '{"key":"tone"}' },
        }],
      },
      { role: "tool", tool_call_id: "call_7", content: 'remembered "tone"' },
      { role: "assistant", content: "Noted." },
    ]);
  });
});

Deno.test("llm: malformed tool calls: a nameless one is dropped, a missing id is made up", async () => {
  await withLlm(async (llm, client) => {
    const completion = (toolCalls: unknown, finishReason?: unknown) =>
      JSON.stringify({
        model: "gpt-4o-mini",
        choices: [{
          message: { role: "assistant", content: null, tool_calls: toolCalls },
          finish_reason: finishReason,
        }],
      });
    llm.script({
      rawBody: completion([
        { type: "function", function: { name: "remember", arguments: '{"key":"a"}' } },
        { id: "call_no_name", type: "function", function: { arguments: "{}" } },
        { id: "call_no_function", type: "function" },
        "not a call",
        { id: "call_object_args", function: { name: "remember", arguments: { key: "b" } } },
        { id: "call_no_args", function: { name: "remember" } },
      ], 42),
    });
    const result = await client.chat(ask);
    assert.deepEqual(result.toolCalls.map((call) => [call.name, call.arguments]), [
      ["remember", '{"key":"a"}'],
      ["remember", '{"key":"b"}'],
      ["remember", ""],
    ]);
    assert.match(result.toolCalls[0].id, /^call_./);
    assert.deepEqual(result.toolCalls.slice(1).map((call) => call.id), [
      "call_object_args",
      "call_no_args",
    ]);
    assert.equal(result.finishReason, null, "a finish_reason that is not a string");

    llm.script({ rawBody: completion("nonsense") }, { rawBody: completion(undefined) });
    assert.deepEqual((await client.chat(ask)).toolCalls, []);
    assert.deepEqual((await client.chat(ask)).toolCalls, []);
  });
});

/** A client whose waits between attempts are recorded and end at once (or never, when held). */
function recordingClient(
  llm: ReturnType<typeof startFakeLlm>,
  options: { retryWaitsMs?: number[]; holdWaits?: boolean } = {},
) {
  const waits: number[] = [];
  const waiting = Promise.withResolvers<void>();
  const client = createLlmClient({
    baseUrl: `${llm.url}/v1`,
    apiKey: "sk-test",
    fetch,
    retryWaitsMs: options.retryWaitsMs ?? [1000, 2000],
    sleep: (ms) => {
      waits.push(ms);
      waiting.resolve();
      return options.holdWaits ? new Promise(() => {}) : Promise.resolve();
    },
  });
  return { client, waits, waiting: waiting.promise };
}

Deno.test("llm: retryWaitsMs retries once per entry, a Retry-After replacing that wait", async () => {
  await withLlm(async (llm) => {
    const { client, waits } = recordingClient(llm);
    llm.script(
      reply.error(429, { headers: { "retry-after": "3" } }),
      reply.error(503),
      reply.text("third time"),
    );
    const result = await client.chat(ask);
    assert.equal(result.content, "third time");
    assert.equal(result.usage.attempts, 3);
    assert.deepEqual(waits, [3000, 2000]);

    waits.length = 0;
    llm.script(
      reply.error(500, { headers: { "retry-after": "60" } }),
      reply.error(502),
      reply.error(503),
      reply.text("never asked"),
    );
    await assert.rejects(client.chat(ask), (err) => {
      assert.ok(err instanceof LlmError);
      assert.equal(err.kind, "unavailable");
      assert.match(err.message, /503/);
      return true;
    });
    assert.deepEqual(waits, [1000, 2000], "a Retry-After over the limit waits as listed");
    assert.equal(llm.calls.length, 6);
    assert.equal(llm.pending(), 1);
  });
});

Deno.test("llm: an abort during a retry wait rejects at once, with no further attempt", async () => {
  await withLlm(async (llm) => {
    // The wait never ends by itself: only the abort can end the call.
    const { client, waits, waiting } = recordingClient(llm, { holdWaits: true });
    llm.script(reply.error(503), reply.text("never asked"));
    const controller = new AbortController();
    const call = client.chat({ ...ask, signal: controller.signal });
    await waiting;
    const reason = new Error("run cancelled");
    controller.abort(reason);
    await assert.rejects(call, (err) => err === reason);
    assert.deepEqual(waits, [1000]);
    assert.equal(llm.calls.length, 1);
    assert.equal(llm.pending(), 1);
  });
});

Deno.test("llm: an abort during a call in flight rejects at once, with no further attempt", async () => {
  await withLlm(async (llm) => {
    const { client, waits } = recordingClient(llm);
    const arrived = Promise.withResolvers<void>();
    const never = new Promise(() => {});
    llm.script(() => {
      arrived.resolve();
      return reply.text("too late", { until: never });
    }, reply.text("never asked"));
    const controller = new AbortController();
    const call = client.chat({ ...ask, signal: controller.signal });
    await arrived.promise;
    const reason = new Error("run cancelled");
    controller.abort(reason);
    await assert.rejects(call, (err) => err === reason);
    assert.deepEqual(waits, []);
    assert.equal(llm.calls.length, 1);
    assert.equal(llm.pending(), 1);

    // A signal aborted beforehand: no call at all.
    await assert.rejects(client.chat({ ...ask, signal: controller.signal }), (e) => e === reason);
    assert.equal(llm.calls.length, 1);
  });
});
