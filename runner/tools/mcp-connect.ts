/**
 * One MCP server for one run: started (stdio) or reached (Streamable HTTP), initialized and asked
 * for its tools within a time limit, and closed when the run ends. A server that cannot be
 * started, or does not answer in time, is an {@link McpStartError} naming it.
 */
// Deno finds no types behind the SDK's `*.js` subpaths; `@ts-types` names them.
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpServerConfig } from "./mcp-config.ts";

/** A tool as the server lists it (name, description, `inputSchema`, ...). */
export type McpListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

export interface McpConnection {
  server: string;
  client: Client;
  tools: McpListedTool[];
  close(): Promise<void>;
}

export interface McpConnectOptions {
  /** For the start, the handshake and the tool list together. */
  timeoutMs: number;
  /** The run's: a cancel stops the connecting. */
  signal: AbortSignal;
  /** For Streamable HTTP servers. */
  fetch: typeof fetch;
}

export class McpStartError extends Error {
  override name = "McpStartError";
}

const CLIENT_INFO = { name: "ai-workforce-runner", version: "1.0.0" };
/** The end of a stdio server's stderr kept for the message of its failure. */
const STDERR_TAIL_CHARS = 1_000;
/** Pages of `tools/list` read at most, against a server whose cursor never ends. */
const MAX_TOOL_PAGES = 20;
/** How long closing an HTTP session may wait for the server's answer. */
const SESSION_END_WAIT_MS = 2_000;

export async function connectMcpServer(
  server: string,
  config: McpServerConfig,
  options: McpConnectOptions,
): Promise<McpConnection> {
  const transport = config.type === "http"
    ? new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      fetch: options.fetch,
    })
    : new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      stderr: "pipe",
    });
  let stderr = "";
  if (transport instanceof StdioClientTransport) {
    transport.stderr?.on("data", (chunk: Uint8Array | string) => {
      stderr = (stderr + String(chunk)).slice(-STDERR_TAIL_CHARS);
    });
  }
  const client = new Client(CLIENT_INFO);
  const close = async () => {
    if (transport instanceof StreamableHTTPClientTransport) {
      await withinMs(transport.terminateSession(), SESSION_END_WAIT_MS).catch(() => {});
    }
    await client.close().catch(() => {});
  };
  // The SDK keeps listening to a request's signal after its answer, and would send a
  // cancellation for an answered request: this signal is let go once connected.
  const connecting = new AbortController();
  const stop = () => connecting.abort(options.signal.reason);
  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    connecting.abort(new Error("timed out"));
  }, options.timeoutMs);
  const request = { signal: connecting.signal, timeout: options.timeoutMs };
  try {
    await client.connect(transport, request);
    return { server, client, tools: await listTools(client, request), close };
  } catch (err) {
    await close();
    const reason = options.signal.aborted
      ? "the run was cancelled"
      : timedOut
      ? `no answer within ${options.timeoutMs} ms`
      : (err as Error).message;
    const output = stderr.trim() ? ` (its stderr ends: ${stderr.trim()})` : "";
    throw new McpStartError(`MCP server "${server}" could not be started: ${reason}${output}`);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", stop);
  }
}

async function listTools(
  client: Client,
  request: { signal: AbortSignal; timeout: number },
): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, request);
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** `promise`, or a rejection once `ms` have passed; the timer never outlives it. */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
