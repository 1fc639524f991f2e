/**
 * The client for the OpenAI-compatible LLM proxy (LiteLLM, DESIGN 3.2) of both programs, the
 * service and the agent runner: `POST {LLM_BASE_URL}/chat/completions` with
 * `Authorization: Bearer {LLM_API_KEY}` (or an OIDC identity token, `oidc.ts`).
 *
 * - Structured output: `response_format` JSON schema (from a zod schema) or JSON mode; the answer
 *   is parsed and validated with zod, and an invalid answer is asked for once more (with the
 *   validation problem) before {@link LlmError} `invalid_output`.
 * - Tools: the request offers {@link ToolDefinition}s, the result carries the {@link ToolCall}s
 *   the model made, and the conversation sends their results back as `tool` messages.
 * - Each HTTP attempt has a timeout; a 429, a 5xx, a network failure or a timeout is retried once
 *   per entry of `retryWaitsMs` after that wait (a `Retry-After` of a few seconds replaces it).
 * - `request.signal` cancels: the call in flight and any wait stop at once, and `chat` rejects
 *   with the signal's reason.
 * - Usage and cost are captured per call: the proxy's `x-litellm-response-cost` when present,
 *   else tokens times the shared price table (`contract/pricing.ts`; an unknown model costs the
 *   dearest price, never zero).
 *
 * @example
 * ```ts
 * const llm = createLlmClient({ baseUrl, apiKey, fetch });
 * const { value, usage } = await llm.chatJson(
 *   { model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hi as JSON" }] },
 *   z.object({ greeting: z.string() }),
 * );
 * ```
 */
import { z } from "zod";
import { estimateCostUsd, reportedCostUsd } from "./contract/pricing.ts";
import { type LlmProxyAuth, llmProxyHeaders } from "./oidc.ts";

/** A tool call the model made; `arguments` is the JSON text it sent, unparsed. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type LlmMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

/** A tool offered to the model; `parameters` is the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ResponseFormat = "text" | "json_object" | "json_schema";

export interface ChatRequest {
  model: string;
  messages: LlmMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Default `text`; {@link LlmClient.chatJson} picks `json_schema` unless told `json_object`. */
  responseFormat?: ResponseFormat;
  /** Name and JSON schema sent with `json_schema`. */
  schema?: { name: string; schema: Record<string, unknown> };
  tools?: ToolDefinition[];
  /** Sent only with `tools`. */
  toolChoice?: "auto" | "required" | "none";
  /** Aborting it stops the call at once; `chat` then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** `proxy` when every call's cost came from the proxy header. */
  costSource: "proxy" | "estimate";
  /** HTTP attempts made (retries included). */
  attempts: number;
  /** From the first attempt to the answer, waits between retries included. */
  durationMs: number;
}

export interface ChatResult {
  /** "" when the model sent no text (for example with tool calls only). */
  content: string;
  /** Empty when the model called no tool. */
  toolCalls: ToolCall[];
  /** `stop`, `tool_calls`, `length`...; null when the proxy did not say. */
  finishReason: string | null;
  model: string;
  usage: LlmUsage;
}

export interface JsonResult<T> {
  value: T;
  model: string;
  /** Summed over the calls made (an invalid answer costs a second call). */
  usage: LlmUsage;
}

export type LlmErrorKind = "unavailable" | "timeout" | "rejected" | "invalid_output";

/** The model call failed for good; `message` is safe to log, not meant for end users. */
export class LlmError extends Error {
  override name = "LlmError";
  constructor(readonly kind: LlmErrorKind, message: string, readonly usage?: LlmUsage) {
    super(message);
  }
}

export interface LlmClient {
  chat(request: ChatRequest): Promise<ChatResult>;
  /** Asks for JSON, validates it with `schema`, and asks once more when it does not validate. */
  chatJson<S extends z.ZodType>(
    request: ChatRequest,
    schema: S,
  ): Promise<JsonResult<z.output<S>>>;
}

export interface LlmClientOptions extends LlmProxyAuth {
  fetch: typeof fetch;
  /** Per HTTP attempt; default 20 s. */
  timeoutMs?: number;
  /** The wait before each retry, one retry per entry; default `[retryDelayMs]`. */
  retryWaitsMs?: number[];
  /** Wait before the one retry when `retryWaitsMs` is not given; default 500 ms. */
  retryDelayMs?: number;
  /** Largest `Retry-After` honoured (longer ones wait as listed); default 5 s. */
  maxRetryAfterMs?: number;
  /** Waits between attempts; it should end early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  metrics?: LlmMetrics;
}

/** Times every call and counts its spend (`src/platform/metrics.ts`). */
export interface LlmMetrics {
  llmCall(model: string, outcome: string, seconds: number): void;
  aiSpend(employee: string, usd: number): void;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** `work`, or a rejection with the signal's reason as soon as it aborts, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function retryAfterMs(res: Response): number | undefined {
  const raw = res.headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: a.costUsd + b.costUsd,
    costSource: a.costSource === "proxy" && b.costSource === "proxy" ? "proxy" : "estimate",
    attempts: a.attempts + b.attempts,
    durationMs: a.durationMs + b.durationMs,
  };
}

/** Strips a Markdown code fence some models wrap JSON in. */
function unfence(text: string): string {
  const match = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return match ? match[1] : text;
}

export function createLlmClient(options: LlmClientOptions): LlmClient {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const retryWaitsMs = options.retryWaitsMs ?? [options.retryDelayMs ?? 500];
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 5000;
  const sleep = options.sleep ?? defaultSleep;

  async function attempt(request: ChatRequest) {
    const headers = await llmProxyHeaders(options);
    const signals = [AbortSignal.timeout(timeoutMs)];
    if (request.signal) signals.push(request.signal);
    const res = await options.fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(completionRequestBody(request)),
      signal: AbortSignal.any(signals),
    });
    return { res, text: await res.text() };
  }

  async function chat(request: ChatRequest): Promise<ChatResult> {
    if (!options.metrics) return await chatOnce(request);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await chatOnce(request);
      options.metrics.llmCall(request.model, "ok", seconds());
      options.metrics.aiSpend("service", result.usage.costUsd);
      return result;
    } catch (err) {
      options.metrics.llmCall(
        request.model,
        err instanceof LlmError ? err.kind : "error",
        seconds(),
      );
      throw err;
    }
  }

  async function chatOnce(request: ChatRequest): Promise<ChatResult> {
    const { signal } = request;
    signal?.throwIfAborted();
    const started = performance.now();
    for (let attempts = 1;; attempts++) {
      let failure: LlmError;
      let hintedWait: number | undefined;
      try {
        const { res, text } = await untilAborted(attempt(request), signal);
        if (res.ok) {
          return priced(request.model, res.headers, text, {
            attempts,
            durationMs: Math.round(performance.now() - started),
          });
        }
        const detail = `LLM proxy answered ${res.status}: ${text.slice(0, 200)}`;
        if (res.status !== 429 && res.status < 500) throw new LlmError("rejected", detail);
        failure = new LlmError("unavailable", detail);
        hintedWait = retryAfterMs(res);
      } catch (err) {
        if (err instanceof LlmError) throw err;
        if (signal?.aborted) throw signal.reason;
        const timedOut = (err as Error)?.name === "TimeoutError";
        failure = timedOut
          ? new LlmError("timeout", `LLM proxy did not answer within ${timeoutMs} ms`)
          : new LlmError("unavailable", `LLM proxy unreachable: ${(err as Error)?.message}`);
      }
      if (attempts > retryWaitsMs.length) throw failure;
      const wait = hintedWait !== undefined && hintedWait <= maxRetryAfterMs
        ? hintedWait
        : retryWaitsMs[attempts - 1];
      await untilAborted(sleep(wait, signal), signal);
    }
  }

  async function chatJson<S extends z.ZodType>(
    request: ChatRequest,
    schema: S,
  ): Promise<JsonResult<z.output<S>>> {
    const format = request.responseFormat === "json_object" ? "json_object" : "json_schema";
    const first: ChatRequest = {
      ...request,
      responseFormat: format,
      schema: request.schema ??
        { name: "answer", schema: z.toJSONSchema(schema) as Record<string, unknown> },
    };
    let messages = request.messages;
    let usage: LlmUsage | undefined;
    let problem = "";
    for (let round = 1; round <= 2; round++) {
      const result = await chat({ ...first, messages });
      usage = usage ? addUsage(usage, result.usage) : result.usage;
      let parsed: unknown;
      try {
        parsed = JSON.parse(unfence(result.content));
      } catch {
        problem = "the answer was not valid JSON";
        messages = repair(request.messages, result.content, problem);
        continue;
      }
      const checked = schema.safeParse(parsed);
      if (checked.success) return { value: checked.data, model: result.model, usage };
      problem = checked.error.issues.slice(0, 5)
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      messages = repair(request.messages, result.content, problem);
    }
    throw new LlmError("invalid_output", `LLM answer failed validation twice: ${problem}`, usage);
  }

  return { chat, chatJson };
}

function repair(original: LlmMessage[], answer: string, problem: string): LlmMessage[] {
  return [
    ...original,
    { role: "assistant", content: answer.slice(0, 4000) },
    {
      role: "user",
      content:
        `Your answer did not match the required JSON schema (${problem}). Answer again with only JSON that matches it.`,
    },
  ];
}

// The OpenAI chat-completions wire format.

/** What one completion said, before its cost is worked out. */
interface Completion {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  /** The model that answered, when the proxy named it. */
  model?: string;
  inputTokens: number;
  outputTokens: number;
}

function completionRequestBody(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: request.messages.map(wireMessage),
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.responseFormat === "json_object") body.response_format = { type: "json_object" };
  if (request.responseFormat === "json_schema" && request.schema) {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: request.schema.name, schema: request.schema.schema, strict: true },
    };
  }
  if (request.tools?.length) {
    body.tools = request.tools.map(({ name, description, parameters }) => ({
      type: "function",
      function: { name, description, parameters },
    }));
    // OpenAI refuses a tool_choice without tools.
    if (request.toolChoice) body.tool_choice = request.toolChoice;
  }
  return body;
}

function wireMessage(message: LlmMessage): Record<string, unknown> {
  switch (message.role) {
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant":
      if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

const completionBody = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({
    message: z.object({
      content: z.string().nullable().optional(),
      tool_calls: z.unknown().optional(),
    }),
    finish_reason: z.string().nullable().optional().catch(null),
  })).min(1),
  usage: z.object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
  }).optional(),
});

/** The completion in `text`, or the reason it is not one. */
function parseCompletion(text: string): Completion | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: "LLM proxy answered with a body that is not JSON" };
  }
  const parsed = completionBody.safeParse(json);
  if (!parsed.success) return { problem: "LLM proxy answered without choices[0].message" };
  const data = parsed.data;
  const choice = data.choices[0];
  return {
    content: choice.message.content ?? "",
    toolCalls: toolCallsOf(choice.message.tool_calls),
    finishReason: choice.finish_reason ?? null,
    model: data.model,
    inputTokens: data.usage?.prompt_tokens ?? 0,
    outputTokens: data.usage?.completion_tokens ?? 0,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The usable tool calls of a message: one without a function name is dropped. */
function toolCallsOf(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item): ToolCall[] => {
    if (!isRecord(item) || !isRecord(item.function)) return [];
    const { name, arguments: args } = item.function;
    if (typeof name !== "string" || name === "") return [];
    const id = typeof item.id === "string" && item.id !== ""
      ? item.id
      : `call_${crypto.randomUUID()}`;
    return [{ id, name, arguments: argumentsText(args) }];
  });
}

/** Arguments are JSON text on the wire; some proxies send the object itself, or nothing. */
function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return args === undefined || args === null ? "" : JSON.stringify(args);
}

/** The completion in the answer's body, with its usage and cost. */
function priced(
  model: string,
  headers: Headers,
  text: string,
  meta: { attempts: number; durationMs: number },
): ChatResult {
  const completion = parseCompletion(text);
  if ("problem" in completion) throw new LlmError("unavailable", completion.problem);
  const { inputTokens, outputTokens } = completion;
  const reported = reportedCostUsd(headers);
  return {
    content: completion.content,
    toolCalls: completion.toolCalls,
    finishReason: completion.finishReason,
    model: completion.model ?? model,
    usage: {
      inputTokens,
      outputTokens,
      costUsd: reported ?? estimateCostUsd(model, { input: inputTokens, output: outputTokens }),
      costSource: reported === undefined ? "estimate" : "proxy",
      attempts: meta.attempts,
      durationMs: meta.durationMs,
    },
  };
}
