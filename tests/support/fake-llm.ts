/**
 * A fake OpenAI-compatible LLM proxy (LiteLLM wire format) scripted per test.
 *
 * Answers `POST /v1/chat/completions` and `POST /chat/completions` from a queue of scripted
 * replies (text, JSON answers, tool calls, invalid bodies, slow answers, errors), reports usage
 * and optionally the `x-litellm-response-cost` header, serves `GET /health/liveliness`, and
 * records every call. With an empty queue it answers the `fallback` (default: a 500 that names
 * the missing script, so an unscripted call fails the test visibly).
 *
 * @example
 * ```ts
 * const llm = startFakeLlm();
 * llm.script(
 *   reply.toolCall("remember", { key: "tone", value: "calm" }),
 *   reply.submit({ kind: "report", title: "T", payload: "P" }, { costUsd: 0.01 }),
 * );
 * // point the code under test at `${llm.url}/v1`, then inspect llm.calls[i].body.messages
 * await llm.close();
 * ```
 */

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as is (to test malformed arguments). */
  arguments: unknown;
}

export interface ScriptedReply {
  content?: string | null;
  toolCalls?: ScriptedToolCall[];
  /** Token usage reported in `usage`; default 100 prompt and 50 completion tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Sent as `x-litellm-response-cost` when set. */
  costUsd?: number;
  /** Waits this long before answering (cut short when the fake is closed). */
  delayMs?: number;
  /**
   * Answers only once this settles (or the fake is closed): the test keeps the call in flight for
   * exactly as long as it needs, whatever the machine's speed.
   */
  until?: Promise<unknown>;
  /** HTTP status; a non-2xx status answers an OpenAI-style error body. */
  status?: number;
  /** A raw body that replaces the generated one (for example invalid JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One recorded chat-completions call. */
export interface LlmCall {
  path: string;
  headers: Headers;
  /** The parsed request body (`model`, `messages`, `tools`, ...). */
  body: {
    model: string;
    messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
    tools?: { function: { name: string } }[];
    [key: string]: unknown;
  };
  /** The scripted reply that answered it. */
  reply: ScriptedReply;
}

export type ReplySource = ScriptedReply | ((call: Omit<LlmCall, "reply">) => ScriptedReply);

export interface FakeLlm {
  /** Base URL without a path; the API is at `${url}/v1` and at `${url}`. */
  url: string;
  calls: LlmCall[];
  /** Appends replies to the queue, answered in order. */
  script(...replies: ReplySource[]): void;
  /** Replies still queued. */
  pending(): number;
  /** What an empty queue answers. */
  fallback: ReplySource;
  /** Whether `GET /health/liveliness` answers 200 (default) or 503. */
  live: boolean;
  close(): Promise<void>;
}

/** Builders for common replies. */
export const reply = {
  text(content: string, extra: ScriptedReply = {}): ScriptedReply {
    return { content, ...extra };
  },
  json(value: unknown, extra: ScriptedReply = {}): ScriptedReply {
    return { content: JSON.stringify(value), ...extra };
  },
  toolCall(name: string, args: unknown, extra: ScriptedReply = {}): ScriptedReply {
    return { content: null, toolCalls: [{ name, arguments: args }], ...extra };
  },
  /** The runner's final answer: a call of `submit_artifact` with the artifact. */
  submit(artifact: unknown, extra: ScriptedReply = {}): ScriptedReply {
    return {
      content: null,
      toolCalls: [{ name: "submit_artifact", arguments: artifact }],
      ...extra,
    };
  },
  error(status: number, extra: ScriptedReply = {}): ScriptedReply {
    return { status, ...extra };
  },
};

let sequence = 0;

function render(reply: ScriptedReply, model: string): Response {
  const headers = new Headers({ "content-type": "application/json", ...reply.headers });
  if (reply.costUsd !== undefined) headers.set("x-litellm-response-cost", String(reply.costUsd));
  const status = reply.status ?? 200;
  if (reply.rawBody !== undefined) return new Response(reply.rawBody, { status, headers });
  if (status >= 300) {
    return new Response(
      JSON.stringify({
        error: { message: `fake LLM error ${status}`, type: "fake", code: status },
      }),
      { status, headers },
    );
  }
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 50 };
  const toolCalls = reply.toolCalls?.map((call) => ({
    id: call.id ?? `call_${++sequence}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string"
        ? call.arguments
        : JSON.stringify(call.arguments),
    },
  }));
  const body = {
    id: `chatcmpl-fake-${++sequence}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.content ?? null,
        ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
      },
      finish_reason: toolCalls?.length ? "tool_calls" : "stop",
    }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
  return new Response(JSON.stringify(body), { status, headers });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function settledOrAborted(until: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
    until.then(() => resolve(), () => resolve());
  });
}

export function startFakeLlm(): FakeLlm {
  const queue: ReplySource[] = [];
  const controller = new AbortController();
  const fake: FakeLlm = {
    url: "",
    calls: [],
    script: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    fallback: { status: 500, rawBody: '{"error":{"message":"fake LLM: no scripted reply left"}}' },
    live: true,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path === "/health/liveliness") {
        return fake.live
          ? Response.json("I'm alive!")
          : Response.json({ error: "unhealthy" }, { status: 503 });
      }
      if (req.method !== "POST" || !["/v1/chat/completions", "/chat/completions"].includes(path)) {
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      }
      let body: LlmCall["body"];
      try {
        body = await req.json();
      } catch {
        return Response.json({ error: { message: "body is not JSON" } }, { status: 400 });
      }
      const call = { path, headers: req.headers, body };
      const source = queue.shift() ?? fake.fallback;
      const scripted = typeof source === "function" ? source(call) : source;
      fake.calls.push({ ...call, reply: scripted });
      if (scripted.delayMs) await wait(scripted.delayMs, controller.signal);
      if (scripted.until) await settledOrAborted(scripted.until, controller.signal);
      return render(scripted, body.model);
    },
  );
  fake.url = `http://127.0.0.1:${server.addr.port}`;
  return fake;
}
