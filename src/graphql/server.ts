/**
 * The GraphQL endpoint: graphql-yoga over the merged feature schema, with SessionToken
 * authentication, public-operation gating, abuse limits (graphql-armor), batching, error codes
 * and masking (DESIGN 3.6), and per-request DataLoaders.
 */
import { createYoga, type Plugin } from "graphql-yoga";
import { useAPQ } from "@graphql-yoga/plugin-apq";
import type { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import type { GraphQLSchema } from "graphql";
import type { KvStore } from "../platform/kv.ts";
import type { ErrorTracker } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { RequestContext } from "../http/context.ts";
import {
  refusal,
  type RequestLimits,
  type RequestVerdict,
  withRateLimitHeaders,
} from "../http/request-limits.ts";
import { decodeUtf8 } from "../platform/contract/body.ts";
import { dependencyFailure } from "../platform/dependency.ts";
import { AuthError, SESSION_TOKEN_HEADER } from "./auth.ts";
import type { GraphQLContext, Viewer } from "./context.ts";
import { errorMasking } from "./error-masking.ts";
import { createLoaderRegistry } from "./loaders.ts";
import { graphqlLogParams, postLogParams } from "./log-params.ts";
import type { SchemaModule } from "./module.ts";
import { operationHooks, publicOperationGate, refuseOverLimit } from "./operation-hooks.ts";
import { pageSizeCostCheck } from "./page-cost.ts";
import { isJsonRequest, parseJsonText, requestParseErrorsAreBadInput } from "./request-body.ts";
import {
  rateLimitedResponse,
  requestErrorResponse,
  serviceUnavailableResponse,
  unauthenticatedResponse,
  withErrorBody,
} from "./responses.ts";
import { buildSchema } from "./schema-build.ts";
import { localCursorErrors } from "./cursor-errors.ts";
import type { ServerContext } from "./server-context.ts";
import { textCheck } from "./text-rule.ts";
import { nestingLimit } from "./nesting-limit.ts";

export interface GraphQLLimits {
  maxBatch: number;
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
  maxTokens: number;
  maxDirectives: number;
}

export const DEFAULT_LIMITS: GraphQLLimits = {
  maxBatch: 10,
  maxDepth: 12,
  maxAliases: 15,
  maxCost: 50_000,
  maxTokens: 2000,
  maxDirectives: 20,
};

export interface GraphQLServerDeps {
  modules: SchemaModule[];
  /** Verifies a session token and finds (or creates) its user. Throws AuthError. */
  identify(token: string): Promise<Viewer>;
  tracker: ErrorTracker;
  log: Logger;
  limits?: Partial<GraphQLLimits>;
  /** Extra envelop plugins (tests use this for checks across every response). */
  plugins?: Plugin[];
  /** Shared store of automatic persisted queries (every instance sees the same). */
  kv: KvStore;
  /**
   * GraphiQL at `GET /graphql` and introspection without a session (`GRAPHQL_EXPLORER`); off in
   * production.
   */
  explorer: boolean;
  /** Request rate limits: by user when signed in, else by client address. */
  requestLimits: RequestLimits;
}

const EXPLORER_QUERY = `# The goals service's GraphQL API (docs/graphql.md in the repository).
# Most fields need a session: put {"SessionToken": "<token>"} in the Headers tab below.
query Hello {
  __typename
}
`;

/**
 * GraphiQL's page (about 9 MB, every asset inline) is built once per server, not per request, and
 * its module (some 50 MiB in memory) is imported on the first page view, not at start.
 */
function renderGraphiQLOnce(): (
  options: Parameters<typeof renderGraphiQL>[0],
) => Promise<ReturnType<typeof renderGraphiQL>> {
  let page: { key: string; html: ReturnType<typeof renderGraphiQL> } | null = null;
  return async (options) => {
    const key = JSON.stringify(options ?? {});
    if (page?.key !== key) {
      const { renderGraphiQL } = await import("@graphql-yoga/render-graphiql");
      page = { key, html: renderGraphiQL(options) };
    }
    return page.html;
  };
}

/** Persisted queries: kept a week after their last registration, documents up to 64 KiB. */
const APQ_TTL_MS = 7 * 86_400_000;
const APQ_MAX_QUERY = 64 * 1024;

export interface GraphQLServer {
  schema: GraphQLSchema;
  publicFields: Set<string>;
  /** Handles `POST /graphql` and `GET /graphql` (GraphiQL in a browser). */
  handle(req: Request, ctx: RequestContext): Promise<Response>;
  /** Resolves the viewer of a token (null without one). Throws AuthError when invalid. */
  viewerFor(token: string | null | undefined): Promise<Viewer | null>;
  /** The envelop plugins, for other transports (WebSocket) that execute the same schema. */
  plugins: Plugin[];
  /** The request rate limits, for other transports: each operation there counts as a request. */
  requestLimits: RequestLimits;
  contextFor(base: ServerContext): GraphQLContext & ServerContext;
}

export function createGraphQLServer(deps: GraphQLServerDeps): GraphQLServer {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const schema = localCursorErrors(buildSchema(deps.modules));
  const publicFields = new Set(deps.modules.flatMap((m) => m.publicFields ?? []));
  const plugins = [
    nestingLimit(),
    EnvelopArmorPlugin({
      maxDepth: { n: limits.maxDepth, onReject: [refuseOverLimit] },
      maxAliases: { n: limits.maxAliases, onReject: [refuseOverLimit] },
      costLimit: { enabled: false },
      maxTokens: { n: limits.maxTokens, onReject: [refuseOverLimit] },
      maxDirectives: { n: limits.maxDirectives, onReject: [refuseOverLimit] },
      blockFieldSuggestion: { enabled: true },
    }),
    operationHooks(
      [
        publicOperationGate(publicFields, deps.explorer),
        textCheck(),
        pageSizeCostCheck(limits.maxCost),
      ],
      errorMasking(deps.tracker, deps.log),
    ),
    ...(deps.plugins ?? []),
  ] as Plugin[];

  const apq = useAPQ({
    store: {
      get: (hash: string) => deps.kv.get(`apq:${hash}`),
      set: async (hash: string, query: string) => {
        if (query.length <= APQ_MAX_QUERY) await deps.kv.set(`apq:${hash}`, query, APQ_TTL_MS);
      },
    },
  });
  const yoga = createYoga<ServerContext, Pick<GraphQLContext, "loader">>({
    schema,
    graphqlEndpoint: "/graphql",
    batching: { limit: limits.maxBatch },
    graphiql: deps.explorer ? { title: "Goals service", defaultQuery: EXPLORER_QUERY } : false,
    renderGraphiQL: renderGraphiQLOnce(),
    landingPage: false,
    // CORS is the route's (http/cors.ts), for every answer of /graphql, not only yoga's.
    cors: false,
    logging: false,
    maskedErrors: false,
    // No operation takes a file, so multipart bodies are refused (415) rather than parsed.
    multipart: false,
    // Every body is read within the service's own bound (DEFAULT_BODY_LIMIT) before yoga runs;
    // yoga's would pipe each body through a stream again only to count it.
    maxRequestBodySize: false,
    plugins: [requestParseErrorsAreBadInput(), apq as Plugin, ...plugins],
    context: () => ({ loader: createLoaderRegistry() }),
  });

  async function viewerFor(token: string | null | undefined): Promise<Viewer | null> {
    if (!token) return null;
    return await deps.identify(token);
  }

  return {
    schema,
    publicFields,
    plugins,
    requestLimits: deps.requestLimits,
    viewerFor,
    contextFor: (base) => ({ ...base, loader: createLoaderRegistry() }),
    async handle(req, ctx) {
      const post = req.method === "POST";
      const text = post ? decodeUtf8(ctx.rawBody) : null;
      const body = text === null ? undefined : parseJsonText(text);
      ctx.logParams = text === null
        ? graphqlLogParams(req, ctx.rawBody)
        : postLogParams(body === undefined ? null : body);
      let viewer: Viewer | null;
      try {
        viewer = await viewerFor(req.headers.get(SESSION_TOKEN_HEADER));
      } catch (err) {
        const down = dependencyFailure(err);
        if (down) {
          ctx.log.warn("dependency unavailable", {
            dependency: down.dependency,
            error: down.message,
            during: "identify",
          });
          return serviceUnavailableResponse(req);
        }
        if (!(err instanceof AuthError)) throw err;
        ctx.log.info("session token refused", { reason: err.message });
        // Refused tokens count as anonymous calls: guessing them is signing in.
        const counted = await deps.requestLimits.anonymous(ctx.remoteAddr);
        const limited = refusal(counted);
        return withRateLimitHeaders(
          limited
            ? rateLimitedResponse(req, limited)
            : unauthenticatedResponse(req, "invalid session token"),
          counted,
        );
      }
      ctx.stats.userId = viewer?.publicId;
      const counted = viewer
        ? await deps.requestLimits.user(viewer.publicId)
        : await deps.requestLimits.anonymous(ctx.remoteAddr);
      return withRateLimitHeaders(await answer(req, ctx, viewer, counted, body, text), counted);
    },
  };

  /** The answer to a request whose caller is known and counted. */
  async function answer(
    req: Request,
    ctx: RequestContext,
    viewer: Viewer | null,
    counted: RequestVerdict | null,
    body: unknown,
    text: string | null,
  ): Promise<Response> {
    const post = req.method === "POST";
    const limited = refusal(counted);
    if (limited) return rateLimitedResponse(req, limited);
    if (post && text === null) {
      return requestErrorResponse(req, 400, "the request body is not valid UTF-8");
    }
    const parsedBody = post && typeof body === "object" && body !== null && isJsonRequest(req)
      ? body
      : undefined;
    // Yoga reads the body only when it has not been handed the parsed one; the served request's
    // was read already, so then it gets a request made from the bytes. `handleRequest`, not
    // `fetch`, which would race the answer against the request's `signal` (set up per request by
    // Deno when read): an operation runs to its end when its client leaves, as it did when yoga
    // was handed a copy whose signal never fired.
    const forwarded = post && !parsedBody
      ? new Request(req.url, { method: req.method, headers: req.headers, body: ctx.rawBody })
      : req;
    const response = await yoga.handleRequest(forwarded, {
      requestId: ctx.requestId,
      log: ctx.log,
      viewer,
      stats: ctx.stats,
      parsedBody,
    });
    return withErrorBody(req, response);
  }
}
