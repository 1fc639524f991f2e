/**
 * Every environment variable of the agent runner (DESIGN 3.2 plus a few operational ones), parsed
 * once with the shared {@link parseVariables} into a typed {@link RunnerConfig}.
 * `docs/configuration.md` renders {@link RUNNER_VARIABLES} in its "Runner" section.
 *
 * @example
 * ```ts
 * const config = parseRunnerConfig({
 *   WEBHOOK_URL: "http://api:4000/webhooks/ai-workforce", WEBHOOK_SECRET: "s",
 *   LLM_BASE_URL: "http://litellm:4000", LLM_API_KEY: "sk-placeholder",
 * }); // config.port === 4001
 * ```
 */
import { z } from "zod";
import {
  ConfigError,
  integer,
  parseVariables,
  secretVariable,
  shortSecrets,
  variable,
} from "../src/platform/env.ts";
import { DEFAULT_OIDC_TOKEN_URL } from "../src/platform/oidc.ts";
import { METRICS_LISTENER_VARIABLES } from "../src/platform/metrics-config.ts";
import { EDGE_VARIABLES, type EdgeLimits } from "../src/platform/edge/limits.ts";
import { protectedPathPatterns } from "../src/platform/contract/protected-paths.ts";
import { DEFAULT_SIGNATURE_WINDOW_SECONDS } from "../src/platform/contract/request-signature.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpConfig, McpConfigError, type McpServers } from "./tools/mcp-config.ts";

export const RUNNER_VARIABLES = {
  PORT: variable({
    defaultText: "4001",
    description: "Listen port; `0` picks a free port, logged as `listening` with `port`.",
    schema: integer(0, 65535).default(4001),
  }),
  HOST: variable({
    defaultText: "0.0.0.0",
    description: "Listen address.",
    schema: z.string().min(1).default("0.0.0.0"),
  }),
  AUTH_MODE: variable({
    defaultText: "secret",
    description:
      "`secret`: the HMAC signature alone authenticates `POST /runs` and the result webhook. `oidc`: the webhook also carries an OIDC bearer from `OIDC_TOKEN_URL` (audience: the origin of `WEBHOOK_URL`), and `/runs` requests must also carry a bearer valid for `OIDC_AUDIENCE`.",
    schema: z.enum(["secret", "oidc"]).default("secret"),
  }),
  LLM_AUTH_MODE: variable({
    description:
      "`oidc`: calls to the LLM proxy carry an OIDC bearer (audience: the origin of `LLM_BASE_URL`) and send `LLM_API_KEY` in `x-litellm-api-key`; unset: `LLM_API_KEY` is the bearer.",
    schema: z.enum(["oidc"]).optional(),
  }),
  SKILLS_DIR: variable({
    defaultText: "./skills",
    description: "Directory holding `{name}/SKILL.md` files.",
    schema: z.string().min(1).default("./skills"),
  }),
  MAX_RUN_BUDGET_USD: variable({
    defaultText: "1.0",
    description:
      "Per-run spending cap in USD; a run's `budget_usd` can lower it but never raise it.",
    schema: z.coerce.number().positive().max(1000).default(1.0),
  }),
  MAX_TURNS: variable({
    defaultText: "20",
    description: "Per-run cap on model calls; a run's `max_turns` can lower it but never raise it.",
    schema: integer(1, 200).default(20),
  }),
  WEBHOOK_URL: variable({
    description: "Required. Result webhook, e.g. `https://api.example.com/webhooks/ai-workforce`.",
    schema: z.url({ protocol: /^https?$/ }),
  }),
  WEBHOOK_SECRET: secretVariable({
    description:
      "Required. Shared HMAC key (the service's `WORKFORCE_WEBHOOK_SECRET`): signs the webhook and the integration calls, and verifies the service's requests (`/runs`).",
    required: true,
    shorterAccepted: 1,
  }),
  WEBHOOK_SECRET_NEXT: secretVariable({
    description:
      "During a rotation of `WEBHOOK_SECRET`: a second key the runner also accepts on the service's requests (`/runs`, status, cancel); it never signs. Unset when no rotation is under way (docs/runbook.md, rotating the workforce webhook secret).",
    shorterAccepted: 1,
  }),
  SIGNATURE_WINDOW_SECONDS: variable({
    defaultText: String(DEFAULT_SIGNATURE_WINDOW_SECONDS),
    description:
      "How far the `X-Workforce-Timestamp` of the service's requests (`/runs`, status, cancel) may be from this runner's clock, either way; a request outside it, or one already received within it (a replay), is 401 (docs/runner.md, Protocol).",
    schema: integer(10, 3600).default(DEFAULT_SIGNATURE_WINDOW_SECONDS),
  }),
  LLM_BASE_URL: variable({
    description:
      "Required. OpenAI-compatible LLM proxy (LiteLLM); the runner posts to `{LLM_BASE_URL}/chat/completions`.",
    schema: z.url({ protocol: /^https?$/ }),
  }),
  LLM_API_KEY: variable({
    description:
      "Required. Key for the LLM proxy (a placeholder where the proxy is IAM-gated with `LLM_AUTH_MODE=oidc`).",
    schema: z.string().min(1),
    secret: true,
  }),
  MAX_TOOL_CALLS: variable({
    defaultText: "50",
    description:
      "Per-run cap on tool calls (each call of a tool by the model, `submit_artifact` included); reaching it ends the run as `error_max_turns`.",
    schema: integer(1, 1000).default(50),
  }),
  MAX_TOKENS_PER_CALL: variable({
    defaultText: "4096",
    description:
      "`max_tokens` of every model call. Before each call the runner adds its worst case (this many output tokens and an over-estimate of the input) to the run's cost and stops the run rather than call when that would pass the budget.",
    schema: integer(64, 200_000).default(4096),
  }),
  SERVICE_URL: variable({
    defaultText: "the origin of `WEBHOOK_URL`",
    description:
      "The service's base URL for its integration endpoints (`/integrations/activation-funnel`, `/integrations/feedback/export`), which the service-data tools call, signed like the webhook.",
    schema: z.url({ protocol: /^https?$/ }).optional(),
  }),
  GITHUB_API_URL: variable({
    defaultText: "https://api.github.com",
    description:
      "GitHub's REST API, from which the `repo` tool fetches a run's repository (as the service's variable of the same name).",
    schema: z.url({ protocol: /^https?$/ }).default("https://api.github.com"),
  }),
  RUNNER_GITHUB_TOKEN: variable({
    description:
      "The runner's own token for repository workspaces: read-only (contents: read) on the repositories runs name. Unset: only public repositories can be fetched.",
    schema: z.string().min(1).optional(),
    secret: true,
  }),
  RUNNER_WORK_DIR: variable({
    defaultText: "a `runner-work` folder in the system's temporary directory",
    description:
      "Where each run with the `repo` tool gets its workspace folder, removed when the run ends.",
    schema: z.string().min(1).optional(),
  }),
  REPO_MAX_FILES: variable({
    defaultText: "20000",
    description:
      "Most files a repository workspace may hold; a larger repository fails the run before any model call.",
    schema: integer(1, 1_000_000).default(20_000),
  }),
  REPO_MAX_MB: variable({
    defaultText: "200",
    description:
      "Most megabytes (uncompressed) a repository workspace may hold; the download stops and the run fails beyond it.",
    schema: integer(1, 100_000).default(200),
  }),
  PROTECTED_PATHS: variable({
    description:
      "Paths the `repo` tools refuse to change, added to the built-in list of CI configuration and code owners (docs/runner.md); comma-separated, as the service's variable of the same name.",
    schema: z.string().max(10_000).optional(),
  }),
  MCP_CONFIG: variable({
    description:
      'Path of a file in the `.mcp.json` shape declaring MCP servers: `{"mcpServers": {"<name>": {"command", "args", "env"} or {"type": "http", "url", "headers"}}}`. Their tools are offered as `mcp__<server>__<tool>` to employees whose `tools` name them (docs/runner.md, "MCP servers"). Read at start-up; a file that cannot be read or parsed stops the runner. Unset: no MCP servers.',
    schema: z.string().min(1).optional(),
  }),
  MCP_CONNECT_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "Time a run gives each of its MCP servers to start, connect and list its tools; a server that takes longer fails the run.",
    schema: integer(100, 600_000).default(10_000),
  }),
  LLM_TIMEOUT_MS: variable({
    defaultText: "120000",
    description: "Time limit of one model call.",
    schema: integer(1000, 600_000).default(120_000),
  }),
  OIDC_TOKEN_URL: variable({
    defaultText: DEFAULT_OIDC_TOKEN_URL,
    description:
      "Metadata endpoint that answers `GET ?audience=...` (header `Metadata-Flavor: Google`) with an identity token.",
    schema: z.url({ protocol: /^https?$/ }).default(DEFAULT_OIDC_TOKEN_URL),
  }),
  OIDC_AUDIENCE: variable({
    description:
      "Required when `AUTH_MODE=oidc`: the `aud` an incoming bearer must carry (the runner's own URL).",
    schema: z.string().min(1).optional(),
  }),
  OIDC_ISSUER: variable({
    defaultText: "https://accounts.google.com",
    description: "The `iss` an incoming bearer must carry (`AUTH_MODE=oidc`).",
    schema: z.string().min(1).default("https://accounts.google.com"),
  }),
  OIDC_JWKS_URL: variable({
    defaultText: "https://www.googleapis.com/oauth2/v3/certs",
    description: "Keys that verify incoming bearers (`AUTH_MODE=oidc`).",
    schema: z.url().default("https://www.googleapis.com/oauth2/v3/certs"),
  }),
  LOG_LEVEL: variable({
    defaultText: "info",
    description: "Lowest level written: `debug`, `info`, `warn` or `error`.",
    schema: z.enum(["debug", "info", "warn", "error"]).default("info"),
  }),
  SHUTDOWN_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long cancelled runs may take to report `failed` / `cancelled` before the process exits.",
    schema: integer(0, 600_000).default(10_000),
  }),
  SHUTDOWN_DRAIN_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long in-flight HTTP requests may take to finish; runs alongside the run cancellation, not after it.",
    schema: integer(0, 600_000).default(10_000),
  }),
  ...EDGE_VARIABLES,
  METRICS_TOKEN: secretVariable({
    description:
      "Bearer token for `GET /metrics` (Prometheus text format) on the runner's port: a scrape sends `Authorization: Bearer <token>`. Unset = no `/metrics` there (docs/observability.md).",
    shorterAccepted: 16,
  }),
  ...METRICS_LISTENER_VARIABLES,
} as const;

/** The typed runner configuration. */
export interface RunnerConfig {
  port: number;
  host: string;
  authMode: "secret" | "oidc";
  llmAuthMode?: "oidc";
  skillsDir: string;
  maxRunBudgetUsd: number;
  maxTurns: number;
  maxToolCalls: number;
  maxTokensPerCall: number;
  /** The service's base URL for the service-data tools. */
  serviceUrl: string;
  githubApiUrl: string;
  runnerGithubToken?: string;
  /** Parent folder of the per-run repository workspaces. */
  workDir: string;
  repoMaxFiles: number;
  repoMaxBytes: number;
  /** The built-in protected paths and `PROTECTED_PATHS`. */
  protectedPaths: string[];
  /** The MCP servers of `MCP_CONFIG`, by name; empty when it is unset. */
  mcpServers: McpServers;
  mcpConnectTimeoutMs: number;
  webhookUrl: string;
  webhookSecret: string;
  /** `WEBHOOK_SECRET_NEXT`: also accepted on the service's requests while a rotation runs. */
  webhookSecretNext?: string;
  /** `SIGNATURE_WINDOW_SECONDS`: the accepted distance of a request's timestamp from this clock. */
  signatureWindowSeconds: number;
  llmBaseUrl: string;
  llmApiKey: string;
  llmTimeoutMs: number;
  oidcTokenUrl: string;
  oidcAudience?: string;
  oidcIssuer: string;
  oidcJwksUrl: string;
  logLevel: "debug" | "info" | "warn" | "error";
  shutdownTimeoutMs: number;
  shutdownDrainMs: number;
  /** The bounds on each client connection (`HTTP_*`). */
  edge: EdgeLimits;
  /** `HTTP_BODY_TIMEOUT_MS`: time a request body has to arrive whole (0: unbounded). */
  httpBodyTimeoutMs: number;
  /** `METRICS_TOKEN`: bearer for `/metrics` on the runner's port; undefined = not served there. */
  metricsToken?: string;
  /** `METRICS_PORT`: a separate `/metrics` listener; undefined = none. */
  metricsPort?: number;
  metricsHost: string;
  /** Secrets set shorter than `SECRET_MIN_LENGTH` where that is accepted: warned about at start. */
  shortSecrets: string[];
}

/**
 * Parses the runner configuration, reading the file `MCP_CONFIG` names with `readTextFile`.
 * Throws {@link ConfigError} naming the first bad variable.
 */
export function parseRunnerConfig(
  env: Record<string, string | undefined>,
  readTextFile: (path: string) => string = Deno.readTextFileSync,
): RunnerConfig {
  const v = parseVariables(RUNNER_VARIABLES, env);
  if (v.AUTH_MODE === "oidc" && !v.OIDC_AUDIENCE) {
    throw new ConfigError("OIDC_AUDIENCE", "required when AUTH_MODE=oidc (got nothing)");
  }
  let mcpServers: McpServers = {};
  try {
    if (v.MCP_CONFIG) mcpServers = loadMcpConfig(v.MCP_CONFIG, readTextFile, env);
  } catch (err) {
    if (err instanceof McpConfigError) throw new ConfigError("MCP_CONFIG", err.message);
    throw err;
  }
  return {
    port: v.PORT,
    host: v.HOST,
    authMode: v.AUTH_MODE,
    llmAuthMode: v.LLM_AUTH_MODE,
    skillsDir: v.SKILLS_DIR,
    maxRunBudgetUsd: v.MAX_RUN_BUDGET_USD,
    maxTurns: v.MAX_TURNS,
    maxToolCalls: v.MAX_TOOL_CALLS,
    maxTokensPerCall: v.MAX_TOKENS_PER_CALL,
    serviceUrl: (v.SERVICE_URL ?? new URL(v.WEBHOOK_URL).origin).replace(/\/+$/, ""),
    githubApiUrl: v.GITHUB_API_URL.replace(/\/+$/, ""),
    runnerGithubToken: v.RUNNER_GITHUB_TOKEN,
    workDir: v.RUNNER_WORK_DIR ?? join(tmpdir(), "runner-work"),
    repoMaxFiles: v.REPO_MAX_FILES,
    repoMaxBytes: v.REPO_MAX_MB * 1024 * 1024,
    protectedPaths: protectedPathPatterns(v.PROTECTED_PATHS),
    mcpServers,
    mcpConnectTimeoutMs: v.MCP_CONNECT_TIMEOUT_MS,
    webhookUrl: v.WEBHOOK_URL,
    webhookSecret: v.WEBHOOK_SECRET,
    webhookSecretNext: v.WEBHOOK_SECRET_NEXT,
    signatureWindowSeconds: v.SIGNATURE_WINDOW_SECONDS,
    llmBaseUrl: v.LLM_BASE_URL.replace(/\/+$/, ""),
    llmApiKey: v.LLM_API_KEY,
    llmTimeoutMs: v.LLM_TIMEOUT_MS,
    oidcTokenUrl: v.OIDC_TOKEN_URL,
    oidcAudience: v.OIDC_AUDIENCE,
    oidcIssuer: v.OIDC_ISSUER,
    oidcJwksUrl: v.OIDC_JWKS_URL,
    logLevel: v.LOG_LEVEL,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: v.SHUTDOWN_DRAIN_MS,
    edge: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      idleTimeoutMs: v.HTTP_IDLE_TIMEOUT_MS,
      maxConnectionsPerAddress: v.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
      maxConnections: v.HTTP_MAX_CONNECTIONS,
    },
    httpBodyTimeoutMs: v.HTTP_BODY_TIMEOUT_MS,
    metricsToken: v.METRICS_TOKEN,
    metricsPort: v.METRICS_PORT,
    metricsHost: v.METRICS_HOST,
    shortSecrets: shortSecrets(RUNNER_VARIABLES, env),
  };
}
