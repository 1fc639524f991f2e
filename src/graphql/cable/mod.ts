/**
 * `WS /cable` (spec 4.1, 4.3): one endpoint, two client protocols chosen by the offered
 * subprotocol: `graphql-transport-ws` (the graphql-ws library) and `actioncable-v1-json` (Rails
 * clients). Both run operations through the schema, plugins and context of `POST /graphql`.
 *
 * The session token comes from the `SessionToken` header of the upgrade request, a `token` query
 * parameter (browsers cannot set headers on a WebSocket) or, for graphql-ws,
 * `connectionParams.SessionToken`. Connections are counted in the log (`cable connected` /
 * `cable disconnected` carry `connections`). A client address, and a signed-in user, may hold a
 * bounded number of sockets: over it, an upgrade is answered 429 (its user known from the upgrade's
 * token, or its address), and a socket whose user signs in afterwards is closed with 4429.
 */
import type { Clock } from "../../platform/clock.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import type { Logger } from "../../platform/log.ts";
import type { RequestContext } from "../../http/context.ts";
import { json } from "../../http/router.ts";
import { errorResponse } from "../../platform/contract/errors.ts";
import { SESSION_TOKEN_HEADER } from "../auth.ts";
import type { GraphQLServer } from "../server.ts";
import { ACTION_CABLE_V1_JSON, createActionCableProtocol } from "./actioncable.ts";
import {
  type CableLimits,
  closeAfterFailure,
  CloseCodes,
  Connection,
  DEFAULT_CABLE_LIMITS,
  verifySessionToken,
} from "./connection.ts";
import { SocketCap } from "./caps.ts";
import { createCableExecutor } from "./execute.ts";
import { createGraphQLWsProtocol, GRAPHQL_TRANSPORT_WS } from "./graphql-ws.ts";

export { ACTION_CABLE_V1_JSON, GRAPHQL_TRANSPORT_WS };
export type { CableLimits };

export interface CableDeps {
  graphql: GraphQLServer;
  log: Logger;
  clock: Clock;
  tracker: ErrorTracker;
  limits?: Partial<CableLimits>;
}

export interface Cable {
  /** The `/cable` route handler. */
  handle(req: Request, ctx: RequestContext): Promise<Response>;
  stats(): { connections: number; subscriptions: number };
  /** The same counts by subprotocol (`none` before one was agreed). */
  statsByProtocol(): Record<string, { connections: number; subscriptions: number }>;
  /** Says goodbye to every connection (instance shutdown). */
  close(): void;
}

const SUPPORTED = [GRAPHQL_TRANSPORT_WS, ACTION_CABLE_V1_JSON];

export function createCable(deps: CableDeps): Cable {
  const limits = { ...DEFAULT_CABLE_LIMITS, ...deps.limits };
  const executor = createCableExecutor(deps.graphql);
  const graphqlWs = createGraphQLWsProtocol({
    executor,
    tracker: deps.tracker,
    connectionInitWaitMs: limits.connectionInitWaitMs,
  });
  const actionCable = createActionCableProtocol({
    executor,
    tracker: deps.tracker,
    clock: deps.clock,
  });
  const connections = new Set<Connection>();
  const perUser = new SocketCap(limits.maxConnectionsPerUser);
  const perAddress = new SocketCap(limits.maxConnectionsPerAddress);
  const addressOf = new WeakMap<Connection, string>();

  const tooMany = (message: string) => {
    const response = errorResponse("too_many_connections", message);
    response.headers.set("retry-after", "5");
    return response;
  };

  const onClosed = (connection: Connection, code: number) => {
    if (!connections.delete(connection)) return;
    const address = addressOf.get(connection);
    if (address !== undefined) perAddress.release(address);
    connection.log.info("cable disconnected", {
      connection_id: connection.id,
      protocol: connection.protocol || null,
      user_id: connection.viewer?.publicId ?? null,
      code,
      duration_ms: connection.durationMs,
      connections: connections.size,
    });
  };

  return {
    async handle(req, ctx) {
      if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
        return json({ error: "upgrade_required", protocols: SUPPORTED }, 426);
      }
      // Headers must be read before the upgrade response is returned.
      const offered = (req.headers.get("sec-websocket-protocol") ?? "")
        .split(",").map((p) => p.trim()).filter(Boolean);
      const protocol = offered.find((p) => SUPPORTED.includes(p));
      const token = req.headers.get(SESSION_TOKEN_HEADER) ||
        new URL(req.url).searchParams.get("token") || null;
      ctx.logParams = { ...ctx.logParams, protocol: protocol ?? null };
      const address = ctx.remoteAddr;
      if (address !== undefined && !perAddress.take(address)) {
        ctx.log.info("cable connection refused: too many for the address", {
          limit: limits.maxConnectionsPerAddress,
        });
        return tooMany(`this address holds ${perAddress.max} sockets, the most it may`);
      }
      let viewer = null;
      let failure: { err: unknown } | null = null;
      try {
        viewer = await verifySessionToken(deps.graphql, token, ctx.log);
      } catch (err) {
        // Not a refused token but a failure (the database, say): the client may retry.
        failure = { err };
      }
      ctx.stats.userId = viewer?.publicId;
      if (viewer && !perUser.hasRoom(viewer.publicId)) {
        if (address !== undefined) perAddress.release(address);
        ctx.log.info("cable connection refused: too many for the user", {
          limit: limits.maxConnectionsPerUser,
        });
        return tooMany(`this user holds ${perUser.max} sockets, the most they may`);
      }
      let upgrade;
      try {
        upgrade = Deno.upgradeWebSocket(req, { protocol, idleTimeout: limits.idleTimeoutSeconds });
      } catch (err) {
        if (address !== undefined) perAddress.release(address);
        throw err;
      }
      const { socket, response } = upgrade;
      const connection = new Connection(socket, protocol ?? "", token, ctx.log, {
        graphql: deps.graphql,
        log: ctx.log,
        clock: deps.clock,
        limits,
        admitUser: (userId) => perUser.take(userId),
        releaseUser: (userId) => perUser.release(userId),
        onClosed,
      });
      connections.add(connection);
      if (address !== undefined) addressOf.set(connection, address);
      // Room was checked above, with nothing awaited since.
      if (viewer) connection.adopt(viewer);

      socket.onopen = () => {
        connection.log.info("cable connected", {
          connection_id: connection.id,
          protocol: protocol ?? null,
          user_id: viewer?.publicId ?? null,
          connections: connections.size,
        });
        if (failure) {
          closeAfterFailure(connection, failure.err, deps.tracker, {
            request_id: ctx.requestId,
            path: "/cable",
          });
        } else if (!protocol) {
          connection.close(CloseCodes.subprotocolNotAcceptable, "Subprotocol not acceptable");
        } else if (protocol === ACTION_CABLE_V1_JSON) {
          // Refuses (disconnect `unauthorized`) when no valid token came with the upgrade.
          actionCable.open(connection);
        } else if (token && !viewer) {
          connection.close(CloseCodes.unauthorized, "Unauthorized");
        } else {
          graphqlWs.open(connection);
        }
      };
      return response;
    },
    stats() {
      let subscriptions = 0;
      for (const c of connections) subscriptions += c.streams.size;
      return { connections: connections.size, subscriptions };
    },
    statsByProtocol() {
      const counts: Record<string, { connections: number; subscriptions: number }> = {};
      for (const p of SUPPORTED) counts[p] = { connections: 0, subscriptions: 0 };
      for (const c of connections) {
        const entry = counts[c.protocol || "none"] ??= { connections: 0, subscriptions: 0 };
        entry.connections++;
        entry.subscriptions += c.streams.size;
      }
      return counts;
    },
    close() {
      for (const connection of connections) connection.onShutdown();
    },
  };
}
