/**
 * A client for the OpenAI-compatible chat-completions API of the LLM proxy (LiteLLM):
 * `POST {LLM_BASE_URL}/chat/completions`, with tool calls, token usage and the call's cost.
 *
 * Transient failures (network errors, 429, 5xx) are retried twice, after 1 s and 2 s.
 */
import { llmProxyHeaders, type TokenSource } from "../src/platform/oidc.ts";
import { estimateCostUsd, reportedCostUsd } from "../src/platform/contract/mod.ts";
import type { Sleep } from "./sleep.ts";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
}

export interface ChatResult {
  content: string | null;
  toolCalls: ToolCall[];
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** `proxy` when the proxy reported the cost, `estimate` when the price table computed it. */
  costSource: "proxy" | "estimate";
  durationMs: number;
}

export interface LlmClient {
  chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResult>;
}

/** The model call failed for good (after retries); the message is safe to log and report. */
export class LlmError extends Error {
  override name = "LlmError";
}

export interface LlmClientOptions {
  baseUrl: string;
  apiKey: string;
  /** With `oidc`, the bearer is an identity token and the key goes in `x-litellm-api-key`. */
  authMode?: "oidc";
  tokens?: TokenSource;
  fetch: typeof fetch;
  sleep: Sleep;
  timeoutMs: number;
}

const RETRY_WAITS_MS = [1000, 2000];

export function createLlmClient(options: LlmClientOptions): LlmClient {
  const url = `${options.baseUrl}/chat/completions`;

  const attempt = async (request: ChatRequest, signal: AbortSignal) => {
    const started = performance.now();
    const body: Record<string, unknown> = { model: request.model, messages: request.messages };
    if (request.tools?.length) body.tools = request.tools;
    const res = await options.fetch(url, {
      method: "POST",
      headers: await llmProxyHeaders(options),
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
    });
    const text = await res.text();
    return { res, text, durationMs: Math.round(performance.now() - started) };
  };

  return {
    async chat(request, signal) {
      for (let i = 0;; i++) {
        let failure: string;
        try {
          const { res, text, durationMs } = await attempt(request, signal);
          if (res.ok) return parseResponse(request.model, res.headers, text, durationMs);
          failure = `LLM proxy answered ${res.status}: ${text.slice(0, 200)}`;
          if (res.status !== 429 && res.status < 500) throw new LlmError(failure);
        } catch (err) {
          if (err instanceof LlmError || signal.aborted) throw err;
          failure = `LLM proxy unreachable: ${(err as Error).message}`;
        }
        if (i >= RETRY_WAITS_MS.length) throw new LlmError(failure);
        await options.sleep(RETRY_WAITS_MS[i], signal);
      }
    },
  };
}

function parseResponse(
  model: string,
  headers: Headers,
  text: string,
  durationMs: number,
): ChatResult {
  let data: {
    choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  try {
    data = JSON.parse(text);
  } catch {
    throw new LlmError("LLM proxy answered with a body that is not JSON");
  }
  const message = data.choices?.[0]?.message;
  if (!message) throw new LlmError("LLM proxy answered without choices[0].message");
  const inputTokens = Number(data.usage?.prompt_tokens) || 0;
  const outputTokens = Number(data.usage?.completion_tokens) || 0;
  const reported = reportedCostUsd(headers);
  return {
    content: typeof message.content === "string" ? message.content : null,
    toolCalls: Array.isArray(message.tool_calls) ? message.tool_calls : [],
    inputTokens,
    outputTokens,
    costUsd: reported ?? estimateCostUsd(model, { input: inputTokens, output: outputTokens }),
    costSource: reported === undefined ? "estimate" : "proxy",
    durationMs,
  };
}
