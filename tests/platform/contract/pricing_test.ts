/**
 * The price table, and the cost rule of the LLM client both programs use: against a fake LLM
 * proxy, the `x-litellm-response-cost` header when it is sent, else the call's tokens times the
 * table, for every model of the table (with and without a `provider/` prefix and a dated suffix)
 * and for an unknown one.
 */
import assert from "node:assert/strict";
import { createLlmClient } from "../../../src/platform/llm.ts";
import {
  estimateCostUsd,
  estimateInputTokens,
  priceOf,
  PRICES,
  reportedCostUsd,
  UNKNOWN_MODEL_PRICE,
  worstCaseCostUsd,
} from "../../../src/platform/contract/mod.ts";
import { reply, startFakeLlm } from "../../support/fake-llm.ts";

const USAGE = { prompt_tokens: 123_456, completion_tokens: 7_890 };

Deno.test("pricing: a call costs the proxy's header, else its tokens at the table's price", async () => {
  const llm = startFakeLlm();
  const client = createLlmClient({ baseUrl: `${llm.url}/v1`, apiKey: "k", fetch });
  const ask = (model: string) =>
    client.chat({ model, messages: [{ role: "user", content: "hi" }] });
  try {
    const models = Object.keys(PRICES).flatMap((m) => [m, `openai/${m}`, `${m}-20250514`]);
    models.push("acme/mystery-1");
    for (const model of models) {
      llm.script(reply.text("ok", { usage: USAGE }), reply.text("ok", { costUsd: 0.0042 }));
      const estimated = await ask(model);
      const expected = estimateCostUsd(model, {
        input: USAGE.prompt_tokens,
        output: USAGE.completion_tokens,
      });
      assert.ok(expected > 0, `${model} is never free`);
      assert.equal(estimated.usage.costUsd, expected, `price of ${model}`);
      assert.equal(estimated.usage.costSource, "estimate");
      const reported = await ask(model);
      assert.equal(reported.usage.costUsd, 0.0042, `reported cost of ${model}`);
      assert.equal(reported.usage.costSource, "proxy");
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

Deno.test("pricing: the worst case of a call is its input and the longest answer allowed", () => {
  assert.equal(worstCaseCostUsd("gpt-4o", { input: 1_000_000, maxOutput: 1_000_000 }), 12.5);
  assert.equal(worstCaseCostUsd("openai/gpt-4o-mini", { input: 1_000_000, maxOutput: 0 }), 0.15);
  assert.equal(
    worstCaseCostUsd("acme/mystery-1", { input: 0, maxOutput: 1_000_000 }),
    UNKNOWN_MODEL_PRICE.output,
  );
  assert.equal(worstCaseCostUsd("gpt-4o", { input: 0, maxOutput: 0 }), 0);
});

Deno.test("pricing: the input estimate errs high", () => {
  const english = [
    { role: "system", content: "You write the weekly progress report of a goal-tracking app." },
    { role: "user", content: "Sign-ups: 120 (last week 100). Keep it short and plain." },
  ];
  // At about 4 characters a token, the English text alone is under 30 tokens.
  const textTokens = Math.ceil(english.map((m) => m.content).join("").length / 4);
  assert.ok(estimateInputTokens(english) > textTokens);
  assert.equal(estimateInputTokens(english), Math.ceil(JSON.stringify(english).length / 3));
  // A character of another script is at least one token.
  const chinese = "每周进度报告".repeat(10);
  assert.ok(estimateInputTokens([{ role: "user", content: chinese }]) >= chinese.length);
  assert.equal(estimateInputTokens([]), 1);
});
