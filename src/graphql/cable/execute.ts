/**
 * Runs GraphQL operations that arrive over `/cable` with the schema, envelop plugins (armor limits,
 * public-operation gate, error codes and masking) and context of `POST /graphql`.
 */
import { envelop, useEngine, useSchema } from "@envelop/core";
import {
  type DocumentNode,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  subscribe,
  validate,
} from "graphql";
import type { Logger } from "../../platform/log.ts";
import type { Viewer } from "../context.ts";
import { isCodedError, publicExtensions } from "../errors.ts";
import type { GraphQLServer } from "../server.ts";
import { rateLimited } from "../responses.ts";
import { refusal } from "../../http/request-limits.ts";

/** What a client sends for one operation (either protocol). */
export interface OperationRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

export type OperationKind = "query" | "mutation" | "subscription";

export interface PreparedOperation {
  kind: OperationKind;
  name: string;
  args: ExecutionArgs;
  /** Executes (query, mutation) or subscribes; a subscription yields an async iterable. */
  run(): Promise<ExecutionResult | AsyncIterable<ExecutionResult>>;
}

export interface OperationBase {
  requestId: string;
  log: Logger;
  viewer: Viewer;
}

export interface CableExecutor {
  /**
   * Counts the operation as one request of the viewer (RATE_LIMITED past the limit), parses and
   * validates; answers the errors (BAD_USER_INPUT, GRAPHQL_VALIDATION_FAILED) or a runnable
   * operation.
   */
  prepare(
    request: OperationRequest,
    base: OperationBase,
  ): Promise<{ errors: GraphQLError[] } | PreparedOperation>;
}

/**
 * Request-level failures (malformed payload, limits) are BAD_USER_INPUT; a document that does not
 * parse or validate keeps the GRAPHQL_VALIDATION_FAILED the operation hooks gave it.
 */
function asUserInputError(error: unknown): GraphQLError {
  if (isCodedError(error)) return error;
  if (error instanceof GraphQLError) {
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      extensions: { ...publicExtensions(error.extensions), code: "BAD_USER_INPUT" },
    });
  }
  return new GraphQLError("invalid operation", { extensions: { code: "BAD_USER_INPUT" } });
}

const userInput = (message: string) => ({
  errors: [new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } })],
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function createCableExecutor(graphql: GraphQLServer): CableExecutor {
  const getEnveloped = envelop({
    plugins: [
      useEngine({ parse, validate, specifiedRules, execute, subscribe }),
      useSchema(graphql.schema),
      // deno-lint-ignore no-explicit-any
      ...(graphql.plugins as any[]),
    ],
  });

  return {
    async prepare(request, base) {
      if (typeof request.query !== "string" || request.query.trim() === "") {
        return userInput("`query` must be a non-empty string");
      }
      if (request.variables !== undefined && request.variables !== null) {
        if (!isPlainObject(request.variables)) return userInput("`variables` must be an object");
      }
      if (
        request.operationName !== undefined && request.operationName !== null &&
        typeof request.operationName !== "string"
      ) {
        return userInput("`operationName` must be a string");
      }
      const refused = refusal(await graphql.requestLimits.user(base.viewer.publicId));
      if (refused) return { errors: [rateLimited(refused)] };
      const operationName = (request.operationName as string | null | undefined) ?? undefined;
      const context = graphql.contextFor({
        requestId: base.requestId,
        log: base.log,
        viewer: base.viewer,
        stats: { requestId: base.requestId, dbMs: 0, statements: 0, userId: base.viewer.publicId },
      });
      const enveloped = getEnveloped(context);
      let document: DocumentNode;
      try {
        document = enveloped.parse(request.query);
      } catch (err) {
        return { errors: [asUserInputError(err)] };
      }
      let validationErrors: readonly GraphQLError[];
      try {
        validationErrors = enveloped.validate(enveloped.schema, document);
      } catch (err) {
        // Armor's limits throw from inside validation.
        return { errors: [asUserInputError(err)] };
      }
      if (validationErrors.length) return { errors: validationErrors.map(asUserInputError) };
      const operation = getOperationAST(document, operationName);
      if (!operation) return userInput("unable to identify the operation to run");
      const args: ExecutionArgs = {
        schema: enveloped.schema,
        document,
        operationName,
        variableValues: (request.variables as Record<string, unknown> | null) ?? undefined,
        contextValue: await enveloped.contextFactory(context),
      };
      const kind = operation.operation as OperationKind;
      return {
        kind,
        name: operation.name?.value ?? "anonymous",
        args,
        run: async () => {
          if (kind !== "subscription") {
            return withoutHttp(await enveloped.execute(args) as ExecutionResult);
          }
          const result = await enveloped.subscribe(args);
          return isAsyncIterable<ExecutionResult>(result)
            ? mapResults(result, withoutHttp)
            : withoutHttp(result as ExecutionResult);
        },
      };
    },
  };
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** A result as a WebSocket client sees it: `extensions.http` only means something over HTTP. */
function withoutHttp(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((e) => e.extensions?.http)) return result;
  return {
    ...result,
    errors: result.errors.map((e) =>
      e.extensions?.http
        ? new GraphQLError(e.message, {
          nodes: e.nodes,
          source: e.source,
          positions: e.positions,
          path: e.path,
          extensions: publicExtensions(e.extensions),
        })
        : e
    ),
  };
}

/**
 * `results` with `map` applied to each; `return()` goes straight to the source, so ending a
 * subscription never waits for its next event (an async generator would).
 */
function mapResults(
  results: AsyncIterable<ExecutionResult>,
  map: (r: ExecutionResult) => ExecutionResult,
): AsyncIterableIterator<ExecutionResult> {
  const source = results[Symbol.asyncIterator]();
  const done = { done: true as const, value: undefined };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const next = await source.next();
      return next.done ? next : { done: false, value: map(next.value) };
    },
    return: async () => (source.return ? await source.return() : done),
    throw: async (err?: unknown) => (source.throw ? await source.throw(err) : done),
  };
}
