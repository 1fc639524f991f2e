/** The service's LLM client against the fake OpenAI-compatible proxy. */
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
