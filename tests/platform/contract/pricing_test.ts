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
  PRICES,
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
