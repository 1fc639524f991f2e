/**
 * Each executed GraphQL operation (HTTP and `/cable` alike) counted and timed by name, with its
 * result's errors by `extensions.code`, and run inside a span so resolvers' SQL statements and
 * the jobs they enqueue belong to it (docs/observability.md).
 */
import { type ExecutionResult, getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import { inSpan, recordingSpan } from "../platform/tracing.ts";
import type { ServiceMetrics } from "../platform/service-metrics.ts";

export type GraphQLMetrics = Pick<ServiceMetrics, "graphqlOperation">;

const codesOf = (result: ExecutionResult): string[] =>
  result.errors?.map((e) => String(e.extensions?.code ?? "INTERNAL_SERVER_ERROR")) ?? [];

export function observeOperations(metrics: GraphQLMetrics): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const started = performance.now();
      const operation = getOperationAST(args.document, args.operationName);
      const name = operation?.name?.value;
      const type = operation?.operation ?? "query";
      if (recordingSpan()) {
        setExecuteFn((a) =>
          inSpan(`graphql.${type} ${name ?? "anonymous"}`, {
            attributes: {
              "graphql.operation.name": name ?? "anonymous",
              "graphql.operation.type": type,
            },
          }, async () => await executeFn(a))
        );
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          metrics.graphqlOperation(
            name,
            type,
            (performance.now() - started) / 1000,
            codesOf(result),
          );
        },
      };
    },
  };
}
