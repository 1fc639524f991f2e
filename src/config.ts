/**
 * Every environment variable of the service, parsed once with zod into a typed {@link Config}.
 *
 * The table {@link SERVICE_VARIABLES} is the single source: `docs/configuration.md` is generated
 * from it (`deno task docs:config`) and a test fails when the two drift apart.
 *
 * @example
 * ```ts
 * const config = parseConfig({ PORT: "8080" }); // config.port === 8080
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
} from "./platform/env.ts";
import { DEFAULT_OIDC_TOKEN_URL } from "./platform/oidc.ts";
import { METRICS_LISTENER_VARIABLES } from "./platform/metrics-config.ts";
import {
  DEFAULT_PROTECTED_PATHS,
  protectedPathPatterns,
} from "./platform/contract/protected-paths.ts";

const optionalString = z.string().min(1).optional();
const optionalUrl = z.url().optional();
const csv = z.string().transform((s) =>
  s.split(",").map((part) => part.trim()).filter((part) => part.length > 0)
);

/** `*` or a web origin exactly as a browser sends it in `Origin` (no path, no trailing slash). */
function isOriginOrAny(entry: string): boolean {
  if (entry === "*") return true;
  try {
    const url = new URL(entry);
    return /^https?:$/.test(url.protocol) && url.origin === entry;
  } catch {
    return false;
  }
}

/** DESIGN 3.1 plus the variables later issues add. Order is the order of the docs. */
export const SERVICE_VARIABLES = {
  PORT: variable({
    defaultText: "4000",
    description: "Listen port; `0` picks a free port, logged as `listening` with `port`.",
    schema: integer(0, 65535).default(4000),
  }),
  HOST: variable({
    defaultText: "0.0.0.0",
    description: "Listen address.",
    schema: z.string().min(1).default("0.0.0.0"),
  }),
  DATA_DIR: variable({
    defaultText: "./data",
    description:
      "Embedded database (`DATA_DIR/pg`) and other local state. Opened by one process at a time: the holder locks `DATA_DIR/data-dir.lock`, and a second `serve`, `migrate` or `demo-data` on it exits 1 naming the holder (docs/deployment.md).",
    schema: z.string().min(1).default("./data"),
  }),
  DATABASE_URL: variable({
    description: "PostgreSQL connection URL; unset = embedded PGlite under `DATA_DIR/pg`.",
    schema: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    secret: "url",
  }),
  DATABASE_DIRECT_URL: variable({
    description:
      "Set only when `DATABASE_URL` goes through a transaction pooler (PgBouncer `pool_mode = transaction`): the PostgreSQL server's own URL. LISTEN (job wake-ups) and migrations use it, one connection per instance; `DATABASE_URL` then runs without prepared statements or start-up settings. See docs/deployment.md.",
    schema: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    secret: "url",
  }),
  DATABASE_POOL_SIZE: variable({
    defaultText: "10",
    description:
      "Connections per instance to PostgreSQL (embedded mode always uses 1). Keep N instances x pool under the server's limit (25 on small tiers).",
    schema: integer(1, 100).default(10),
  }),
  DATABASE_CONNECT_TIMEOUT_MS: variable({
    defaultText: "3000",
    description:
      "How long opening a database connection may take before the request fails with `SERVICE_UNAVAILABLE` (HTTP 503).",
    schema: integer(100, 600_000).default(3000),
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: variable({
    defaultText: "5000",
    description:
      "Longest a statement may run: the server's `statement_timeout`, and on the client (plus 1 s) the bound on every awaited statement including the wait for a pool connection, so a stopped server answers `SERVICE_UNAVAILABLE` (503) instead of hanging. Migrations are exempt.",
    schema: integer(100, 3_600_000).default(5000),
  }),
  REDIS_URL: variable({
    description: "Redis URL for rate limits and pub/sub fan-out; unset = in-process store.",
    schema: z.url({ protocol: /^rediss?$/ }).optional(),
    secret: "url",
  }),
  REDIS_KEY_PREFIX: variable({
    defaultText: "goals:",
    description:
      "Prepended to every Redis key and pub/sub channel, so deployments sharing one Redis (pub/sub ignores the database index) never see each other's counters, persisted queries or events. Printable ASCII without spaces, at most 64 characters.",
    schema: z.string().max(64).regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .default("goals:"),
  }),
  REDIS_CONNECT_TIMEOUT_MS: variable({
    defaultText: "2000",
    description: "How long opening the Redis connection may take.",
    schema: integer(100, 600_000).default(2000),
  }),
  REDIS_COMMAND_TIMEOUT_MS: variable({
    defaultText: "2000",
    description:
      "Longest a Redis command may wait for its reply (queued while reconnecting included); then the request answers `SERVICE_UNAVAILABLE` (503), or a fail-open rate limit lets it through.",
    schema: integer(50, 600_000).default(2000),
  }),
  AUTH_JWKS_URL: variable({
    description: "Identity provider's JWKS; unset = every authenticated request is 401.",
    schema: optionalUrl,
  }),
  AUTH_ISSUER: variable({
    description: "When set, the JWT `iss` must equal it.",
    schema: optionalString,
  }),
  AUTH_AUDIENCE: variable({
    description: "When set, the JWT `aud` must contain it.",
    schema: optionalString,
  }),
  ADMIN_SUBJECTS: variable({
    description: "Comma-separated JWT `sub` values that hold the `admin` permission.",
    schema: csv.default([]),
  }),
  FALLBACK_AUTH_SECRET: secretVariable({
    description:
      "Enables fallback tokens (HS256, `iss` = `fallback`, admins only, at most 12 h), signed with it.",
  }),
  DEV_AUTH: variable({
    defaultText: "off",
    description:
      "`on`: development sign-in for trying the service without an identity provider: tokens for any subject, minted by `main.ts dev-token` with the key pair kept in `DATA_DIR/dev-auth-key.json`, are accepted; a warning is logged at start. Refused (exit 2) with `DEPLOY_ENV=production` or with `AUTH_JWKS_URL` set. See docs/auth.md.",
    schema: z.enum(["on", "off"]).default("off"),
  }),
  DEPLOY_ENV: variable({
    description:
      "What this deployment is: `development`, `staging` or `production`. Set `production` in production: it refuses settings meant for trying the service (`DEV_AUTH=on`).",
    schema: z.enum(["development", "staging", "production"]).optional(),
  }),
  WORKFORCE_WEBHOOK_SECRET: secretVariable({
    description:
      "HMAC key for `X-Workforce-Signature` (runner webhook and integrations), the runner's `WEBHOOK_SECRET`; unset = those endpoints answer 401. Signs the calls to the runner and verifies the calls the service receives.",
    shorterAccepted: 1,
  }),
  WORKFORCE_WEBHOOK_SECRET_NEXT: secretVariable({
    description:
      "During a rotation of `WORKFORCE_WEBHOOK_SECRET`: a second key the service also accepts on `X-Workforce-Signature` (the runner webhook and the integrations); it never signs. Needs `WORKFORCE_WEBHOOK_SECRET`. Unset when no rotation is under way (docs/runbook.md, rotating the workforce webhook secret).",
    shorterAccepted: 1,
  }),
  BILLING_WEBHOOK_SECRET: secretVariable({
    description: "Expected `Authorization` value on the billing webhook; unset = 401.",
    shorterAccepted: 1,
  }),
  BILLING_ENVIRONMENT: variable({
    defaultText: "PRODUCTION",
    description:
      "The billing provider's store environment this backend serves (`PRODUCTION` or `SANDBOX`); events of the other one are recorded with outcome `other_environment` and change no tier.",
    schema: z.enum(["PRODUCTION", "SANDBOX"]).default("PRODUCTION"),
  }),
  RUNNER_URL: variable({
    description: "Agent runner base URL.",
    schema: optionalUrl,
  }),
  LLM_BASE_URL: variable({
    description:
      "OpenAI-compatible LLM proxy; unset = AI features answer `AI_DISABLED` and `checks.litellm` is `ok` / `not configured`.",
    schema: optionalUrl,
  }),
  LLM_TIMEOUT_MS: variable({
    defaultText: "20000",
    description: "Bound on one call to the LLM proxy (one retry follows a timeout).",
    schema: integer(100, 600_000).default(20_000),
  }),
  HTTP_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "Bound on every other outbound HTTP call: the agent runner, the chat webhook, GitHub delivery, the OIDC token endpoint.",
    schema: integer(100, 600_000).default(10_000),
  }),
  LLM_API_KEY: variable({
    description:
      "Key for the LLM proxy: the bearer, or with `LLM_AUTH_MODE=oidc` the `x-litellm-api-key` header.",
    schema: optionalString,
    secret: true,
  }),
  RUNNER_AUTH_MODE: variable({
    defaultText: "secret",
    description:
      "`secret`: the HMAC signature alone authenticates calls to the runner. `oidc`: they also carry `Authorization: Bearer <identity token>` from `OIDC_TOKEN_URL`, audience the origin of `RUNNER_URL` (spec 5.8; the runner's `AUTH_MODE=oidc` requires it).",
    schema: z.enum(["secret", "oidc"]).default("secret"),
  }),
  LLM_AUTH_MODE: variable({
    description:
      "`oidc`: calls to the LLM proxy carry an identity token (audience: the origin of `LLM_BASE_URL`) as the bearer and `LLM_API_KEY` in `x-litellm-api-key`; unset: `LLM_API_KEY` is the bearer.",
    schema: z.enum(["oidc"]).optional(),
  }),
  OIDC_TOKEN_URL: variable({
    defaultText: DEFAULT_OIDC_TOKEN_URL,
    description:
      "Metadata endpoint that answers `GET ?audience=...` (header `Metadata-Flavor: Google`) with an identity token; used by `RUNNER_AUTH_MODE=oidc` and `LLM_AUTH_MODE=oidc`.",
    schema: z.url({ protocol: /^https?$/ }).default(DEFAULT_OIDC_TOKEN_URL),
  }),
  AI_FLAGS: variable({
    defaultText: "coaching,moderation,batch",
    description: "Enabled AI feature flags (an admin can override each in the database).",
    schema: csv.default(["coaching", "moderation", "batch"]),
  }),
  AI_MONTHLY_BUDGET_USD: variable({
    defaultText: "500",
    description: "Whole-workforce monthly AI budget; alerts at 80% and 100%.",
    schema: z.coerce.number().positive().default(500),
  }),
  BACKUP_DIR: variable({
    defaultText: "`DATA_DIR/backups`",
    description:
      'Folder of the backups the service makes (scheduled, the console\'s "Back up now", `main.ts backup`): gzipped JSON lines that `main.ts restore` loads into an embedded or a PostgreSQL database (docs/deployment.md, "Backups").',
    schema: z.string().min(1).optional(),
  }),
  BACKUP_INTERVAL_HOURS: variable({
    defaultText: "24 with the embedded database, 0 with `DATABASE_URL`",
    description:
      "Hours between scheduled backups; 0 turns them off (with PostgreSQL its own backups usually serve, docs/runbook.md).",
    schema: integer(0, 24 * 365).optional(),
  }),
  BACKUP_KEEP: variable({
    defaultText: "7",
    description:
      "How many backups `BACKUP_DIR` keeps: after each new one, the oldest beyond this count are removed.",
    schema: integer(1, 10_000).default(7),
  }),
  SIDEKIQ_DEAD_THRESHOLD: variable({
    defaultText: "25",
    description: "Dead-job count above which the job-queue health check is `degraded`.",
    schema: integer(0, 1_000_000).default(25),
  }),
  JOB_CONCURRENCY: variable({
    defaultText: "4",
    description: "Jobs one instance runs at once (0 disables the worker on this instance).",
    schema: integer(0, 256).default(4),
  }),
  JOB_LOCK_TIMEOUT_MS: variable({
    defaultText: "60000",
    description:
      "A running job's lock is refreshed every quarter of this; a job whose lock is older (its instance crashed or hung) is run again by another instance. Instances' clocks must agree to well within it.",
    schema: integer(1_000, 3_600_000).default(60_000),
  }),
  JOB_LOCAL_QUEUE_SIZE: variable({
    defaultText: "4 × JOB_CONCURRENCY",
    description:
      "Jobs a worker claims ahead of its free slots, in the same statement, and keeps locked in a local queue so a freed slot starts the next job without a database round trip; refilled once fewer wait than JOB_CONCURRENCY, handed back after waiting half of JOB_LOCK_TIMEOUT_MS and at shutdown. 0 claims only for free slots.",
    schema: integer(0, 10_000).optional(),
  }),
  CHAT_WEBHOOK_URL: variable({
    description: "Alert and report destination (a Slack-compatible incoming webhook).",
    schema: optionalUrl,
    secret: true,
  }),
  CHAT_WEBHOOK_ALLOWED_HOST: variable({
    defaultText: "hooks.slack.com",
    description: "The only host a chat post may go to.",
    schema: z.string().min(1).default("hooks.slack.com"),
  }),
  GITHUB_TOKEN: variable({
    description: "Token for pull-request and commit delivery.",
    schema: optionalString,
    secret: true,
  }),
  GITHUB_REPO: variable({
    description: "`owner/name` of the delivery repository.",
    schema: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name").optional(),
  }),
  GITHUB_API_URL: variable({
    defaultText: "https://api.github.com",
    description: "GitHub REST API base URL.",
    schema: z.url().default("https://api.github.com"),
  }),
  PROTECTED_PATHS: variable({
    description:
      `Comma-separated paths a \`code_patch\` may not touch, added to the default list (${
        DEFAULT_PROTECTED_PATHS.map((p) => `\`${p}\``).join(", ")
      }). A pattern ending in \`/\` is a folder at the repository's root, one without \`/\` a file name at any depth, any other one path from the root; \`*\` matches within a path segment; case is ignored. Delivery refuses such a patch and the review board shows it (docs/delivery.md); the runner reads a variable of the same name.`,
    schema: z.string().optional().transform((extra) => protectedPathPatterns(extra)),
  }),
  SANDBOX_IMAP_URL: variable({
    description:
      "Sandbox inbox for email drafts, `imaps://user:pass@host:port/Drafts` (drafts are never sent).",
    schema: z.url({ protocol: /^imaps?$/ }).optional(),
    secret: "url",
  }),
  ERROR_TRACKER_DSN: variable({
    description: "Sentry-compatible DSN; unset = unhandled errors and warnings are only logged.",
    schema: optionalUrl,
    secret: "url",
  }),
  ADMIN_BASE_URL: variable({
    defaultText: "http://localhost:4000/admin",
    description: "Base of `admin_url` links.",
    schema: z.url().default("http://localhost:4000/admin"),
  }),
  ADMIN_SIGN_IN_URL: variable({
    description:
      "The identity provider's hosted sign-in page that returns to `/admin/sign-in#token=<JWT>`; the admin console offers it as a link next to pasting a token. Unset = no link. An `http`/`https` URL; it is shown to visitors, so it must carry nothing secret.",
    schema: z.url({ protocol: /^https?$/ }).optional(),
  }),
  GRAPHQL_EXPLORER: variable({
    defaultText: "on",
    description:
      "`on`: GraphiQL at `GET /graphql` (served offline, no CDN) and introspection without a session token. `off` (production): no GraphiQL, and introspection only for signed-in callers.",
    schema: z.enum(["on", "off"]).default("on"),
  }),
  CORS_ALLOWED_ORIGINS: variable({
    description:
      "Comma-separated origins (`https://app.example.com`, exactly as browsers send `Origin`) whose pages may call `/graphql` with `SessionToken`: preflights are answered (methods `GET`, `POST`; cached 2 h) and answers carry `Access-Control-Allow-Origin` and `Vary: Origin`. `*` allows every origin. Never with credentials (sessions are a header, not a cookie). Unset = no CORS headers: only same-origin pages and non-browser clients.",
    schema: csv.pipe(
      z.array(
        z.string().refine(
          isOriginOrAny,
          "each entry must be * or an origin such as https://app.example.com (no path)",
        ),
      ),
    ).default([]),
  }),
  RATE_LIMIT_USER_PER_MINUTE: variable({
    defaultText: "600",
    description:
      "GraphQL requests (a batch counts once) one signed-in user may make per minute, across all instances (counted in `REDIS_URL`'s store); over it, HTTP 429 with `Retry-After` and code `RATE_LIMITED`. 0 = no limit.",
    schema: integer(0, 1_000_000).default(600),
  }),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: variable({
    defaultText: "300",
    description:
      "Requests per minute from one client address without a valid session: anonymous GraphQL (`publicGoal`, `teamInvitePreview`), refused session tokens and the admin console's pages (sign-in). Same answer as above. 0 = no limit.",
    schema: integer(0, 1_000_000).default(300),
  }),
  TRUST_PROXY_HOPS: variable({
    defaultText: "0",
    description:
      "Proxies (load balancers) in front of the service that append to `X-Forwarded-For`. 0: the socket's peer is the client and the header is ignored. N: the client is the Nth address from the right of `X-Forwarded-For`; set it only when the service is reachable through those proxies alone.",
    schema: integer(0, 10).default(0),
  }),
  METRICS_TOKEN: secretVariable({
    description:
      "Bearer token for `GET /metrics` (Prometheus text format) on the service's port: a scrape sends `Authorization: Bearer <token>`. Unset, and with `METRICS_PORT` unset, no metrics are served (docs/observability.md).",
    shorterAccepted: 16,
  }),
  ...METRICS_LISTENER_VARIABLES,
  LOG_LEVEL: variable({
    defaultText: "info",
    description: "Lowest level written: `debug`, `info`, `warn` or `error`.",
    schema: z.enum(["debug", "info", "warn", "error"]).default("info"),
  }),
  SHUTDOWN_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long running jobs may take to finish before they are released to another instance (the attempt counts).",
    schema: integer(0, 600_000).default(10_000),
  }),
  SHUTDOWN_DRAIN_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long in-flight HTTP requests (uploads included) may take to finish; runs alongside the job grace, not after it.",
    schema: integer(0, 600_000).default(10_000),
  }),
} as const;

type Vars = typeof SERVICE_VARIABLES;
type Parsed = { [K in keyof Vars]: z.output<Vars[K]["schema"]> };

/** The typed service configuration. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Where backups go, how often they are made (0: never on a schedule), how many are kept. */
  backupDir: string;
  backupIntervalHours: number;
  backupKeep: number;
  databaseUrl?: string;
  /** `DATABASE_DIRECT_URL`: set when `databaseUrl` is a transaction pooler. */
  databaseDirectUrl?: string;
  databasePoolSize: number;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  redisUrl?: string;
  /** `REDIS_KEY_PREFIX`: before every Redis key and channel. */
  redisKeyPrefix: string;
  redisConnectTimeoutMs: number;
  redisCommandTimeoutMs: number;
  authJwksUrl?: string;
  authIssuer?: string;
  authAudience?: string;
  adminSubjects: string[];
  fallbackAuthSecret?: string;
  /** `DEV_AUTH=on`: development tokens (`src/graphql/dev-auth.ts`) are accepted. */
  devAuth: boolean;
  deployEnv?: "development" | "staging" | "production";
  workforceWebhookSecret?: string;
  /** `WORKFORCE_WEBHOOK_SECRET_NEXT`: also accepted on signed requests while a rotation runs. */
  workforceWebhookSecretNext?: string;
  billingWebhookSecret?: string;
  billingEnvironment: "PRODUCTION" | "SANDBOX";
  /** GraphiQL and anonymous introspection (`GRAPHQL_EXPLORER`). */
  graphqlExplorer: boolean;
  runnerUrl?: string;
  llmBaseUrl?: string;
  llmApiKey?: string;
  llmTimeoutMs: number;
  /** Bound on outbound HTTP other than the LLM's (`HTTP_TIMEOUT_MS`). */
  httpTimeoutMs: number;
  runnerAuthMode: "secret" | "oidc";
  llmAuthMode?: "oidc";
  oidcTokenUrl: string;
  aiFlags: string[];
  aiMonthlyBudgetUsd: number;
  sidekiqDeadThreshold: number;
  jobConcurrency: number;
  jobLockTimeoutMs: number;
  jobLocalQueueSize?: number;
  chatWebhookUrl?: string;
  chatWebhookAllowedHost: string;
  githubToken?: string;
  githubRepo?: string;
  githubApiUrl: string;
  /** The paths a `code_patch` may not touch: the default list plus `PROTECTED_PATHS`. */
  protectedPaths: string[];
  sandboxImapUrl?: string;
  errorTrackerDsn?: string;
  adminBaseUrl: string;
  /** The identity provider's sign-in page for the admin console; undefined when not configured. */
  adminSignInUrl?: string;
  /** `CORS_ALLOWED_ORIGINS`: origins (or `*`) allowed to call `/graphql` from a browser. */
  corsAllowedOrigins: string[];
  rateLimitUserPerMinute: number;
  rateLimitAnonymousPerMinute: number;
  /** `TRUST_PROXY_HOPS`: proxies whose `X-Forwarded-For` entries are believed. */
  trustProxyHops: number;
  /** `METRICS_TOKEN`: bearer for `/metrics` on the service's port; undefined = not served there. */
  metricsToken?: string;
  /** `METRICS_PORT`: a separate `/metrics` listener; undefined = none. */
  metricsPort?: number;
  metricsHost: string;
  logLevel: "debug" | "info" | "warn" | "error";
  shutdownTimeoutMs: number;
  shutdownDrainMs: number;
  /**
   * Secrets set shorter than `SECRET_MIN_LENGTH` where that is still accepted (by name): the
   * service warns about each at start-up.
   */
  shortSecrets: string[];
}

/**
 * The keys `X-Workforce-Signature` on a request to the service verifies with: the current secret
 * and, while a rotation runs, `WORKFORCE_WEBHOOK_SECRET_NEXT` (docs/runbook.md).
 */
export function workforceVerificationKeys(
  config: Pick<Config, "workforceWebhookSecret" | "workforceWebhookSecretNext">,
): (string | undefined)[] {
  return [config.workforceWebhookSecret, config.workforceWebhookSecretNext];
}

/** Parses the service configuration from an environment map. Throws {@link ConfigError}. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const v: Parsed = parseVariables(SERVICE_VARIABLES, env);
  if (v.DEV_AUTH === "on") refuseDevAuthInProduction(v);
  if (v.WORKFORCE_WEBHOOK_SECRET_NEXT && !v.WORKFORCE_WEBHOOK_SECRET) {
    throw new ConfigError(
      "WORKFORCE_WEBHOOK_SECRET_NEXT",
      "needs WORKFORCE_WEBHOOK_SECRET (the current key, which signs); the next key only verifies",
    );
  }
  if (v.DATABASE_DIRECT_URL && !v.DATABASE_URL) {
    throw new ConfigError(
      "DATABASE_DIRECT_URL",
      "needs DATABASE_URL (the pooler it bypasses); the embedded database has no pooler",
    );
  }
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir: v.DATA_DIR,
    backupDir: v.BACKUP_DIR ?? `${v.DATA_DIR.replace(/\/+$/, "")}/backups`,
    backupIntervalHours: v.BACKUP_INTERVAL_HOURS ?? (v.DATABASE_URL ? 0 : 24),
    backupKeep: v.BACKUP_KEEP,
    databaseUrl: v.DATABASE_URL,
    databaseDirectUrl: v.DATABASE_DIRECT_URL,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: v.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    redisConnectTimeoutMs: v.REDIS_CONNECT_TIMEOUT_MS,
    redisCommandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
    authJwksUrl: v.AUTH_JWKS_URL,
    authIssuer: v.AUTH_ISSUER,
    authAudience: v.AUTH_AUDIENCE,
    adminSubjects: v.ADMIN_SUBJECTS,
    fallbackAuthSecret: v.FALLBACK_AUTH_SECRET,
    devAuth: v.DEV_AUTH === "on",
    deployEnv: v.DEPLOY_ENV,
    workforceWebhookSecret: v.WORKFORCE_WEBHOOK_SECRET,
    workforceWebhookSecretNext: v.WORKFORCE_WEBHOOK_SECRET_NEXT,
    billingWebhookSecret: v.BILLING_WEBHOOK_SECRET,
    billingEnvironment: v.BILLING_ENVIRONMENT,
    graphqlExplorer: v.GRAPHQL_EXPLORER === "on",
    runnerUrl: v.RUNNER_URL,
    llmBaseUrl: v.LLM_BASE_URL,
    llmApiKey: v.LLM_API_KEY,
    llmTimeoutMs: v.LLM_TIMEOUT_MS,
    httpTimeoutMs: v.HTTP_TIMEOUT_MS,
    runnerAuthMode: v.RUNNER_AUTH_MODE,
    llmAuthMode: v.LLM_AUTH_MODE,
    oidcTokenUrl: v.OIDC_TOKEN_URL,
    aiFlags: v.AI_FLAGS,
    aiMonthlyBudgetUsd: v.AI_MONTHLY_BUDGET_USD,
    sidekiqDeadThreshold: v.SIDEKIQ_DEAD_THRESHOLD,
    jobConcurrency: v.JOB_CONCURRENCY,
    jobLockTimeoutMs: v.JOB_LOCK_TIMEOUT_MS,
    jobLocalQueueSize: v.JOB_LOCAL_QUEUE_SIZE,
    chatWebhookUrl: v.CHAT_WEBHOOK_URL,
    chatWebhookAllowedHost: v.CHAT_WEBHOOK_ALLOWED_HOST,
    githubToken: v.GITHUB_TOKEN,
    githubRepo: v.GITHUB_REPO,
    githubApiUrl: v.GITHUB_API_URL,
    protectedPaths: v.PROTECTED_PATHS,
    sandboxImapUrl: v.SANDBOX_IMAP_URL,
    errorTrackerDsn: v.ERROR_TRACKER_DSN,
    adminBaseUrl: v.ADMIN_BASE_URL,
    adminSignInUrl: v.ADMIN_SIGN_IN_URL,
    corsAllowedOrigins: v.CORS_ALLOWED_ORIGINS,
    rateLimitUserPerMinute: v.RATE_LIMIT_USER_PER_MINUTE,
    rateLimitAnonymousPerMinute: v.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    trustProxyHops: v.TRUST_PROXY_HOPS,
    metricsToken: v.METRICS_TOKEN,
    metricsPort: v.METRICS_PORT,
    metricsHost: v.METRICS_HOST,
    logLevel: v.LOG_LEVEL,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: v.SHUTDOWN_DRAIN_MS,
    shortSecrets: shortSecrets(SERVICE_VARIABLES, env),
  };
}

/**
 * Development sign-in lets anyone who can run `main.ts dev-token` on the data act as any user, so
 * it never starts beside a production marker: `DEPLOY_ENV=production`, or a real identity provider.
 */
function refuseDevAuthInProduction(v: Parsed): void {
  if (v.DEPLOY_ENV === "production") {
    throw new ConfigError(
      "DEV_AUTH",
      "on is refused with DEPLOY_ENV=production (development sign-in never runs in production)",
    );
  }
  if (v.AUTH_JWKS_URL) {
    throw new ConfigError(
      "DEV_AUTH",
      "on is refused with AUTH_JWKS_URL set (development sign-in is for instances without an identity provider)",
    );
  }
}
