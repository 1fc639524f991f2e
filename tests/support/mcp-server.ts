/**
 * An MCP server for tests, written with the SDK's server parts. Its tools: `lookup` (text made
 * from its arguments), `slow` (answers only once cancelled), `broken` (an `isError` result) and
 * `chart` (a text and an image). Every message it receives is recorded, so a test sees the
 * requests and the `notifications/cancelled` that reached it.
 *
 * - As a program (`deno run -A tests/support/mcp-server.ts`): stdio, recording one JSON line per
 *   event (`started`, then `message` with the JSON-RPC message) in the file `MCP_FIXTURE_LOG`.
 *   {@link fixtureServerEntry} is the `.mcp.json` entry that starts it.
 * - In-process: {@link startHttpMcpServer} serves it over Streamable HTTP on a free port.
 */
// Deno finds no types behind the SDK's `*.js` subpaths; `@ts-types` names them.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/** A JSON-RPC message as received. */
export interface ReceivedMessage {
  method?: string;
  id?: number;
  params?: Record<string, unknown>;
}

export type FixtureEvent =
  | { event: "started"; pid: number }
  | { event: "message"; message: ReceivedMessage }
  | { event: "http"; method: string; authorization: string | null };

/** The tools the fixture offers, with their descriptions and the schema of `lookup`. */
export const LOOKUP_DESCRIPTION = "Looks up a record by its key.";

/** What `lookup` answers for `key`. */
export function lookupAnswer(key: string, detail = "short"): string {
  const letters = key.length;
  return detail === "long"
    ? `record ${key}: ${letters} letters, reversed ${[...key].reverse().join("")}`
    : `record ${key}: ${letters} letters`;
}

function fixtureServer(): McpServer {
  const server = new McpServer({ name: "fixture", version: "1.0.0" });
  server.registerTool("lookup", {
    description: LOOKUP_DESCRIPTION,
    inputSchema: {
      key: z.string().min(1).describe("The record's key."),
      detail: z.enum(["short", "long"]).optional().describe("How much to say."),
    },
  }, ({ key, detail }) => ({ content: [{ type: "text", text: lookupAnswer(key, detail) }] }));
  server.registerTool("slow", {
    description: "Works until it is cancelled.",
    inputSchema: {},
  }, (_args, extra) =>
    new Promise((resolve) =>
      extra.signal.addEventListener(
        "abort",
        () => resolve({ content: [{ type: "text", text: "stopped" }] }),
        { once: true },
      )
    ));
  server.registerTool("broken", {
    description: "Always fails.",
    inputSchema: {},
  }, () => ({ isError: true, content: [{ type: "text", text: "no such record" }] }));
  server.registerTool("chart", {
    description: "A chart of the week.",
    inputSchema: {},
  }, () => ({
    content: [
      { type: "text", text: "chart of the week" },
      { type: "image", mimeType: "image/png", data: btoa("12345678") },
    ],
  }));
  return server;
}

/** Records every message the transport receives, before the server handles it. */
function recordMessages<M>(
  transport: { onmessage?: (message: M) => void },
  record: (event: FixtureEvent) => void,
) {
  transport.onmessage = (message) =>
    record({ event: "message", message: message as ReceivedMessage });
}

/** The `.mcp.json` entry that starts this file as a stdio server logging to `logPath`. */
export function fixtureServerEntry(logPath: string) {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
      new URL(import.meta.url).pathname,
    ],
    // A stdio server inherits only a few variables (HOME, PATH, ...): the cache is passed on.
    env: {
      MCP_FIXTURE_LOG: logPath,
      NO_COLOR: "1",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
  };
}

/** The events a stdio fixture recorded in `logPath` (none when it never started). */
export async function readFixtureLog(logPath: string): Promise<FixtureEvent[]> {
  try {
    const text = await Deno.readTextFile(logPath);
    return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

export interface HttpMcpServer {
  url: string;
  events: FixtureEvent[];
  close(): Promise<void>;
}

/** The fixture over Streamable HTTP (one session per client), at `${url}`. */
export function startHttpMcpServer(): HttpMcpServer {
  const events: FixtureEvent[] = [];
  const record = (event: FixtureEvent) => void events.push(event);
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      record({
        event: "http",
        method: req.method,
        authorization: req.headers.get("authorization"),
      });
      const id = req.headers.get("mcp-session-id");
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) return new Response("no such session", { status: 404 });
      if (!transport) {
        const created = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
          onsessionclosed: (sessionId) => void sessions.delete(sessionId),
        });
        recordMessages(created, record);
        await fixtureServer().connect(created);
        transport = created;
      }
      return await transport.handleRequest(req);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    events,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      controller.abort();
      await server.finished;
    },
  };
}

if (import.meta.main) {
  const logPath = Deno.env.get("MCP_FIXTURE_LOG");
  const record = (event: FixtureEvent) => {
    if (logPath) Deno.writeTextFileSync(logPath, `${JSON.stringify(event)}\n`, { append: true });
  };
  record({ event: "started", pid: Deno.pid });
  const transport = new StdioServerTransport();
  recordMessages(transport, record);
  await fixtureServer().connect(transport);
}
