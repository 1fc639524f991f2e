/**
 * The ActionCable protocol (`actioncable-v1-json`) on `/cable`, as Rails clients and
 * graphql-ruby-client speak it: `welcome`, a `ping` every 3 s, `subscribe` to `GraphqlChannel`
 * (confirmed or rejected), `message` with `{action: "execute", query, variables, operationName}`.
 * Each subscription update is sent as `{identifier, message: {result, more: true}}`; a query or
 * mutation result, a refused subscription and the end of a stream as `more: false`.
 * Authentication failures and token expiry send `disconnect` with reason `unauthorized`.
 */
import type { ExecutionResult } from "graphql";
import type { Clock } from "../../platform/clock.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { SlowConsumerError } from "../../platform/pubsub.ts";
import { closeAfterFailure, CloseCodes, type Connection } from "./connection.ts";
import type { CableExecutor } from "./execute.ts";

export const ACTION_CABLE_V1_JSON = "actioncable-v1-json";
export const GRAPHQL_CHANNEL = "GraphqlChannel";
/** Channel subscriptions one connection may hold (clients open one per operation). */
export const MAX_CHANNELS = 100;

export interface ActionCableDeps {
  executor: CableExecutor;
  tracker: ErrorTracker;
  clock: Clock;
}

interface Channel {
  streams: Map<number, AsyncIterator<ExecutionResult>>;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<ExecutionResult> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;

function parseObject(text: unknown): Record<string, unknown> | null {
  if (typeof text !== "string") return null;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function createActionCableProtocol(deps: ActionCableDeps) {
  return {
    open(connection: Connection): void {
      const channels = new Map<string, Channel>();
      let nextStream = 0;
      const send = (message: unknown) => connection.send(JSON.stringify(message));
      const disconnect = async (reason: string, reconnect: boolean, code: number) => {
        await send({ type: "disconnect", reason, reconnect });
        connection.close(code, reason);
      };
      const transmit = (identifier: string, result: unknown, more: boolean) =>
        send({ identifier, message: { result, more } });
      const stopChannel = async (channel: Channel) => {
        const streams = [...channel.streams.values()];
        channel.streams.clear();
        await Promise.all(streams.map((s) => s.return?.()));
      };

      if (!connection.viewer) {
        void disconnect("unauthorized", false, CloseCodes.unauthorized);
        return;
      }
      connection.onExpire = () => void disconnect("unauthorized", false, CloseCodes.unauthorized);
      connection.onShutdown = () => void disconnect("server_restart", true, CloseCodes.goingAway);
      void send({ type: "welcome" });
      const ping = setInterval(
        () => void send({ type: "ping", message: Math.floor(deps.clock.now().getTime() / 1000) }),
        connection.limits.actionCablePingMs,
      );
      connection.onClose(() => {
        clearInterval(ping);
        for (const channel of channels.values()) void stopChannel(channel);
        channels.clear();
      });

      const execute = async (
        identifier: string,
        channel: Channel,
        data: Record<string, unknown>,
      ) => {
        const active = [...channels.values()].reduce((n, c) => n + c.streams.size, 0);
        if (active >= connection.limits.maxSubscriptions) {
          await transmit(identifier, {
            errors: [{
              message:
                `too many active operations on this connection (at most ${connection.limits.maxSubscriptions})`,
              extensions: { code: "BAD_USER_INPUT" },
            }],
          }, false);
          return;
        }
        const key = nextStream++;
        const prepared = await deps.executor.prepare(data, {
          requestId: `${connection.id}:${key}`,
          log: connection.log,
          viewer: connection.viewer!,
        });
        if ("errors" in prepared) {
          await transmit(identifier, { errors: prepared.errors }, false);
          return;
        }
        const result = await prepared.run();
        if (!isAsyncIterable(result)) {
          await transmit(identifier, result, false);
          return;
        }
        const iterator = result[Symbol.asyncIterator]();
        if (channels.get(identifier) !== channel || connection.closed) {
          await iterator.return?.();
          return;
        }
        channel.streams.set(key, iterator);
        const streamKey = `${identifier}#${key}`;
        connection.streams.add(streamKey);
        connection.log.debug("cable subscription started", {
          connection_id: connection.id,
          operation: prepared.name,
          user_id: connection.viewer?.publicId,
        });
        try {
          while (true) {
            const next = await iterator.next();
            if (next.done || !channel.streams.has(key)) break;
            await transmit(identifier, next.value, true);
          }
          // The server ended the stream (not an unsubscribe): tell the client it is over.
          if (channel.streams.has(key) && !connection.closed) {
            await transmit(identifier, { data: null }, false);
          }
        } catch (err) {
          if (err instanceof SlowConsumerError) {
            connection.log.warn("cable slow consumer closed", { connection_id: connection.id });
            connection.close(CloseCodes.slowConsumer, "Slow consumer");
          } else {
            deps.tracker.captureError(err, { connection_id: connection.id });
            await transmit(identifier, {
              errors: [{ message: "Unexpected error.", extensions: { code: "INTERNAL" } }],
            }, false);
          }
        } finally {
          channel.streams.delete(key);
          connection.streams.delete(streamKey);
        }
      };

      connection.socket.onmessage = (event) => {
        const text = connection.inbound(event.data);
        if (text === null) return;
        const message = parseObject(text);
        const identifier = message?.identifier;
        if (!message || typeof identifier !== "string") {
          connection.log.info("cable message refused", { reason: "not a command" });
          return;
        }
        switch (message.command) {
          case "subscribe": {
            if (channels.has(identifier)) return;
            if (
              parseObject(identifier)?.channel !== GRAPHQL_CHANNEL ||
              channels.size >= MAX_CHANNELS
            ) {
              void send({ identifier, type: "reject_subscription" });
              return;
            }
            channels.set(identifier, { streams: new Map() });
            void send({ identifier, type: "confirm_subscription" });
            return;
          }
          case "unsubscribe": {
            const channel = channels.get(identifier);
            channels.delete(identifier);
            if (channel) void stopChannel(channel);
            return;
          }
          case "message": {
            const channel = channels.get(identifier);
            const data = parseObject(message.data);
            if (!channel || !data || data.action !== "execute") {
              connection.log.info("cable message refused", {
                reason: channel ? "unknown action" : "not subscribed",
              });
              return;
            }
            execute(identifier, channel, data).catch((err) => {
              closeAfterFailure(connection, err, deps.tracker, { connection_id: connection.id });
            });
            return;
          }
          default:
            connection.log.info("cable message refused", { reason: "unknown command" });
        }
      };
    },
  };
}
