/**
 * The `graphql-transport-ws` protocol on `/cable`, served by the `graphql-ws` library's
 * `makeServer` over Deno's WebSocket. Authentication: the upgrade request's token (checked
 * before the socket opens) or `connectionParams.SessionToken`; none valid closes with 4401.
 */
import { GraphQLError } from "graphql";
import { type Context, makeServer } from "graphql-ws";
import type { ErrorTracker } from "../../platform/errors.ts";
import { SlowConsumerError } from "../../platform/pubsub.ts";
import { isCodedError } from "../errors.ts";
import { closeAfterFailure, CloseCodes, type Connection } from "./connection.ts";
import type { CableExecutor, PreparedOperation } from "./execute.ts";

export const GRAPHQL_TRANSPORT_WS = "graphql-transport-ws";

interface Extra {
  connection: Connection;
}

export interface GraphQLWsDeps {
  executor: CableExecutor;
  tracker: ErrorTracker;
  connectionInitWaitMs: number;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;

function causeOf(error: GraphQLError): unknown {
  return error.originalError ?? error;
}

export function createGraphQLWsProtocol(deps: GraphQLWsDeps) {
  // The prepared operation of each execution, found again by its context value.
  const prepared = new WeakMap<object, PreparedOperation>();
  const run = (args: { contextValue?: unknown }) => {
    const operation = prepared.get(args.contextValue as object);
    if (!operation) throw new Error("operation was not prepared");
    return operation.run();
  };

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    connectionInitWaitTimeout: deps.connectionInitWaitMs,
    async onConnect(ctx: Context<Record<string, unknown> | undefined, Extra>) {
      const connection = ctx.extra.connection;
      const paramToken = ctx.connectionParams?.SessionToken;
      if (typeof paramToken === "string" && paramToken !== "") {
        if (!(await connection.authenticate(paramToken))) {
          connection.close(CloseCodes.unauthorized, "Unauthorized");
          return false;
        }
      }
      if (!connection.viewer) {
        connection.close(CloseCodes.unauthorized, "Unauthorized");
        return false;
      }
      return true;
    },
    async onSubscribe(ctx, id, payload) {
      const connection = ctx.extra.connection;
      // graphql-ws registers the operation before this hook, so it counts itself.
      if (Object.keys(ctx.subscriptions).length > connection.limits.maxSubscriptions) {
        return [
          new GraphQLError(
            `too many active operations on this connection (at most ${connection.limits.maxSubscriptions})`,
            { extensions: { code: "BAD_USER_INPUT" } },
          ),
        ];
      }
      const result = await deps.executor.prepare(payload, {
        requestId: `${connection.id}:${id}`,
        log: connection.log,
        viewer: connection.viewer!,
      });
      if ("errors" in result) return result.errors;
      prepared.set(result.args.contextValue as object, result);
      return result.args;
    },
    execute: run as never,
    subscribe: run as never,
    onOperation(ctx, id, _payload, args, result) {
      if (!isAsyncIterable(result)) return;
      const connection = ctx.extra.connection;
      connection.streams.add(id);
      connection.log.debug("cable subscription started", {
        connection_id: connection.id,
        operation: prepared.get(args.contextValue as object)?.name,
        user_id: connection.viewer?.publicId,
      });
    },
    onComplete(ctx, id) {
      ctx.extra.connection.streams.delete(id);
    },
    onError(ctx, id, _payload, errors) {
      const connection = ctx.extra.connection;
      connection.streams.delete(id);
      if (errors.some((e) => causeOf(e) instanceof SlowConsumerError)) {
        connection.log.warn("cable slow consumer closed", { connection_id: connection.id });
        connection.close(CloseCodes.slowConsumer, "Slow consumer");
      }
      return errors.map((error) => {
        const cause = causeOf(error);
        if (isCodedError(cause)) return cause.toJSON();
        if (isCodedError(error)) return error.toJSON();
        if (!(cause instanceof SlowConsumerError)) {
          deps.tracker.captureError(cause, { connection_id: connection.id });
        }
        return { message: "Unexpected error.", extensions: { code: "INTERNAL" } };
      });
    },
  });

  return {
    /** Starts the protocol on an open socket. */
    open(connection: Connection): void {
      const closed = server.opened({
        protocol: connection.protocol,
        send: (message) => connection.send(message),
        close: (code, reason) => connection.close(code ?? CloseCodes.normal, reason ?? ""),
        onMessage: (handle) => {
          connection.socket.onmessage = async (event) => {
            const text = connection.inbound(event.data);
            if (text === null) return;
            try {
              await handle(text);
            } catch (err) {
              if (String((err as Error)?.message).startsWith("Unexpected message")) {
                connection.log.info("cable message refused", { reason: (err as Error).message });
                connection.close(CloseCodes.badRequest, "Invalid message received");
              } else {
                closeAfterFailure(connection, err, deps.tracker, { connection_id: connection.id });
              }
            }
          };
        },
      }, { connection });
      connection.onClose((code, reason) => void closed(code, reason));
    },
  };
}
