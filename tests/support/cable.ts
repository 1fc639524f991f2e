/**
 * Real WebSocket clients for `/cable`: the test app served as the service serves it (the guarded
 * listener of src/platform/edge/) on a free port, the
 * `graphql-ws` client library, and a raw ActionCable client that records every frame.
 */
import { type Client, createClient, type ExecutionResult } from "graphql-ws";
import type { TestApp } from "./app.ts";
import { waitFor } from "./wait.ts";
import { serveGuarded } from "../../src/platform/edge/serve.ts";

export interface Served {
  url: string;
  wsUrl: string;
  /**
   * Stops listening, as a stopped service would: `/cable` connections are told goodbye, the
   * listener closes (new connections are refused), the app and its database keep running.
   */
  stop(): Promise<void>;
  /** Listens again on the same port with the same app. */
  restart(): void;
  close(): Promise<void>;
}

/** Serves the test app on 127.0.0.1 and a free port; {@link Served.stop} and
 * {@link Served.restart} take the service away from its clients and bring it back. */
/**
 * Listens on a random port below Linux's ephemeral range (32768 and up). A test may stop the app
 * and listen again on its port (`restart`); meanwhile any listener that asks for port 0, in this
 * process or another, may be handed a just-freed ephemeral port, but never one of these.
 */
function listenBelowEphemeral<T>(listen: (port: number) => T): T {
  for (let attempt = 0;; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 22_768);
    try {
      return listen(port);
    } catch (err) {
      if (!(err instanceof Deno.errors.AddrInUse) || attempt >= 50) throw err;
    }
  }
}

export function serveApp(t: TestApp): Served {
  const listen = (port: number) => {
    const server = serveGuarded(
      { port, hostname: "127.0.0.1", limits: t.deps.config.edge, log: t.log },
      (req, info) => t.app.handler(req, info),
    );
    return { server, stop: () => server.shutdown() };
  };
  let listening: ReturnType<typeof listen> | null = listenBelowEphemeral(listen);
  const port = listening.server.addr.port;
  const stop = async () => {
    const current = listening;
    listening = null;
    if (!current) return;
    t.app.cable.close();
    await current.stop();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/cable`,
    stop,
    restart() {
      listening ??= listen(port);
    },
    close: stop,
  };
}

/** A WebSocket class that sends extra headers on the upgrade (Deno's constructor option). */
export function webSocketWithHeaders(headers: Record<string, string>): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      const list = protocols === undefined
        ? []
        : Array.isArray(protocols)
        ? protocols
        : [protocols];
      // deno-lint-ignore no-explicit-any
      super(url, { protocols: list, headers } as any);
    }
  };
}

export interface WsClientOptions {
  /** Sent as the `SessionToken` upgrade header. */
  headerToken?: string;
  /** Sent as `connectionParams.SessionToken`. */
  paramsToken?: string;
  /** Appended as `?token=`. */
  queryToken?: string;
}

export interface WsClient {
  client: Client;
  /** Close events seen by the client. */
  closes: { code: number; reason: string }[];
  dispose(): Promise<void>;
}

export function wsClient(wsUrl: string, options: WsClientOptions = {}): WsClient {
  const closes: { code: number; reason: string }[] = [];
  const url = options.queryToken
    ? `${wsUrl}?token=${encodeURIComponent(options.queryToken)}`
    : wsUrl;
  const client = createClient({
    url,
    webSocketImpl: options.headerToken
      ? webSocketWithHeaders({ SessionToken: options.headerToken })
      : WebSocket,
    connectionParams: options.paramsToken ? { SessionToken: options.paramsToken } : undefined,
    retryAttempts: 0,
    lazy: true,
    on: {
      closed: (event) => {
        const e = event as CloseEvent;
        closes.push({ code: e.code, reason: e.reason });
      },
    },
  });
  return { client, closes, dispose: async () => await client.dispose() };
}

export interface Stream {
  results: ExecutionResult[];
  /** Errors (GraphQL errors array or a CloseEvent). */
  // deno-lint-ignore no-explicit-any
  error: any;
  completed: boolean;
  done: Promise<void>;
  unsubscribe(): void;
}

/** Subscribes (or runs a query) and records everything that comes back. */
export function stream(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
): Stream {
  let settle: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const s: Stream = {
    results: [],
    error: undefined,
    completed: false,
    done,
    unsubscribe: () => {},
  };
  s.unsubscribe = client.subscribe({ query, variables }, {
    next: (value) => void s.results.push(value as ExecutionResult),
    error: (err) => {
      s.error = err;
      settle();
    },
    complete: () => {
      s.completed = true;
      settle();
    },
  });
  return s;
}

/** A raw ActionCable client: records every frame and lets the test send commands. */
export interface RawCable {
  socket: WebSocket;
  // deno-lint-ignore no-explicit-any
  frames: any[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  /** Resolves with the first recorded frame (from `from` on) matching `match`. */
  // deno-lint-ignore no-explicit-any
  next(match: (frame: any) => boolean, ms?: number): Promise<any>;
  subscribe(identifier: string): void;
  execute(
    identifier: string,
    query: string,
    variables?: Record<string, unknown>,
    operationName?: string,
  ): void;
  close(): void;
}

export const graphqlChannel = (channelId = crypto.randomUUID()) =>
  JSON.stringify({ channel: "GraphqlChannel", channelId });

export function rawCable(
  wsUrl: string,
  options: { headerToken?: string; queryToken?: string; protocols?: string[] } = {},
): RawCable {
  const url = options.queryToken
    ? `${wsUrl}?token=${encodeURIComponent(options.queryToken)}`
    : wsUrl;
  const protocols = options.protocols ?? ["actioncable-v1-json", "actioncable-unsupported"];
  const socket = options.headerToken
    ? new (webSocketWithHeaders({ SessionToken: options.headerToken }))(url, protocols)
    : new WebSocket(url, protocols);
  // deno-lint-ignore no-explicit-any
  const frames: any[] = [];
  const opened = new Promise<void>((resolve) => socket.addEventListener("open", () => resolve()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason }))
  );
  socket.addEventListener("message", (e) => frames.push(JSON.parse(e.data)));
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  return {
    socket,
    frames,
    opened,
    closed,
    send,
    async next(match, ms = 5000) {
      let found;
      await waitFor(() => (found = frames.find(match)) !== undefined, {
        timeoutMs: ms,
        what: "a matching frame",
      });
      return found;
    },
    subscribe: (identifier) => send({ command: "subscribe", identifier }),
    execute: (identifier, query, variables, operationName) =>
      send({
        command: "message",
        identifier,
        data: JSON.stringify({ action: "execute", query, variables, operationName }),
      }),
    close: () => socket.close(),
  };
}
