/**
 * What a model call cost, the same for the service and the runner (DESIGN 3.2). The LLM proxy
 * (LiteLLM) reports it in `x-litellm-response-cost`; when that header is missing the cost is
 * estimated from token usage and this table. Before a call, {@link worstCaseCostUsd} bounds what it
 * can cost, with {@link estimateInputTokens} when the input has not been counted yet.
 *
 * @example
 * ```ts
 * estimateCostUsd("gpt-4o-mini", { input: 1_000_000, output: 0 }); // 0.15
 * ```
 */

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/**
 * List prices of common models (USD per million tokens). Keys match the model name after any
 * `provider/` prefix, by exact name first and then by the longest key the name starts with, so
 * `claude-sonnet-4-20250514` uses `claude-sonnet-4`.
 */
export const PRICES: Record<string, Price> = {
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "o3": { input: 2, output: 8 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-5-sonnet": { input: 3, output: 15 },
  "claude-3-7-sonnet": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-haiku-4": { input: 1, output: 5 },
  "claude-opus-4": { input: 15, output: 75 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
};

/**
 * Price of a model the table does not know: as dear as the dearest model in it, so an unknown
 * model can only make the budget stop a run early, never let it overspend.
 */
export const UNKNOWN_MODEL_PRICE: Price = { input: 15, output: 75 };

export function priceOf(model: string): Price {
  const name = model.toLowerCase().replace(/^.*\//, "");
  if (PRICES[name]) return PRICES[name];
  const key = Object.keys(PRICES)
    .filter((candidate) => name.startsWith(candidate))
    .sort((a, b) => b.length - a.length)[0];
  return key ? PRICES[key] : UNKNOWN_MODEL_PRICE;
}

export function estimateCostUsd(model: string, tokens: { input: number; output: number }): number {
  const price = priceOf(model);
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}

/** The proxy's reported cost, when the header holds a finite non-negative number. */
export function reportedCostUsd(headers: Headers): number | undefined {
  const raw = headers.get("x-litellm-response-cost");
  if (raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The most a call can cost: all of `input` plus the longest answer allowed, at the table's price. */
export function worstCaseCostUsd(
  model: string,
  tokens: { input: number; maxOutput: number },
): number {
  return estimateCostUsd(model, { input: tokens.input, output: tokens.maxOutput });
}

/**
 * A high guess of the input tokens of `messages`, without a tokenizer: one token per 3 bytes of
 * their JSON in UTF-8. Tokenizers average about 4 characters a token on English and code, so the
 * guess errs high there; a character of another script takes 2 to 4 bytes, so it counts as about
 * one token. The JSON keys and quotes stand in for the per-message overhead the model adds.
 */
export function estimateInputTokens(messages: unknown[]): number {
  return Math.ceil(new TextEncoder().encode(JSON.stringify(messages)).length / 3);
}
