import type { Plugin } from "graphql-yoga";
import { type ExecutionResult, GraphQLError } from "graphql";
import type { ErrorTracker } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { DependencyUnavailableError } from "../platform/dependency.ts";
import type { GraphQLContext } from "./context.ts";
import { maskError } from "./errors.ts";
import { FieldErrors } from "./cursor-errors.ts";
import type { ServerContext } from "./server-context.ts";

/**
 * Applies {@link maskError} to every error of every result (execution, subscription events and
 * request-level failures; an execution's {@link FieldErrors} are added first), reporting each hidden failure once with the request id, and logging
 * a dependency outage once per result at warn.
 *
 * HTTP 503 only when nothing was served (no root field has a value): a partial result stays 200
 * with `SERVICE_UNAVAILABLE` on the fields that failed, so a client does not blindly retry
 * root fields that succeeded (a mutation's first field, say).
 */
export function errorMasking(
  tracker: ErrorTracker,
  log: Logger,
): Plugin<GraphQLContext & ServerContext> {
  const masked = (
    result: ExecutionResult,
    requestId: string | undefined,
  ): ExecutionResult => {
    if (!result || !Array.isArray(result.errors) || !result.errors.length) return result;
    const unavailable: DependencyUnavailableError[] = [];
    let errors = result.errors.map((error) => {
      const { error: shown, hidden, unavailable: down } = maskError(error, requestId);
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
          const fieldErrors = args.rootValue instanceof FieldErrors ? args.rootValue.errors : [];
          const all = fieldErrors.length
            ? { ...result, errors: [...(result.errors ?? []), ...fieldErrors] }
            : result;
          setResult(masked(all, args.contextValue.requestId));
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
