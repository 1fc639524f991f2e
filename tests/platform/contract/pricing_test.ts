/**
 * The service and the runner charge a model call the same: both clients talk to one fake LLM
 * proxy that reports usage but no `x-litellm-response-cost`, for every model of the price table
 * (with and without a `provider/` prefix and a dated suffix) and for an unknown one.
 */
import assert from "node:assert/strict";
import { createLlmClient as serviceClient } from "../../../src/platform/llm.ts";
import { createLlmClient as runnerClient } from "../../../runner/llm.ts";
import {
  estimateCostUsd,
  priceOf,
  PRICES,
  reportedCostUsd,
  UNKNOWN_MODEL_PRICE,
} from "../../../src/platform/contract/mod.ts";
import { reply, startFakeLlm } from "../../support/fake-llm.ts";

const USAGE = { prompt_tokens: 123_456, completion_tokens: 7_890 };

Deno.test("pricing: the service and the runner charge every known model the same", async () => {
  const llm = startFakeLlm();
  llm.fallback = reply.text("ok", { usage: USAGE });
  const service = serviceClient({ baseUrl: `${llm.url}/v1`, apiKey: "k", fetch });
  const runner = runnerClient({
    baseUrl: `${llm.url}/v1`,
    apiKey: "k",
    fetch,
    sleep: () => Promise.resolve(),
    timeoutMs: 5_000,
  });
  try {
    const models = Object.keys(PRICES).flatMap((m) => [m, `openai/${m}`, `${m}-20250514`]);
    models.push("acme/mystery-1");
    for (const model of models) {
      const charged = await service.chat({ model, messages: [{ role: "user", content: "hi" }] });
      const spent = await runner.chat(
        { model, messages: [{ role: "user", content: "hi" }] },
        AbortSignal.timeout(5_000),
      );
      const expected = estimateCostUsd(model, {
        input: USAGE.prompt_tokens,
        output: USAGE.completion_tokens,
      });
      assert.equal(charged.usage.costUsd, expected, `service price of ${model}`);
      assert.equal(spent.costUsd, expected, `runner price of ${model}`);
      assert.equal(charged.usage.costSource, "estimate");
      assert.equal(spent.costSource, "estimate");
    }
  } finally {
    await llm.close();
  }
});

Deno.test("pricing: the models that once drifted are charged their list price", () => {
  const million = { input: 1_000_000, output: 1_000_000 };
  for (const model of ["o3", "o4-mini", "claude-opus-4", "gemini-2.5-pro"]) {
    assert.equal(estimateCostUsd(model, million), PRICES[model].input + PRICES[model].output);
  }
  assert.equal(
    estimateCostUsd("acme/mystery-1", million),
    UNKNOWN_MODEL_PRICE.input + UNKNOWN_MODEL_PRICE.output,
  );
});

Deno.test("pricing: exact, provider-prefixed, dated and unknown models", () => {
  assert.deepEqual(priceOf("gpt-4o"), { input: 2.5, output: 10 });
  assert.deepEqual(priceOf("gpt-4o-mini"), { input: 0.15, output: 0.6 });
  assert.deepEqual(priceOf("openai/gpt-4o-mini"), { input: 0.15, output: 0.6 });
  assert.deepEqual(priceOf("claude-sonnet-4-20250514"), { input: 3, output: 15 });
  assert.deepEqual(priceOf("llama-3-70b"), UNKNOWN_MODEL_PRICE);
  assert.ok(UNKNOWN_MODEL_PRICE.input > 0 && UNKNOWN_MODEL_PRICE.output > 0);
  assert.equal(estimateCostUsd("gpt-4o", { input: 1_000_000, output: 1_000_000 }), 12.5);
});

Deno.test("pricing: the proxy's cost header is read when it is a number", () => {
  const h = (value?: string) =>
    new Headers(value === undefined ? {} : { "x-litellm-response-cost": value });
  assert.equal(reportedCostUsd(h("0.0042")), 0.0042);
  assert.equal(reportedCostUsd(h("0")), 0);
  assert.equal(reportedCostUsd(h()), undefined);
  assert.equal(reportedCostUsd(h("")), undefined);
  assert.equal(reportedCostUsd(h("n/a")), undefined);
  assert.equal(reportedCostUsd(h("-1")), undefined);
});
