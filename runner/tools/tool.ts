/**
 * The runner's tool layer: what a tool declares (name, description, a zod schema of its
 * arguments, a scope, a timeout and a cap on what it returns) and how one call runs. Arguments are
 * validated before the tool runs; a refused call, an error and a timeout all go back to the model
 * as the tool's result. The run's cancel signal reaches every call: a tool that does not listen
 * to it is left behind when it aborts, so a cancel never waits for a tool.
 *
 * @example
 * ```ts
 * const echo = defineTool({
 *   name: "echo", description: "Says it back.", scope: "read",
 *   args: z.object({ text: z.string() }),
 *   run: ({ text }) => Promise.resolve({ text }),
 * });
 * await callTool(echo, '{"text":"hi"}', { signal }); // { ok: true, text: "hi", ... }
 * ```
 */
import { z } from "zod";
import { describeIssues } from "../../src/platform/contract/mod.ts";

/** What a call may do: read data, write it (memory, the artifact), or reach outside the service. */
export type ToolScope = "read" | "write" | "external";

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_RESULT_CHARS = 50_000;

/** What a tool hands back: the text the model reads, and for the final tool its value. */
export interface ToolOutput {
  text: string;
  /** Set by the tool that ends the run (`submit_artifact`). */
  final?: unknown;
}

export interface ToolCallContext {
  /** Aborted when the run is cancelled or the call's time is up. */
  signal: AbortSignal;
}

export interface Tool<A = unknown> {
  name: string;
  description: string;
  args: z.ZodType<A>;
  /** The JSON Schema the model is sent, when it is not generated from `args` (an MCP tool's). */
  parameters?: Record<string, unknown>;
  scope: ToolScope;
  timeoutMs: number;
  /** Longest result the model is given; the rest is cut with a note. */
  maxResultChars: number;
  run(args: A, context: ToolCallContext): Promise<ToolOutput>;
}

/** A tool with the default timeout and result cap unless it sets its own. */
export function defineTool<A>(
  tool: Omit<Tool<A>, "timeoutMs" | "maxResultChars"> & Partial<Tool<A>>,
): Tool<A> {
  return {
    timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
    maxResultChars: DEFAULT_TOOL_RESULT_CHARS,
    ...tool,
  } as Tool<A>;
}

/**
 * The definition the model is sent: the tool's own JSON Schema of its arguments, or else the one
 * generated from zod.
 */
export function toolDefinition(tool: Tool) {
  const { $schema: _, ...parameters } = tool.parameters ??
    z.toJSONSchema(tool.args, { io: "input" }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/** A failure the model is told about (its message is the tool's result). */
export class ToolError extends Error {
  override name = "ToolError";
}

export type ToolCallResult =
  | { ok: true; text: string; final?: unknown; durationMs: number }
  | { ok: false; text: string; refused: boolean; durationMs: number };

function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${
      text.slice(0, max)
    }\n[cut: the result has ${text.length} characters; at most ${max} are shown]`;
}

function abortedOrTimedOut(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason ?? new Error("aborted"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/**
 * Runs one call of `tool` with the model's raw JSON arguments. Never throws: a refusal, a
 * failure, a timeout and a cancel are results (`ok: false`); the caller checks the run's signal.
 */
export async function callTool(
  tool: Tool,
  rawArgs: string,
  context: ToolCallContext,
): Promise<ToolCallResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let data: unknown;
  try {
    data = JSON.parse(rawArgs.trim() === "" ? "{}" : rawArgs);
  } catch {
    return {
      ok: false,
      refused: true,
      text: "error: the arguments are not JSON",
      durationMs: ms(),
    };
  }
  const parsed = tool.args.safeParse(data);
  if (!parsed.success) {
    return {
      ok: false,
      refused: true,
      text: `error: invalid arguments: ${describeIssues(parsed.error)}`,
      durationMs: ms(),
    };
  }
  const timeout = AbortSignal.timeout(tool.timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const output = await Promise.race([
      tool.run(parsed.data, { signal }),
      abortedOrTimedOut(signal),
    ]);
    return {
      ok: true,
      text: clip(output.text, tool.maxResultChars),
      final: output.final,
      durationMs: ms(),
    };
  } catch (err) {
    const text = timeout.aborted && !context.signal.aborted
      ? `error: no result within ${tool.timeoutMs} ms`
      : context.signal.aborted
      ? "error: the run was cancelled"
      : `error: ${err instanceof ToolError ? err.message : (err as Error)?.message ?? String(err)}`;
    return { ok: false, refused: false, text: clip(text, 2_000), durationMs: ms() };
  }
}
