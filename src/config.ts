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
import type { z } from "zod";
import { ConfigError, parseVariables, shortSecrets } from "./platform/env.ts";
import { AUTH_VARIABLES } from "./config/auth.ts";
import { BACKGROUND_VARIABLES } from "./config/background.ts";
import { DELIVERY_VARIABLES } from "./config/delivery.ts";
import { HTTP_VARIABLES } from "./config/http.ts";
import { PUSH_VARIABLES } from "./config/push.ts";
import { RETENTION_VARIABLES } from "./config/retention.ts";
import { SERVICE_LINK_VARIABLES } from "./config/services.ts";
import { STORAGE_VARIABLES } from "./config/storage.ts";
import type { EdgeLimits } from "./platform/edge/limits.ts";

/** DESIGN 3.1 plus the variables later issues add. Order is the order of the docs. */
export const SERVICE_VARIABLES = {
  ...STORAGE_VARIABLES,
  ...AUTH_VARIABLES,
  ...SERVICE_LINK_VARIABLES,
  ...BACKGROUND_VARIABLES,
  ...RETENTION_VARIABLES,
  ...DELIVERY_VARIABLES,
  ...PUSH_VARIABLES,
  ...HTTP_VARIABLES,
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
  /** `AUTH_TOKEN_MAX_AGE_SECONDS`: the oldest session token accepted, from its `iat`; unset: each kind's cap. */
  authTokenMaxAgeSeconds?: number;
  /** `DEV_AUTH=on`: development tokens (`src/graphql/dev-auth.ts`) are accepted. */
  devAuth: boolean;
  deployEnv?: "development" | "staging" | "production";
  workforceWebhookSecret?: string;
  /** `WORKFORCE_WEBHOOK_SECRET_NEXT`: also accepted on signed requests while a rotation runs. */
  workforceWebhookSecretNext?: string;
  billingWebhookSecret?: string;
  billingEnvironment: "PRODUCTION" | "SANDBOX";
  /** GraphiQL and anonymous introspection (`GRAPHQL_EXPLORER`; off by default in production). */
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
  /** `FAN_OUT_BATCH_SIZE`: recipients per batch of an announcement or reminder. */
  fanOutBatchSize: number;
  /** Days rows of the tables that only grow are kept (`*_RETENTION_DAYS`); 0 keeps them. */
  retention: RetentionConfig;
  chatWebhookUrl?: string;
  chatWebhookAllowedHost: string;
  githubToken?: string;
  githubRepo?: string;
  githubApiUrl: string;
  /** The paths a `code_patch` may not touch: the default list plus `PROTECTED_PATHS`. */
  protectedPaths: string[];
  /** `APPROVAL_UNDO_SECONDS`: how long an admin's approval waits before delivery starts. */
  approvalUndoSeconds: number;
  sandboxImapUrl?: string;
  errorTrackerDsn?: string;
  adminBaseUrl: string;
  /** The identity provider's sign-in page for the admin console; undefined when not configured. */
  adminSignInUrl?: string;
  /** `CORS_ALLOWED_ORIGINS`: origins (or `*`) allowed to call `/graphql` from a browser. */
  corsAllowedOrigins: string[];
  rateLimitUserPerMinute: number;
  rateLimitAnonymousPerMinute: number;
  rateLimitStoreWaitMs: number;
  /** `TRUST_PROXY_HOPS`: proxies whose `X-Forwarded-For` entries are believed. */
  trustProxyHops: number;
  /** The bounds on each client connection (`HTTP_*`); no cap per address behind proxies. */
  edge: EdgeLimits;
  /** `HTTP_BODY_TIMEOUT_MS`: time a request body has to arrive whole (0: unbounded). */
  httpBodyTimeoutMs: number;
  /** `/cable` sockets per signed-in user and per client address (0: no cap). */
  cableMaxPerUser: number;
  cableMaxPerAddress: number;
  /** `METRICS_TOKEN`: bearer for `/metrics` on the service's port; undefined = not served there. */
  metricsToken?: string;
  /** `METRICS_PORT`: a separate `/metrics` listener; undefined = none. */
  metricsPort?: number;
  metricsHost: string;
  logLevel: "debug" | "info" | "warn" | "error";
  shutdownTimeoutMs: number;
  shutdownDrainMs: number;
  /** Push notifications: each platform when configured (docs/notifications.md). */
  push: PushConfig;
  /**
   * Secrets set shorter than `SECRET_MIN_LENGTH` where that is still accepted (by name): the
   * service warns about each at start-up.
   */
  shortSecrets: string[];
}

/** How long rows are kept, in days; 0 keeps them forever (docs/runbook.md, "Retention"). */
export interface RetentionConfig {
  /** `FEED_RETENTION_DAYS`: feed items, by when their activity happened. */
  feedDays: number;
  /** `AI_RUN_LOG_RETENTION_DAYS`: AI runs' traces, by when the run ended. */
  aiRunLogDays: number;
  /** `NOTIFICATIONS_READ_RETENTION_DAYS`: read notifications, by when they were sent. */
  readNotificationDays: number;
  /** `JOBS_DEAD_RETENTION_DAYS`: dead jobs, by when they died. */
  deadJobDays: number;
  /** `JOBS_DEAD_MAX`: the most dead jobs kept (the newest). */
  deadJobMax: number;
}

/** The push platforms the service is configured for; a platform left out is off. */
export interface PushConfig {
  web?: { publicKey: string; privateKey: string; subject: string };
  /** `WEB_PUSH_ALLOWED_HOSTS`: hosts a Web Push endpoint may name (`*.` allows subdomains). */
  webAllowedHosts: string[];
  apns?: { key: string; keyId: string; teamId: string; topic: string; url: string };
  fcm?: {
    apiUrl: string;
    account: { project_id: string; client_email: string; private_key: string; token_uri?: string };
  };
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
    authTokenMaxAgeSeconds: v.AUTH_TOKEN_MAX_AGE_SECONDS,
    devAuth: v.DEV_AUTH === "on",
    deployEnv: v.DEPLOY_ENV,
    workforceWebhookSecret: v.WORKFORCE_WEBHOOK_SECRET,
    workforceWebhookSecretNext: v.WORKFORCE_WEBHOOK_SECRET_NEXT,
    billingWebhookSecret: v.BILLING_WEBHOOK_SECRET,
    billingEnvironment: v.BILLING_ENVIRONMENT,
    // A production deployment does not advertise its schema unless its operator says so.
    graphqlExplorer:
      (v.GRAPHQL_EXPLORER ?? (v.DEPLOY_ENV === "production" ? "off" : "on")) === "on",
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
    fanOutBatchSize: v.FAN_OUT_BATCH_SIZE,
    retention: {
      feedDays: v.FEED_RETENTION_DAYS,
      aiRunLogDays: v.AI_RUN_LOG_RETENTION_DAYS,
      readNotificationDays: v.NOTIFICATIONS_READ_RETENTION_DAYS,
      deadJobDays: v.JOBS_DEAD_RETENTION_DAYS,
      deadJobMax: v.JOBS_DEAD_MAX,
    },
    chatWebhookUrl: v.CHAT_WEBHOOK_URL,
    chatWebhookAllowedHost: v.CHAT_WEBHOOK_ALLOWED_HOST,
    githubToken: v.GITHUB_TOKEN,
    githubRepo: v.GITHUB_REPO,
    githubApiUrl: v.GITHUB_API_URL,
    protectedPaths: v.PROTECTED_PATHS,
    approvalUndoSeconds: v.APPROVAL_UNDO_SECONDS,
    sandboxImapUrl: v.SANDBOX_IMAP_URL,
    errorTrackerDsn: v.ERROR_TRACKER_DSN,
    adminBaseUrl: v.ADMIN_BASE_URL,
    adminSignInUrl: v.ADMIN_SIGN_IN_URL,
    corsAllowedOrigins: v.CORS_ALLOWED_ORIGINS,
    rateLimitUserPerMinute: v.RATE_LIMIT_USER_PER_MINUTE,
    rateLimitAnonymousPerMinute: v.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    rateLimitStoreWaitMs: v.RATE_LIMIT_STORE_WAIT_MS,
    trustProxyHops: v.TRUST_PROXY_HOPS,
    edge: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      idleTimeoutMs: v.HTTP_IDLE_TIMEOUT_MS,
      // Behind proxies every connection comes from one of them.
      maxConnectionsPerAddress: v.TRUST_PROXY_HOPS > 0 ? 0 : v.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
      maxConnections: v.HTTP_MAX_CONNECTIONS,
    },
    httpBodyTimeoutMs: v.HTTP_BODY_TIMEOUT_MS,
    cableMaxPerUser: v.CABLE_MAX_CONNECTIONS_PER_USER,
    cableMaxPerAddress: v.CABLE_MAX_CONNECTIONS_PER_ADDRESS,
    metricsToken: v.METRICS_TOKEN,
    metricsPort: v.METRICS_PORT,
    metricsHost: v.METRICS_HOST,
    logLevel: v.LOG_LEVEL,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: v.SHUTDOWN_DRAIN_MS,
    push: pushConfig(v),
    shortSecrets: shortSecrets(SERVICE_VARIABLES, env),
  };
}

/** A platform is on when all its variables are set; some but not all is a mistake, refused. */
function allOrNone<T>(names: string[], values: unknown[], build: () => T): T | undefined {
  const set = values.filter((value) => value !== undefined).length;
  if (set === 0) return undefined;
  if (set < values.length) {
    const missing = names.filter((_, i) => values[i] === undefined);
    throw new ConfigError(
      missing[0],
      `is needed with ${names.filter((n) => !missing.includes(n)).join(", ")} (set all of ${
        names.join(", ")
      } or none)`,
    );
  }
  return build();
}

function pushConfig(v: Parsed): PushConfig {
  return {
    web: allOrNone(
      ["WEB_PUSH_VAPID_PUBLIC_KEY", "WEB_PUSH_VAPID_PRIVATE_KEY", "WEB_PUSH_SUBJECT"],
      [v.WEB_PUSH_VAPID_PUBLIC_KEY, v.WEB_PUSH_VAPID_PRIVATE_KEY, v.WEB_PUSH_SUBJECT],
      () => ({
        publicKey: v.WEB_PUSH_VAPID_PUBLIC_KEY!,
        privateKey: v.WEB_PUSH_VAPID_PRIVATE_KEY!,
        subject: v.WEB_PUSH_SUBJECT!,
      }),
    ),
    webAllowedHosts: v.WEB_PUSH_ALLOWED_HOSTS,
    apns: allOrNone(
      ["APNS_KEY", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC"],
      [v.APNS_KEY, v.APNS_KEY_ID, v.APNS_TEAM_ID, v.APNS_TOPIC],
      () => ({
        key: v.APNS_KEY!,
        keyId: v.APNS_KEY_ID!,
        teamId: v.APNS_TEAM_ID!,
        topic: v.APNS_TOPIC!,
        url: v.APNS_URL,
      }),
    ),
    fcm: v.FCM_SERVICE_ACCOUNT
      ? { apiUrl: v.FCM_API_URL, account: v.FCM_SERVICE_ACCOUNT }
      : undefined,
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
