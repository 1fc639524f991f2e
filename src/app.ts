/**
 * The composition root: builds the service from its dependencies and mounts the routes.
 *
 * Everything the service touches arrives in {@link Deps}, so a test builds the app with its own
 * database, store, clock, logger and fakes.
 */
import type { Config } from "./config.ts";
import type { Database } from "./platform/db.ts";
import type { KvStore } from "./platform/kv.ts";
import type { Logger } from "./platform/log.ts";
import type { Clock } from "./platform/clock.ts";
import type { ErrorTracker } from "./platform/errors.ts";
import { createLlmClient } from "./platform/llm.ts";
import { createPubSub } from "./platform/pubsub.ts";
import { createPushProviders } from "./platform/push/mod.ts";
import { createTokenSource } from "./platform/oidc.ts";
import {
  BodyTooLargeError,
  DEFAULT_BODY_LIMIT,
  errorResponse,
  readBoundedBody,
} from "./platform/contract/mod.ts";
import { requestErrorResponse } from "./graphql/responses.ts";

import { createJobSystem, type JobSystem } from "./platform/jobs/index.ts";
import { observeStatements } from "./platform/db.ts";
import { EMBEDDED_VACUUM_CRON, vacuumChangedTables } from "./platform/db/maintenance.ts";
import {
  countingFetch,
  type ServiceMetrics,
  unrecordedMetrics,
} from "./platform/service-metrics.ts";
import { nameServerSpan } from "./platform/tracing.ts";
import { metricsRoute } from "./http/metrics.ts";
import { observeOperations } from "./graphql/observability.ts";
import { createRouter, type Route } from "./http/router.ts";
import type { RequestContext } from "./http/context.ts";
import { compressResponse } from "./http/compression.ts";
import { createHandler } from "./http/handler.ts";
import { serviceHealth, upResponse } from "./http/health.ts";
import { createCorsPolicy } from "./http/cors.ts";
import { createRequestLimits, limitedByAddress } from "./http/request-limits.ts";
import { createTokenVerifier } from "./graphql/auth.ts";
import type { Viewer } from "./graphql/context.ts";
import type { GraphQLModule } from "./graphql/module.ts";
import { createGraphQLServer, type GraphQLLimits, type GraphQLServer } from "./graphql/server.ts";
import { type Cable, type CableLimits, createCable } from "./graphql/cable/mod.ts";
import type { Plugin } from "graphql-yoga";
import type { DomainEvents } from "./features/events.ts";
import { type Feature, registerBackgroundWork } from "./features/feature.ts";
import { adminFeature } from "./features/admin/mod.ts";
import { type AiRequestProcessor, aiRequestsFeature } from "./features/ai-requests/mod.ts";
import { badgesFeature } from "./features/badges/mod.ts";
import { billingFeature } from "./features/billing/mod.ts";
import { activityLedger, challengesFeature } from "./features/challenges/mod.ts";
import { coachingFeature } from "./features/coaching/mod.ts";
import { communitiesFeature } from "./features/communities/mod.ts";
import { feedFeature } from "./features/feed/mod.ts";
import { feedbackFeature } from "./features/feedback/mod.ts";
import { funnelFeature } from "./features/funnel/mod.ts";
import { goalsFeature } from "./features/goals/mod.ts";
import { jobsFeature } from "./features/jobs/mod.ts";
import { backupsFeature } from "./features/backups/mod.ts";
import { moodFeature } from "./features/mood/mod.ts";
import { notificationsFeature } from "./features/notifications/mod.ts";
import { safetyFeature } from "./features/safety/mod.ts";
import { partnersFeature } from "./features/partners/mod.ts";
import { type PersonalDataPart, privacyFeature } from "./features/privacy/mod.ts";
import { teamsFeature } from "./features/teams/mod.ts";
import { usersFeature } from "./features/users/mod.ts";
import { type DeliveryAdapters, workforceFeature } from "./features/workforce/mod.ts";

/** Where the GraphQL endpoint is served (spec 4). */
const GRAPHQL_PATH = "/graphql";

/** What the service is built from: a test passes its own database, store, clock and fakes. */
export interface Deps {
  config: Config;
  db: Database;
  kv: KvStore;
  log: Logger;
  clock: Clock;
  tracker: ErrorTracker;
  /** Outbound HTTP (health probes, webhooks, delivery adapters). */
  fetch: typeof fetch;
}

/** Extension points for tests (extra schema modules, plugins, limits, fakes). */
export interface AppOptions {
  extraModules?: GraphQLModule[];
  graphqlPlugins?: Plugin[];
  graphqlLimits?: Partial<GraphQLLimits>;
  cableLimits?: Partial<CableLimits>;
  /** Processors of async AI request kinds, by kind. */
  aiRequestProcessors?: Record<string, AiRequestProcessor>;
  /** Delivery destinations instead of the configured ones. */
  deliveryAdapters?: DeliveryAdapters;
  /** The metrics the app records (`createServiceMetrics`, src/platform/metrics.ts); without
   * them it records none, as an instance that serves no metrics needs none. */
  metrics?: ServiceMetrics;
}

export type Features = ReturnType<typeof buildFeatures>;

export interface App {
  deps: Deps;
  /** The app's Prometheus metrics (`GET /metrics`, docs/observability.md); recording nothing
   * unless given in {@link AppOptions}. */
  metrics: ServiceMetrics;
  jobs: JobSystem<DomainEvents>;
  graphql: GraphQLServer;
  /** Every feature as built, by name: their APIs are what tests and tools call. */
  features: Features;
  /** `WS /cable`: connection and subscription counts. */
  cable: Cable;
  /** The `Deno.serve` handler. */
  handler(req: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
  /** Starts background work (job worker, scheduler). */
  start(): Promise<void>;
  /** Marks the instance as stopping (`/up` answers 503) and stops background work. */
  stop(): Promise<void>;
  readonly shuttingDown: boolean;
}

/**
 * Builds every feature in dependency order, each from the narrow dependencies it declares and
 * the APIs of the features it calls.
 */
function buildFeatures(
  deps: Deps,
  jobs: JobSystem<DomainEvents>,
  options: AppOptions,
  metrics: ServiceMetrics,
) {
  const { config, db, kv, clock, log, tracker, fetch } = deps;
  const pubsub = createPubSub(kv);
  // Identity tokens for the OIDC hops (RUNNER_AUTH_MODE, LLM_AUTH_MODE), cached per audience.
  const tokens = createTokenSource({
    tokenUrl: config.oidcTokenUrl,
    fetch,
    clock,
    timeoutMs: config.httpTimeoutMs,
  });
  const llm = config.llmBaseUrl
    ? createLlmClient({
      baseUrl: config.llmBaseUrl,
      apiKey: config.llmApiKey,
      authMode: config.llmAuthMode,
      tokens,
      fetch,
      timeoutMs: config.llmTimeoutMs,
      metrics,
    })
    : null;
  const events = jobs;

  const users = usersFeature({ db, clock, kv, limitWaitMs: config.rateLimitStoreWaitMs });
  const feed = feedFeature({
    db,
    clock,
    log: log.child({ component: "feed" }),
    users: users.api,
    retentionDays: config.retention.feedDays,
  });
  const funnel = funnelFeature({ config, db, clock, tracker, users: users.api });
  const notifications = notificationsFeature({
    db,
    pubsub,
    jobs,
    clock,
    log: log.child({ component: "notifications" }),
    users: users.api,
    adminSubjects: config.adminSubjects,
    // Provider tokens are checked by the providers' clocks: they are signed with the real time.
    providers: createPushProviders(config.push, {
      fetch,
      timeoutMs: config.httpTimeoutMs,
      now: () => new Date(),
    }),
    webAllowedHosts: config.push.webAllowedHosts,
    webPushPublicKey: config.push.web?.publicKey ?? null,
    readRetentionDays: config.retention.readNotificationDays,
  });
  const badges = badgesFeature({ db, events, feed: feed.api, funnel: funnel.api });
  const goals = goalsFeature({
    db,
    clock,
    log,
    events,
    users: users.api,
    badges: badges.api,
    feed: feed.api,
    funnel: funnel.api,
    activity: activityLedger,
    notifications: notifications.api,
    jobs,
    fanOutBatchSize: config.fanOutBatchSize,
  });
  const mood = moodFeature({ db, clock, events, badges: badges.api });
  const coaching = coachingFeature({
    config,
    db,
    kv,
    clock,
    log,
    llm,
    goals: goals.api,
    mood: mood.api,
  });
  const communities = communitiesFeature({
    db,
    clock,
    users: users.api,
    feed: feed.api,
    notifications: notifications.api,
    moderation: coaching.api.moderation,
  });
  const partners = partnersFeature({
    db,
    clock,
    users: users.api,
    feed: feed.api,
    notifications: notifications.api,
  });
  const challenges = challengesFeature({
    db,
    clock,
    users: users.api,
    communities: communities.api,
    goals: goals.api,
    notifications: notifications.api,
    jobs,
    fanOutBatchSize: config.fanOutBatchSize,
  });
  const safety = safetyFeature({
    db,
    clock,
    users: users.api,
    partners: partners.api,
    communities: communities.api,
  });
  const teams = teamsFeature({
    db,
    clock,
    users: users.api,
    notifications: notifications.api,
  });
  const feedback = feedbackFeature({
    config,
    db,
    clock,
    users: users.api,
    notifications: notifications.api,
    moderation: coaching.api.moderation,
  });
  const billing = billingFeature({ config, db, clock, log, tracker, events, users: users.api });
  const aiRequests = aiRequestsFeature({
    config,
    flags: coaching.api.flags,
    db,
    pubsub,
    jobs,
    log,
    tracker,
    processors: options.aiRequestProcessors ?? {},
  });
  const workforce = workforceFeature({
    config,
    db,
    clock,
    log,
    tracker,
    fetch,
    jobs,
    events,
    pubsub,
    tokens,
    users: users.api,
    deliveryAdapters: options.deliveryAdapters,
    metrics,
  });
  const jobsAdmin = jobsFeature({ jobs });
  const backups = backupsFeature({ db, clock, log, config });
  const admin = adminFeature({ config });
  const built = {
    backups,
    users,
    feed,
    funnel,
    notifications,
    badges,
    goals,
    mood,
    coaching,
    communities,
    partners,
    challenges,
    safety,
    teams,
    feedback,
    billing,
    aiRequests,
    workforce,
    jobsAdmin,
    admin,
  };
  const parts: PersonalDataPart[] = Object.values(built as Record<string, Feature<unknown>>)
    .flatMap((f) => f.personalData ? [{ feature: f.name, ...f.personalData }] : []);
  const privacy = privacyFeature({ db, clock, log, jobs, users: users.api, parts: () => parts });
  return { ...built, privacy };
}

/** Verifies a session token, then finds or creates its user (spec 5.3). */
function createIdentify(
  deps: Deps,
  users: Features["users"]["api"],
): (token: string) => Promise<Viewer> {
  const verify = createTokenVerifier({ config: deps.config, clock: deps.clock, log: deps.log });
  const admins = new Set(deps.config.adminSubjects);
  return async (token) => {
    const verified = await verify(token);
    const { user, created } = await users.ensureUser(verified.subject, verified.claims);
    return {
      userId: user.id,
      publicId: user.publicId,
      subject: verified.subject,
      isAdmin: admins.has(verified.subject) || verified.admin === true,
      fallback: verified.fallback,
      firstSignIn: created,
      timeZone: user.timeZone,
      expiresAt: verified.expiresAt,
    };
  };
}

export function buildApp(deps: Deps, options: AppOptions = {}): App {
  let shuttingDown = false;
  const metrics = options.metrics ?? unrecordedMetrics();
  if (options.metrics) observeStatements(deps.db.sql, metrics);
  deps.kv.observeErrors?.((kind) => metrics.redisError(kind));
  const jobs = createJobSystem<DomainEvents>({
    db: deps.db,
    metrics,
    log: deps.log.child({ component: "jobs" }),
    tracker: deps.tracker,
    clock: deps.clock,
    concurrency: deps.config.jobConcurrency,
    graceMs: deps.config.shutdownTimeoutMs,
    lockTimeoutMs: deps.config.jobLockTimeoutMs,
    localQueueSize: deps.config.jobLocalQueueSize,
    deadRetention: {
      days: deps.config.retention.deadJobDays,
      max: deps.config.retention.deadJobMax,
    },
  });
  const { config } = deps;
  const outbound = countingFetch(deps.fetch, {
    runner: config.runnerUrl,
    llm: config.llmBaseUrl,
    chat: config.chatWebhookUrl,
    github: config.githubApiUrl,
    oidc: config.oidcTokenUrl,
  }, metrics);
  const features = buildFeatures({ ...deps, fetch: outbound }, jobs, options, metrics);
  const all: Feature<unknown>[] = Object.values(features);
  registerBackgroundWork(jobs, all);
  if (deps.db.mode === "embedded") {
    const log = deps.log.child({ component: "db" });
    jobs.schedule("platform.embedded_vacuum", EMBEDDED_VACUUM_CRON, async () => {
      const { tables, ms } = await vacuumChangedTables(deps.db.sql);
      log.info("embedded database vacuumed", { tables: tables.length, ms });
    });
  }
  const requestLimits = createRequestLimits({
    kv: deps.kv,
    clock: deps.clock,
    log: deps.log,
    userPerMinute: deps.config.rateLimitUserPerMinute,
    anonymousPerMinute: deps.config.rateLimitAnonymousPerMinute,
    storeWaitMs: deps.config.rateLimitStoreWaitMs,
  });
  const graphql = createGraphQLServer({
    modules: [
      ...all.flatMap((feature) => feature.graphql ? [feature.graphql] : []),
      ...(options.extraModules ?? []),
    ],
    identify: createIdentify(deps, features.users.api),
    tracker: deps.tracker,
    log: deps.log,
    limits: options.graphqlLimits,
    plugins: [observeOperations(metrics), ...(options.graphqlPlugins ?? [])],
    kv: deps.kv,
    explorer: deps.config.graphqlExplorer,
    requestLimits,
  });
  const cable = createCable({
    ...deps,
    graphql,
    limits: {
      maxConnectionsPerUser: deps.config.cableMaxPerUser,
      maxConnectionsPerAddress: deps.config.cableMaxPerAddress,
      ...options.cableLimits,
    },
  });
  const cors = createCorsPolicy(deps.config.corsAllowedOrigins);
  metrics.sources({
    queues: () => jobs.figures(),
    cable: () => cable.statsByProtocol(),
    database: () => ({ poolSize: deps.db.poolSize }),
  });
  const routes: Route[] = [
    { method: "GET", path: "/up", handler: () => upResponse(shuttingDown) },
    {
      method: "GET",
      path: "/health",
      handler: serviceHealth(deps),
    },
    {
      method: ["GET", "POST", "OPTIONS"],
      path: GRAPHQL_PATH,
      handler: cors.wrap((req, ctx) => graphql.handle(req, ctx)),
    },
    { method: "GET", path: "/cable", handler: (req, ctx) => cable.handle(req, ctx) },
    ...(deps.config.metricsToken ? [metricsRoute(metrics, deps.config.metricsToken)] : []),
    ...all.flatMap((feature) => feature.routes ?? []).map((route) =>
      route.limit === "by-address"
        ? { ...route, handler: limitedByAddress(requestLimits, route.handler) }
        : route
    ),
  ];
  const router = createRouter(routes);

  async function dispatch(req: Request, ctx: RequestContext): Promise<Response> {
    // The limit applies to every route, known or not, before anything else reads the body.
    // GraphQL clients read a refusal of /graphql as a GraphQL response (GraphQL over HTTP).
    const toGraphql = new URL(req.url).pathname === GRAPHQL_PATH;
    if (req.body && req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      try {
        ctx.rawBody = await readBoundedBody(
          req,
          DEFAULT_BODY_LIMIT,
          deps.config.httpBodyTimeoutMs,
        );
      } catch (err) {
        if (!toGraphql || !(err instanceof BodyTooLargeError)) throw err;
        const refused = requestErrorResponse(req, 413, err.message);
        // The rest of the body was left unread: the connection cannot carry another request.
        refused.headers.set("connection", "close");
        return refused;
      }
    }
    const hit = router.match(req);
    if (!hit) {
      const allowed = router.allowedMethods(req);
      if (!allowed.length) {
        return errorResponse("not_found", "no such route", { path: new URL(req.url).pathname });
      }
      const message = `${req.method} is not allowed here`;
      const refused = toGraphql
        ? requestErrorResponse(req, 405, message)
        : errorResponse("method_not_allowed", message);
      refused.headers.set("allow", allowed.join(", "));
      return refused;
    }
    ctx.params = hit.params;
    ctx.route = hit.route;
    nameServerSpan(req.method, hit.route);
    return await compressResponse(req, await hit.handler(req, ctx));
  }

  const handler = createHandler({
    log: deps.log,
    tracker: deps.tracker,
    trustProxyHops: deps.config.trustProxyHops,
    shuttingDown: () => shuttingDown,
    answered: (method, route, status, seconds) =>
      metrics.httpRequest(method, route, status, seconds),
  }, dispatch);

  return {
    deps,
    metrics,
    jobs,
    graphql,
    features,
    cable,
    handler,
    async start() {
      await jobs.start();
    },
    async stop() {
      shuttingDown = true;
      cable.close();
      await jobs.stop();
    },
    get shuttingDown() {
      return shuttingDown;
    },
  };
}
