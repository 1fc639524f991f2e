/**
 * The tools of a run's MCP servers. The employee's `tools` list names them as
 * `mcp__<server>__<tool>` (one tool) or `mcp__<server>` (every tool of the server); only the
 * servers it names are started, at the run's start, and they are closed when it ends. A tool is
 * sent to the model with the server's description and JSON Schema; a call has the tool's time
 * limit, and the run's cancel aborts it and tells the server (`notifications/cancelled`).
 *
 * @example
 * ```ts
 * const mcp = await openMcpTools(
 *   { servers: config.mcpServers, connectTimeoutMs: 10_000, fetch },
 *   ["mcp__linear__search", "mcp__docs"],
 *   signal,
 * );
 * try {
 *   // mcp.tools: mcp__linear__search and every tool of docs; mcp.unavailable: names not found
 * } finally {
 *   await mcp.close();
 * }
 * ```
 */
import { z } from "zod";
import type { McpServers } from "./mcp-config.ts";
import { connectMcpServer, type McpConnection, type McpListedTool } from "./mcp-connect.ts";
import { DEFAULT_TOOL_TIMEOUT_MS, defineTool, type Tool, ToolError } from "./tool.ts";

export { McpStartError } from "./mcp-connect.ts";

export const MCP_PREFIX = "mcp__";

/** A name model APIs accept for a function (OpenAI's rule; others are as strict). */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface McpToolsOptions {
  servers: McpServers;
  connectTimeoutMs: number;
  fetch: typeof fetch;
  /** Of one tool call. */
  callTimeoutMs?: number;
}

export interface McpTools {
  tools: Tool[];
  /**
   * Names that cannot be offered: no such server or tool, or a name model APIs refuse (longer
   * than 64 characters, or characters other than letters, digits, `_` and `-`).
   */
  unavailable: string[];
  /** Closes every server of the run; never throws. */
  close(): Promise<void>;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}

/** `mcp__<server>__<tool>`, or `mcp__<server>` (tool null: all of them). */
function parseName(name: string): { server: string; tool: string | null } {
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf("__");
  return split < 0
    ? { server: rest, tool: null }
    : { server: rest.slice(0, split), tool: rest.slice(split + 2) };
}

/**
 * Starts the servers `names` use and returns their tools. A server that cannot be started fails
 * the whole call with an `McpStartError` naming it (the others are closed first).
 */
export async function openMcpTools(
  options: McpToolsOptions,
  names: readonly string[],
  signal: AbortSignal,
): Promise<McpTools> {
  const unavailable: string[] = [];
  const wanted = new Map<string, string[]>();
  for (const name of new Set(names.filter(isMcpToolName))) {
    const { server } = parseName(name);
    if (Object.hasOwn(options.servers, server)) {
      wanted.set(server, [...wanted.get(server) ?? [], name]);
    } else unavailable.push(name);
  }
  const settled = await Promise.allSettled(
    [...wanted.keys()].map((server) =>
      connectMcpServer(server, options.servers[server], {
        timeoutMs: options.connectTimeoutMs,
        signal,
        fetch: options.fetch,
      })
    ),
  );
  const connections = settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
  const close = async () => {
    await Promise.allSettled(connections.map((connection) => connection.close()));
  };
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    await close();
    throw failed.reason;
  }

  const tools = new Map<string, Tool>();
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  for (const connection of connections) {
    for (const name of wanted.get(connection.server) ?? []) {
      const { tool } = parseName(name);
      const listed = tool === null
        ? connection.tools
        : connection.tools.filter((t) => t.name === tool);
      if (tool !== null && !listed.length) unavailable.push(name);
      for (const one of listed) {
        const fullName = `${MCP_PREFIX}${connection.server}__${one.name}`;
        if (!MODEL_TOOL_NAME.test(fullName)) unavailable.push(fullName);
        else tools.set(fullName, mcpTool(fullName, connection, one, callTimeoutMs));
      }
    }
  }
  return { tools: [...tools.values()], unavailable: [...new Set(unavailable)], close };
}

function mcpTool(
  name: string,
  connection: McpConnection,
  listed: McpListedTool,
  timeoutMs: number,
): Tool {
  return defineTool({
    name,
    description: listed.description ?? listed.title ??
      `The tool "${listed.name}" of the MCP server "${connection.server}".`,
    scope: "external",
    args: z.record(z.string(), z.unknown()),
    parameters: listed.inputSchema,
    timeoutMs,
    async run(args, { signal }) {
      signal.throwIfAborted();
      // Aborting this call's signal makes the SDK send `notifications/cancelled`. It keeps
      // listening after the answer, so the call gets a signal of its own, let go once answered.
      const call = new AbortController();
      const abort = () => call.abort(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      let result;
      try {
        result = await connection.client.callTool(
          { name: listed.name, arguments: args },
          undefined,
          { signal: call.signal, timeout: timeoutMs },
        );
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ToolError(`MCP server "${connection.server}": ${(err as Error).message}`);
      } finally {
        signal.removeEventListener("abort", abort);
      }
      const text = resultText(result);
      if (result.isError) throw new ToolError(text || "the tool failed without saying why");
      return { text };
    },
  }) as Tool;
}

type CallResult = Awaited<ReturnType<McpConnection["client"]["callTool"]>>;
type ContentPart = { type: string; [field: string]: unknown };

/** The text parts of a result, joined; other parts in a few words. */
export function resultText(result: CallResult): string {
  const parts = Array.isArray(result.content) ? result.content as ContentPart[] : [];
  if (!parts.length && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.map(describePart).join("\n");
}

function describePart(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return String(part.text);
    case "image":
    case "audio":
      return `[${part.type}: ${part.mimeType}, ${
        base64Bytes(String(part.data ?? ""))
      } bytes, not shown]`;
    case "resource_link":
      return `[resource link: ${part.uri}${part.name ? ` (${part.name})` : ""}]`;
    case "resource": {
      const resource = part.resource as { uri: string; mimeType?: string; text?: string };
      return typeof resource.text === "string"
        ? `[resource: ${resource.uri}]\n${resource.text}`
        : `[resource: ${resource.uri}, ${resource.mimeType ?? "binary"}, not shown]`;
    }
    default:
      return `[${part.type} content, not shown]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor(data.length * 3 / 4) - padding;
}
