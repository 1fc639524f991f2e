/**
 * The service's client for the OpenAI-compatible LLM proxy (LiteLLM, DESIGN 3.2):
 * `POST {LLM_BASE_URL}/chat/completions` with `Authorization: Bearer {LLM_API_KEY}`.
 *
 * - Structured output: `response_format` JSON schema (from a zod schema) or JSON mode; the answer
 *   is parsed and validated with zod, and an invalid answer is asked for once more (with the
 *   validation problem) before {@link LlmError} `invalid_output`.
 * - Each HTTP attempt has a timeout; a 429, a 5xx or a network failure is retried once after a
 *   short backoff (a `Retry-After` of a few seconds is honoured).
 * - Usage and cost are captured per call: the proxy's `x-litellm-response-cost` when present,
 *   else tokens times the shared price table (`contract/pricing.ts`, the runner's too; an
 *   unknown model costs the dearest price, never zero).
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

export interface LlmMessage {
  role: "system" | "user" | "assistant";
  content: string;
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
  durationMs: number;
}

export interface ChatResult {
  content: string;
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
  /** Wait before the one retry; default 500 ms. */
  retryDelayMs?: number;
  /** Largest `Retry-After` honoured (longer ones use `retryDelayMs`); default 5 s. */
  maxRetryAfterMs?: number;
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

const completionBody = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({
    message: z.object({ content: z.string().nullable().optional() }),
  })).min(1),
  usage: z.object({
    prompt_tokens: z.number().optional(),
    completion_tokens: z.number().optional(),
  }).optional(),
});

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
  const sleep = options.sleep ?? defaultSleep;

  async function attempt(request: ChatRequest) {
    const body: Record<string, unknown> = { model: request.model, messages: request.messages };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.responseFormat === "json_object") body.response_format = { type: "json_object" };
    if (request.responseFormat === "json_schema" && request.schema) {
      body.response_format = {
        type: "json_schema",
        json_schema: { name: request.schema.name, schema: request.schema.schema, strict: true },
      };
    }
    const headers = await llmProxyHeaders(options);
    const signals = [AbortSignal.timeout(timeoutMs)];
    if (request.signal) signals.push(request.signal);
    const res = await options.fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
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
    const started = performance.now();
    let failure: LlmError | undefined;
    for (let attempts = 1; attempts <= 2; attempts++) {
      let wait = options.retryDelayMs ?? 500;
      try {
        const { res, text } = await attempt(request);
        if (res.ok) {
          return parseCompletion(request.model, res.headers, text, {
            attempts,
            durationMs: Math.round(performance.now() - started),
          });
        }
        const detail = `LLM proxy answered ${res.status}: ${text.slice(0, 200)}`;
        if (res.status !== 429 && res.status < 500) throw new LlmError("rejected", detail);
        failure = new LlmError("unavailable", detail);
        const hinted = retryAfterMs(res);
        if (hinted !== undefined && hinted <= (options.maxRetryAfterMs ?? 5000)) wait = hinted;
      } catch (err) {
        if (err instanceof LlmError) throw err;
        if (request.signal?.aborted) throw err;
        const timedOut = (err as Error)?.name === "TimeoutError";
        failure = timedOut
          ? new LlmError("timeout", `LLM proxy did not answer within ${timeoutMs} ms`)
          : new LlmError("unavailable", `LLM proxy unreachable: ${(err as Error)?.message}`);
      }
      if (attempts < 2) await sleep(wait, request.signal);
    }
    throw failure!;
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

function parseCompletion(
  model: string,
  headers: Headers,
  text: string,
  meta: { attempts: number; durationMs: number },
): ChatResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LlmError("unavailable", "LLM proxy answered with a body that is not JSON");
  }
  const parsed = completionBody.safeParse(json);
  if (!parsed.success) {
    throw new LlmError("unavailable", "LLM proxy answered without choices[0].message");
  }
  const data = parsed.data;
  const inputTokens = data.usage?.prompt_tokens ?? 0;
  const outputTokens = data.usage?.completion_tokens ?? 0;
  const reported = reportedCostUsd(headers);
  return {
    content: data.choices[0].message.content ?? "",
    model: data.model ?? model,
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
