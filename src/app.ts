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
import { type RequestStats, runWithRequestStats } from "./platform/request-context.ts";
import { BodyTooLargeError, DEFAULT_BODY_LIMIT, readBoundedBody } from "./http/body.ts";
import { createRouter, json, type Route } from "./http/router.ts";
import type { RequestContext } from "./http/context.ts";
import { writeRequestLog } from "./http/request-log.ts";
import { healthResponse, upResponse } from "./http/health.ts";
import { createTokenVerifier } from "./graphql/auth.ts";
import type { Viewer } from "./graphql/context.ts";
import type { GraphQLModule } from "./graphql/module.ts";
import { createGraphQLServer, type GraphQLLimits, type GraphQLServer } from "./graphql/server.ts";
import type { Plugin } from "graphql-yoga";
import { ensureUser } from "./features/users/store.ts";
import { usersModule } from "./features/users/schema.ts";
import { goalsModule } from "./features/goals/schema.ts";
import { badgesModule } from "./features/badges/schema.ts";
import { feedModule } from "./features/feed/schema.ts";
import { moodModule } from "./features/mood/schema.ts";
import { jobsAdminModule } from "./features/jobs/schema.ts";
import { createWorkforce } from "./features/workforce/mod.ts";
import { createDelivery } from "./features/delivery/mod.ts";
import { notificationsModule } from "./features/notifications/schema.ts";
import { aiRequestsModule } from "./features/ai-requests/schema.ts";
import { type Cable, type CableLimits, createCable } from "./graphql/cable/mod.ts";
import { createJobSystem, type JobSystem } from "./platform/jobs/index.ts";
import { type Ai, createAi, type Moderation } from "./features/coaching/ai.ts";
import { coachingModule } from "./features/coaching/schema.ts";
import { feedbackModule } from "./features/feedback/schema.ts";
import { feedbackExportHandler } from "./features/feedback/export.ts";
import { activationFunnelHandler } from "./features/funnel/http.ts";
import { billingWebhook } from "./features/billing/webhook.ts";
import { communitiesModule } from "./features/communities/schema.ts";
import { partnersModule } from "./features/partners/schema.ts";
import { challengesModule } from "./features/challenges/schema.ts";
import { teamsModule } from "./features/teams/schema.ts";

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

/** What feature modules receive: the service's dependencies plus the job system and AI. */
export interface FeatureDeps extends Deps {
  jobs: JobSystem;
  /** AI feature flags and the LLM client (null when `LLM_BASE_URL` is unset). */
  ai: Ai;
  /** The moderation hook for user posts (docs/ai-coaching.md). */
  moderation: Moderation;
}

/** Extension points for tests (extra schema modules, plugins, limits). */
export interface AppOptions {
  extraModules?: GraphQLModule[];
  graphqlPlugins?: Plugin[];
  graphqlLimits?: Partial<GraphQLLimits>;
  cableLimits?: Partial<CableLimits>;
}

export interface App {
  deps: Deps;
  jobs: ReturnType<typeof createJobSystem>;
  graphql: GraphQLServer;
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

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** Verifies a session token, then finds or creates its user (spec 5.3). */
function createIdentify(deps: Deps): (token: string) => Promise<Viewer> {
  const verify = createTokenVerifier({ config: deps.config, clock: deps.clock, log: deps.log });
  const admins = new Set(deps.config.adminSubjects);
  return async (token) => {
    const verified = await verify(token);
    const { user, created } = await ensureUser(deps.db.sql, verified.subject, verified.claims);
    return {
      userId: user.id,
      publicId: user.publicId,
      subject: verified.subject,
      isAdmin: admins.has(verified.subject),
      fallback: verified.fallback,
      firstSignIn: created,
      timeZone: user.timeZone,
      expiresAt: verified.expiresAt,
    };
  };
}

export function buildApp(deps: Deps, options: AppOptions = {}): App {
  let shuttingDown = false;
  const jobs = createJobSystem({
    db: deps.db,
    log: deps.log.child({ component: "jobs" }),
    tracker: deps.tracker,
    clock: deps.clock,
    concurrency: deps.config.jobConcurrency,
    graceMs: deps.config.shutdownTimeoutMs,
  });
  const { moderation, ...ai } = createAi(deps);
  const features: FeatureDeps = { ...deps, jobs, ai, moderation };
  const workforce = createWorkforce(features);
  const delivery = createDelivery(features);
  const graphql = createGraphQLServer({
    modules: [
      usersModule(features),
      jobsAdminModule(features),
      workforce.module,
      delivery.module,
      notificationsModule(features),
      aiRequestsModule(features),
      feedbackModule(features),
      goalsModule(features),
      badgesModule(features),
      feedModule(features),
      moodModule(features),
      coachingModule(features),
      communitiesModule(features),
      partnersModule(features),
      challengesModule(features),
      teamsModule(features),
      ...(options.extraModules ?? []),
    ],
    identify: createIdentify(deps),
    tracker: deps.tracker,
    log: deps.log,
    limits: options.graphqlLimits,
    plugins: options.graphqlPlugins,
  });
  const cable = createCable({ ...deps, graphql, limits: options.cableLimits });
  const routes: Route[] = [
    { method: "GET", path: "/up", handler: () => upResponse(shuttingDown) },
    {
      method: "GET",
      path: "/health",
      handler: () =>
        healthResponse({
          db: deps.db,
          kv: deps.kv,
          queueFigures: () => jobs.figures(),
          deadThreshold: deps.config.sidekiqDeadThreshold,
          llmBaseUrl: deps.config.llmBaseUrl,
          fetch: deps.fetch,
          now: () => deps.clock.now(),
        }),
    },
    { method: ["GET", "POST"], path: "/graphql", handler: (req, ctx) => graphql.handle(req, ctx) },
    { method: "POST", path: "/webhooks/ai-workforce", handler: workforce.webhook },
    { method: "GET", path: "/cable", handler: (req, ctx) => cable.handle(req, ctx) },
    { method: "POST", path: "/integrations/feedback/export", handler: feedbackExportHandler(deps) },
    {
      method: "POST",
      path: "/integrations/activation-funnel",
      handler: activationFunnelHandler(deps),
    },
    { method: "POST", path: "/webhooks/billing-provider", handler: billingWebhook(features) },
  ];
  const router = createRouter(routes);

  async function dispatch(req: Request, ctx: RequestContext): Promise<Response> {
    // The limit applies to every route, known or not, before anything else reads the body.
    if (req.body && req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      ctx.rawBody = await readBoundedBody(req, DEFAULT_BODY_LIMIT);
    }
    const hit = router.match(req);
    if (!hit) {
      return router.hasPath(req)
        ? json({ error: "method_not_allowed" }, 405)
        : json({ error: "not_found", path: new URL(req.url).pathname }, 404);
    }
    ctx.params = hit.params;
    return await hit.handler(req, ctx);
  }

  async function handler(req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
    const started = performance.now();
    const url = new URL(req.url);
    const stats: RequestStats = { requestId: requestIdOf(req), dbMs: 0, statements: 0 };
    const ctx: RequestContext = {
      requestId: stats.requestId,
      params: {},
      log: deps.log.child({ request_id: stats.requestId }),
      stats,
      rawBody: new Uint8Array(),
      remoteAddr: info && "hostname" in info.remoteAddr ? info.remoteAddr.hostname : undefined,
      logParams: Object.fromEntries(url.searchParams),
    };
    let response: Response;
    try {
      response = await runWithRequestStats(stats, () => dispatch(req, ctx));
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        response = json({ error: "payload_too_large", limit_bytes: err.limit }, 413);
      } else {
        deps.tracker.captureError(err, { request_id: stats.requestId, path: url.pathname });
        response = json({ error: "internal_error", request_id: stats.requestId }, 500);
      }
    }
    try {
      response.headers.set("x-request-id", stats.requestId);
    } catch {
      // WebSocket upgrade responses have immutable headers.
    }
    writeRequestLog(deps.log, {
      method: req.method,
      path: url.pathname,
      status: response.status,
      durationMs: performance.now() - started,
      stats,
      params: ctx.logParams,
    });
    return response;
  }

  return {
    deps,
    jobs,
    graphql,
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
