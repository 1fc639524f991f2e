/**
 * The GraphQL endpoint: graphql-yoga over the merged feature schema, with SessionToken
 * authentication, public-operation gating, abuse limits (graphql-armor), batching, error codes
 * and masking (DESIGN 3.6), and per-request DataLoaders.
 */
import { createSchema, createYoga, type Plugin } from "graphql-yoga";
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import {
  type DocumentNode,
  type ExecutionResult,
  getOperationAST,
  type GraphQLSchema,
  Kind,
} from "graphql";
import type { ErrorTracker } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { RequestContext } from "../http/context.ts";
import { json } from "../http/router.ts";
import type { RequestStats } from "../platform/request-context.ts";
import { AuthError, SESSION_TOKEN_HEADER } from "./auth.ts";
import type { GraphQLContext, Viewer } from "./context.ts";
import { maskError, unauthenticated } from "./errors.ts";
import { createLoaderRegistry } from "./loaders.ts";
import { baseTypeDefs, type GraphQLModule } from "./module.ts";

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
  maxCost: 5000,
  maxTokens: 2000,
  maxDirectives: 20,
};

export interface GraphQLServerDeps {
  modules: GraphQLModule[];
  /** Verifies a session token and finds (or creates) its user. Throws AuthError. */
  identify(token: string): Promise<Viewer>;
  tracker: ErrorTracker;
  log: Logger;
  limits?: Partial<GraphQLLimits>;
  /** Extra envelop plugins (tests use this for checks across every response). */
  plugins?: Plugin[];
}

/** The server context yoga receives from our HTTP layer. */
interface ServerContext {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  stats: RequestStats;
}

const ALWAYS_PUBLIC = new Set(["__typename", "__schema", "__type"]);

function rootFieldNames(document: DocumentNode, operationName?: string | null): string[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  return operation.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s.name.value] : ["(fragment)"]
  );
}

/** Anonymous callers may run only operations whose every root field is public (spec 5.4). */
function publicOperationGate(publicFields: Set<string>): Plugin<GraphQLContext & ServerContext> {
  const check = (
    document: DocumentNode,
    operationName: string | null | undefined,
    ctx: ServerContext,
  ) => {
    if (ctx.viewer) return;
    const fields = rootFieldNames(document, operationName);
    if (fields.some((f) => !publicFields.has(f) && !ALWAYS_PUBLIC.has(f))) throw unauthenticated();
  };
  return {
    onExecute({ args }) {
      check(args.document, args.operationName, args.contextValue);
    },
    onSubscribe({ args }) {
      check(args.document, args.operationName, args.contextValue);
    },
  };
}

/** Records operation names for the request log (`anonymous` when unnamed; a batch joins them). */
function operationNames(): Plugin<GraphQLContext & ServerContext> {
  return {
    onExecute({ args }) {
      const name = getOperationAST(args.document, args.operationName)?.name?.value ?? "anonymous";
      const stats = args.contextValue.stats;
      stats.graphqlOperation = stats.graphqlOperation ? `${stats.graphqlOperation},${name}` : name;
    },
  };
}

/**
 * Applies {@link maskError} to every error of every result (execution, subscription events and
 * request-level failures), reporting each hidden failure once with the request id.
 */
function errorMasking(tracker: ErrorTracker): Plugin<GraphQLContext & ServerContext> {
  const masked = (result: ExecutionResult, requestId: string | undefined): ExecutionResult => {
    if (!result || !Array.isArray(result.errors) || !result.errors.length) return result;
    const errors = result.errors.map((error) => {
      const { error: shown, hidden } = maskError(error, requestId);
      if (hidden !== null) {
        tracker.captureError(hidden, {
          request_id: requestId,
          graphql_path: error.path?.join("."),
        });
      }
      return shown;
    });
    return { ...result, errors };
  };
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          setResult(masked(result, args.contextValue.requestId));
        },
      };
    },
    onResultProcess({ result, setResult }) {
      // Request-level failures (parse, validation, limits, batch size) never reach onExecute.
      if (Array.isArray(result)) {
        setResult(result.map((r) => masked(r as ExecutionResult, undefined)));
      } else if (!(Symbol.asyncIterator in result)) {
        setResult(masked(result as ExecutionResult, undefined));
      }
    },
    onSubscribe({ args }) {
      return {
        onSubscribeResult({ result, setResult }) {
          const requestId = args.contextValue.requestId;
          if (Symbol.asyncIterator in result) {
            return { onNext: ({ result: r, setResult: set }) => set(masked(r, requestId)) };
          }
          setResult(masked(result, requestId));
        },
      };
    },
  };
}

export interface GraphQLServer {
  schema: GraphQLSchema;
  publicFields: Set<string>;
  /** Handles `POST /graphql` and `GET /graphql` (GraphiQL in a browser). */
  handle(req: Request, ctx: RequestContext): Promise<Response>;
  /** Resolves the viewer of a token (null without one). Throws AuthError when invalid. */
  viewerFor(token: string | null | undefined): Promise<Viewer | null>;
  /** The envelop plugins, for other transports (WebSocket) that execute the same schema. */
  plugins: Plugin[];
  contextFor(base: ServerContext): GraphQLContext & ServerContext;
}

function unauthenticatedResponse(message: string): Response {
  return json({ errors: [{ message, extensions: { code: "UNAUTHENTICATED" } }] }, 401);
}

/** Operation names and filtered variables for the request log's `params`. */
function logParamsOf(body: Uint8Array): Record<string, unknown> {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body));
    const pick = (op: Record<string, unknown>) => ({
      operationName: op?.operationName ?? null,
      variables: op?.variables ?? null,
    });
    return Array.isArray(parsed) ? { batch: parsed.map(pick) } : pick(parsed);
  } catch {
    return {};
  }
}

export function createGraphQLServer(deps: GraphQLServerDeps): GraphQLServer {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const schema = createSchema<GraphQLContext & ServerContext>({
    typeDefs: [baseTypeDefs, ...deps.modules.map((m) => m.typeDefs)],
    resolvers: deps.modules.flatMap((m) => (m.resolvers ? [m.resolvers] : [])),
  });
  const publicFields = new Set(deps.modules.flatMap((m) => m.publicFields ?? []));
  const plugins = [
    EnvelopArmorPlugin({
      maxDepth: { n: limits.maxDepth },
      maxAliases: { n: limits.maxAliases },
      costLimit: { maxCost: limits.maxCost },
      maxTokens: { n: limits.maxTokens },
      maxDirectives: { n: limits.maxDirectives },
      blockFieldSuggestion: { enabled: true },
    }),
    publicOperationGate(publicFields),
    operationNames(),
    errorMasking(deps.tracker),
    ...(deps.plugins ?? []),
  ] as Plugin[];

  const yoga = createYoga<ServerContext, Pick<GraphQLContext, "loader">>({
    schema,
    graphqlEndpoint: "/graphql",
    batching: { limit: limits.maxBatch },
    graphiql: { title: "Goals service" },
    landingPage: false,
    logging: false,
    maskedErrors: false,
    plugins,
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
    viewerFor,
    contextFor: (base) => ({ ...base, loader: createLoaderRegistry() }),
    async handle(req, ctx) {
      let viewer: Viewer | null;
      try {
        viewer = await viewerFor(req.headers.get(SESSION_TOKEN_HEADER));
      } catch (err) {
        if (!(err instanceof AuthError)) throw err;
        ctx.log.info("session token refused", { reason: err.message });
        return unauthenticatedResponse("invalid session token");
      }
      ctx.stats.userId = viewer?.publicId;
      if (req.method === "POST") ctx.logParams = logParamsOf(ctx.rawBody);
      const forwarded = new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.method === "POST" ? ctx.rawBody : undefined,
      });
      return await yoga.fetch(forwarded, {
        requestId: ctx.requestId,
        log: ctx.log,
        viewer,
        stats: ctx.stats,
      });
    },
  };
}
