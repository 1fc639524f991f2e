/**
 * The MCP servers a run may use: a file in the common `.mcp.json` shape, named by `MCP_CONFIG`.
 * A server is a command the runner starts (stdio) or a Streamable HTTP endpoint. Strings may
 * name the runner's environment variables as `${VAR}` or `${VAR:-default}`, as other MCP clients
 * read the file, so secrets stay out of it.
 *
 * @example
 * ```ts
 * parseMcpConfig(`{"mcpServers": {
 *   "linear": {"command": "npx", "args": ["-y", "linear-mcp"], "env": {"LINEAR_KEY": "k"}},
 *   "docs": {"type": "http", "url": "https://mcp.example.com/mcp"}
 * }}`); // { linear: { type: "stdio", ... }, docs: { type: "http", ... } }
 * ```
 */
import { z } from "zod";
import { describeIssues } from "../../src/platform/contract/mod.ts";

/**
 * A server's name: letters, digits, `-` and `_`, with neither `__` nor a `_` at either end, so
 * that `mcp__<server>__<tool>` names one server and one tool.
 */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

const stringMap = z.record(z.string(), z.string());

const StdioServerSchema = z.object({
  type: z.literal("stdio"),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
});

const HttpServerSchema = z.object({
  type: z.literal("http"),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringMap.default({}),
});

/** A server without `type` is a stdio one, as other MCP clients read the file. */
const ServerSchema = z.preprocess(
  (value) =>
    value && typeof value === "object" && !Array.isArray(value) && !("type" in value)
      ? { ...value, type: "stdio" }
      : value,
  z.discriminatedUnion("type", [StdioServerSchema, HttpServerSchema], {
    error: (issue) =>
      issue.code === "invalid_union" ? 'type must be "stdio" (the default) or "http"' : undefined,
  }),
);

const McpConfigSchema = z.object({
  mcpServers: z.record(z.string(), ServerSchema).superRefine((servers, context) => {
    for (const name of Object.keys(servers)) {
      if (MCP_SERVER_NAME.test(name)) continue;
      context.addIssue({
        code: "custom",
        path: [name],
        message: "a server name is letters, digits, - and _, without __ or a _ at either end",
      });
    }
  }),
});

export type StdioServerConfig = z.output<typeof StdioServerSchema>;
export type HttpServerConfig = z.output<typeof HttpServerSchema>;
export type McpServerConfig = StdioServerConfig | HttpServerConfig;
/** The declared servers by name. */
export type McpServers = Record<string, McpServerConfig>;

/** Why a configuration file cannot be used; the message names the problem. */
export class McpConfigError extends Error {
  override name = "McpConfigError";
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `value` with every `${VAR}` and `${VAR:-default}` in its strings replaced from `env`. */
function expand(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === "string") {
    return value.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(`\${${name}} is used but not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item) => expand(item, env));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, env)]));
  }
  return value;
}

export function parseMcpConfig(
  text: string,
  env: Record<string, string | undefined> = {},
): McpServers {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`not JSON: ${(err as Error).message}`);
  }
  data = expand(data, env);
  const parsed = McpConfigSchema.safeParse(data);
  if (!parsed.success) throw new McpConfigError(describeIssues(parsed.error));
  return parsed.data.mcpServers;
}

/** Reads and parses the file at `path`. */
export function loadMcpConfig(
  path: string,
  readTextFile: (path: string) => string = Deno.readTextFileSync,
  env: Record<string, string | undefined> = {},
): McpServers {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (err) {
    throw new McpConfigError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return parseMcpConfig(text, env);
  } catch (err) {
    if (err instanceof McpConfigError) throw new McpConfigError(`${path}: ${err.message}`);
    throw err;
  }
}
