/**
 * The GraphQL endpoint: graphql-yoga over the merged feature schema, with SessionToken
 * authentication, public-operation gating, abuse limits (graphql-armor), batching, error codes
 * and masking (DESIGN 3.6), and per-request DataLoaders.
 */
import { createYoga, type Plugin } from "graphql-yoga";
import { useAPQ } from "@graphql-yoga/plugin-apq";
import type { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import {
  type ASTNode,
  buildASTSchema,
  concatAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  parse,
  type Source,
  visit,
} from "graphql";
import type { KvStore } from "../platform/kv.ts";
import type { ErrorTracker } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { RequestContext } from "../http/context.ts";
import { json } from "../http/router.ts";
import { type RequestLimits, retryAfterHeader } from "../http/request-limits.ts";
import type { RateVerdict } from "../platform/rate-limit.ts";
import { decodeUtf8 } from "../platform/contract/body.ts";
import type { RequestStats } from "../platform/request-context.ts";
import { AuthError, SESSION_TOKEN_HEADER } from "./auth.ts";
import type { GraphQLContext, Viewer } from "./context.ts";
import {
  codedError,
  limitExceeded,
  maskError,
  SERVICE_UNAVAILABLE_MESSAGE,
  serviceUnavailableExtensions,
  unauthenticated,
} from "./errors.ts";
import { dependencyFailure, type DependencyUnavailableError } from "../platform/dependency.ts";
import { createLoaderRegistry } from "./loaders.ts";
import { graphqlLogParams, postLogParams } from "./log-params.ts";
import { baseTypeDefs, type ResolverMap, type SchemaModule } from "./module.ts";
import { attachResolvers, withDefaultResolvers } from "./resolvers.ts";
import { describeErrorCodes } from "./error-codes.ts";
import { type CompiledQueries, compiledQueries } from "./jit.ts";
import { pageSizeCostCheck } from "./page-cost.ts";
import { scalarResolvers } from "./scalars.ts";
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

/** The server context yoga receives from our HTTP layer. */
interface ServerContext {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  stats: RequestStats;
  /**
   * The JSON body (an object or a batch) of a POST that yoga would parse as JSON, parsed once
   * already for the request log; yoga takes it instead of reading the body again.
   */
  parsedBody?: object;
}

const INTROSPECTION = ["__schema", "__type"];

function rootFieldNames(document: DocumentNode, operationName?: string | null): string[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  return operation.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s.name.value] : ["(fragment)"]
  );
}

/**
 * Anonymous callers may run only operations whose every root field is public (spec 5.4);
 * introspection is public only while the explorer is on.
 */
function publicOperationGate(publicFields: Set<string>, explorer: boolean): ExecutionCheck {
  const ALWAYS_PUBLIC = new Set(["__typename", ...(explorer ? INTROSPECTION : [])]);
  return ({ document, operationName, contextValue }) => {
    if ((contextValue as ServerContext).viewer) return;
    const fields = rootFieldNames(document, operationName);
    if (fields.some((f) => !publicFields.has(f) && !ALWAYS_PUBLIC.has(f))) throw unauthenticated();
  };
}

/**
 * Names the argument in errors about a literal value of the wrong type (`{ goal(id: 5) }`):
 * graphql-js says only which type it expected.
 */
const argumentNamesInValueErrors: NonNullable<Plugin["onValidate"]> = ({ params }) => {
  return ({ result, setResult }) => {
    if (!result.length) return;
    setResult(result.map((error) => nameTheArgument(error, params.documentAST)));
  };
};

const VALUE_KINDS = new Set<string>([
  Kind.STRING,
  Kind.INT,
  Kind.FLOAT,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
]);

function nameTheArgument(error: GraphQLError, document: DocumentNode): GraphQLError {
  const node = error.nodes?.[0];
  if (!node?.loc || !VALUE_KINDS.has(node.kind) || error.message.startsWith("Argument")) {
    return error;
  }
  let argument: string | null = null;
  const contains = (outer: ASTNode) =>
    outer.loc !== undefined && outer.loc.start <= node.loc!.start && node.loc!.end <= outer.loc.end;
  visit(document, {
    Argument(arg) {
      if (contains(arg.value)) argument = arg.name.value;
    },
  });
  if (argument === null) return error;
  return new GraphQLError(`Argument "${argument}" has an invalid value: ${error.message}`, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: error.extensions,
  });
}

/**
 * A request the built-in parsers cannot read (GET `variables` that are not JSON, for one) is the
 * caller's mistake: 400 `BAD_USER_INPUT` naming what is wrong, never a masked `INTERNAL`.
 */
function requestParseErrorsAreBadInput(): Plugin {
  const unreadable = (message: string) =>
    new GraphQLError(`The request could not be read: ${message}`, {
      extensions: { code: "BAD_USER_INPUT", http: { status: 400 } },
    });
  return {
    onRequestParse({ requestParser, setRequestParser, serverContext }) {
      if (!requestParser) return;
      const parsedBody = (serverContext as Partial<ServerContext>).parsedBody;
      setRequestParser(async (request) => {
        let params;
        try {
          params = parsedBody ?? await requestParser(request);
        } catch (err) {
          throw err instanceof GraphQLError ? err : unreadable((err as Error).message);
        }
        if (Array.isArray(params)) {
          const odd = params.findIndex((p) => !p || typeof p !== "object" || Array.isArray(p));
          if (odd >= 0) throw unreadable(`batch item ${odd} is not an object`);
        }
        return params as Awaited<ReturnType<typeof requestParser>>;
      });
    },
  };
}

/**
 * graphql-armor's refusals become {@link limitExceeded}: thrown from its rejection hook, before
 * armor throws its own error, which calls every limit a "Syntax Error".
 */
function refuseOverLimit(_context: unknown, error: GraphQLError): never {
  throw limitExceeded(error.message.replace(/^Syntax Error: /, ""));
}

/** Records operation names for the request log (`anonymous` when unnamed; a batch joins them). */
function recordOperationName({ document, operationName, contextValue }: ExecutionArgs): void {
  const name = getOperationAST(document, operationName)?.name?.value ?? "anonymous";
  const stats = (contextValue as ServerContext).stats;
  stats.graphqlOperation = stats.graphqlOperation ? `${stats.graphqlOperation},${name}` : name;
}

/** A check an operation must pass before it runs; throws the error the caller gets. */
type ExecutionCheck = (args: ExecutionArgs) => void;

/**
 * Everything the service adds around validating and executing an operation, as one plugin (one
 * hook call per phase): argument names in value errors, then before an operation runs the
 * checks in order, the operation name for the request log, and the error masking of its result.
 */
function operationHooks(
  checks: ExecutionCheck[],
  masking: Plugin<GraphQLContext & ServerContext>,
): Plugin<GraphQLContext & ServerContext> {
  const checkAll = (args: ExecutionArgs) => {
    for (const check of checks) check(args);
  };
  return {
    onValidate: argumentNamesInValueErrors,
    onExecute(payload) {
      checkAll(payload.args);
      recordOperationName(payload.args);
      return masking.onExecute!(payload);
    },
    onSubscribe(payload) {
      checkAll(payload.args);
      return masking.onSubscribe!(payload);
    },
    onResultProcess: masking.onResultProcess,
  };
}

/**
 * Applies {@link maskError} to every error of every result (execution, subscription events and
 * request-level failures), reporting each hidden failure once with the request id, and logging
 * a dependency outage once per result at warn.
 *
 * HTTP 503 only when nothing was served (no root field has a value): a partial result stays 200
 * with `SERVICE_UNAVAILABLE` on the fields that failed, so a client does not blindly retry
 * root fields that succeeded (a mutation's first field, say).
 */
function errorMasking(tracker: ErrorTracker, log: Logger): Plugin<GraphQLContext & ServerContext> {
  const masked = (
    result: ExecutionResult,
    requestId: string | undefined,
    source?: Source,
  ): ExecutionResult => {
    if (!result || !Array.isArray(result.errors) || !result.errors.length) return result;
    const unavailable: DependencyUnavailableError[] = [];
    let errors = result.errors.map((error) => {
      const { error: shown, hidden, unavailable: down } = maskError(error, requestId, source);
      if (down) unavailable.push(down);
      if (hidden !== null) {
        tracker.captureError(hidden, {
          request_id: requestId,
          graphql_path: error.path?.join("."),
        });
      }
      return shown;
    });
    if (unavailable.length) {
      log.warn("dependency unavailable", {
        request_id: requestId,
        dependency: [...new Set(unavailable.map((e) => e.dependency))].join(","),
        error: unavailable[0].message,
        failed_fields: unavailable.length,
      });
    }
    if (somethingServed(result.data)) errors = errors.map(withoutUnavailableStatus);
    return { ...result, errors };
  };
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          setResult(masked(result, args.contextValue.requestId, args.document.loc?.source));
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

function somethingServed(data: ExecutionResult["data"]): boolean {
  return !!data && Object.values(data).some((value) => value !== null && value !== undefined);
}

function withoutUnavailableStatus(error: GraphQLError): GraphQLError {
  if (error.extensions?.code !== "SERVICE_UNAVAILABLE" || !error.extensions.http) return error;
  const { http: _http, ...extensions } = error.extensions;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions,
  });
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
  /** The request rate limits, for other transports: each operation there counts as a request. */
  requestLimits: RequestLimits;
  contextFor(base: ServerContext): GraphQLContext & ServerContext;
  /** Repeated queries over HTTP run compiled (src/graphql/jit.ts): whether and how many. */
  compiledQueries: Pick<CompiledQueries, "ready" | "count">;
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The content types for which yoga parses a POST body as JSON (its `isPOSTJsonRequest`). */
function isJsonRequest(req: Request): boolean {
  const type = req.headers.get("content-type")?.split(",")[0];
  return !!type &&
    ["application/json", "application/graphql+json"].some((expected) =>
      type === expected || type.startsWith(`${expected};`)
    );
}

function unauthenticatedResponse(message: string): Response {
  return json({ errors: [{ message, extensions: { code: "UNAUTHENTICATED" } }] }, 401);
}

/** The top-level error of a refused request (over HTTP or a WebSocket). */
export const rateLimited = (verdict: RateVerdict) =>
  codedError("RATE_LIMITED", `too many requests: retry after ${verdict.retryAfterSeconds} s`, {
    retryAfter: verdict.retryAfterSeconds,
  });

function rateLimitedResponse(verdict: RateVerdict): Response {
  return json({ errors: [rateLimited(verdict).toJSON()] }, 429, retryAfterHeader(verdict));
}

function requestErrorResponse(status: number, message: string): Response {
  return json({ errors: [{ message, extensions: { code: "BAD_USER_INPUT" } }] }, status);
}

const BODYLESS_REFUSALS: Record<number, string> = {
  406: "not acceptable: accept application/graphql-response+json or application/json",
  415: "unsupported content type: send application/json",
};

/** Yoga refuses some requests with a bare status; callers get a GraphQL-shaped body for each. */
function withErrorBody(response: Response): Response {
  const message = BODYLESS_REFUSALS[response.status];
  if (!message || response.headers.get("content-type")) return response;
  return requestErrorResponse(response.status, message);
}

/** A whole request refused because a dependency is down (identifying the caller, say). */
export function serviceUnavailableResponse(): Response {
  const { http, ...extensions } = serviceUnavailableExtensions() as {
    http: { status: number; headers: Record<string, string> };
  };
  return json(
    { errors: [{ message: SERVICE_UNAVAILABLE_MESSAGE, extensions }] },
    http.status,
    http.headers,
  );
}

/** The type definitions of the schema of `modules`, the shared ones first. */
export function schemaTypeDefs(modules: SchemaModule[]): string[] {
  return [baseTypeDefs, ...modules.map((m) => m.typeDefs)];
}

/** Every module's resolvers, the shared scalars first. */
export function schemaResolvers(modules: SchemaModule[]): ResolverMap[] {
  return [scalarResolvers, ...modules.flatMap((m) => (m.resolvers ? [m.resolvers] : []))];
}

/**
 * The one schema of every module, with its resolvers. The type definitions are parsed and built by
 * graphql-js in one pass, without SDL validation (`assumeValidSDL`; the schema test builds the
 * same definitions with it), and the resolvers are set on that schema in place
 * (`attachResolvers`): graphql-tools' default merges the definitions and then copies the whole
 * schema, and even in place it merges the resolver maps first (a sixth of the build).
 */
export function buildSchema(modules: SchemaModule[]): GraphQLSchema {
  const document = concatAST(
    schemaTypeDefs(modules).map((sdl) => parse(sdl, { noLocation: true })),
  );
  const schema = buildASTSchema(document, { assumeValidSDL: true });
  attachResolvers(schema, schemaResolvers(modules));
  withDefaultResolvers(schema);
  describeErrorCodes(schema, modules);
  return schema;
}

export function createGraphQLServer(deps: GraphQLServerDeps): GraphQLServer {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const schema = buildSchema(deps.modules);
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

  const compiled = compiledQueries(deps.log);
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
    plugins: [requestParseErrorsAreBadInput(), apq as Plugin, ...plugins, compiled.plugin],
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
    compiledQueries: compiled,
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
          return serviceUnavailableResponse();
        }
        if (!(err instanceof AuthError)) throw err;
        ctx.log.info("session token refused", { reason: err.message });
        // Refused tokens count as anonymous calls: guessing them is signing in.
        const limited = await deps.requestLimits.anonymous(ctx.remoteAddr);
        if (limited) return rateLimitedResponse(limited);
        return unauthenticatedResponse("invalid session token");
      }
      ctx.stats.userId = viewer?.publicId;
      const limited = viewer
        ? await deps.requestLimits.user(viewer.publicId)
        : await deps.requestLimits.anonymous(ctx.remoteAddr);
      if (limited) return rateLimitedResponse(limited);
      if (post && text === null) {
        return requestErrorResponse(400, "the request body is not valid UTF-8");
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
      return withErrorBody(response);
    },
  };
}
