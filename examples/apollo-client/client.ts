/**
 * Apollo Client for the service: queries and mutations over `POST /graphql` with the session token
 * in the `SessionToken` header, subscriptions over `WS /cable` with graphql-ws and the token in
 * `connectionParams`, split by operation type; the normalised cache of `cache.ts`; the retries of
 * `retry.ts` on the HTTP side (graphql-ws reconnects by itself).
 */
import { ApolloClient, ApolloLink, HttpLink } from "@apollo/client";
import { SetContextLink } from "@apollo/client/link/context";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { type Client as WsClient, createClient as createWsClient } from "graphql-ws";
import { createCache } from "./cache.ts";
import { retryLinks, type RetryOptions } from "./retry.ts";

export interface ExampleClientOptions {
  /** The service's base URL, e.g. `http://localhost:4000`. */
  url: string;
  /**
   * The current session token (the identity provider's JWT), asked for before each HTTP request
   * and each WebSocket connection, so a refreshed token is used from then on.
   */
  getToken: () => string | Promise<string>;
  /** The HTTP client (default the global `fetch`). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Called when the socket (re)connects; `wasRetry` after a reconnection (time to catch up). */
  onConnected?: (wasRetry: boolean) => void;
}

export interface ExampleClient {
  client: ApolloClient;
  /** The graphql-ws client under the subscription link. */
  ws: WsClient;
  /** Stops every operation and closes the socket. */
  dispose(): Promise<void>;
}

export function createExampleClient(options: ExampleClientOptions): ExampleClient {
  const base = options.url.replace(/\/+$/, "");
  const ws = createWsClient({
    url: `${base.replace(/^http/, "ws")}/cable`,
    // Browsers cannot set headers on a WebSocket: the token goes in connection_init.
    connectionParams: async () => ({ SessionToken: await options.getToken() }),
    // Connects with the first subscription and closes after the last one ends.
    lazy: true,
    // Reconnects (with backoff) after a drop, a restart (1001) or a 4503/4513 close; a 4401
    // (no valid token, or it expired) is final: get a new token and subscribe again.
    retryAttempts: 10,
    on: { connected: (_socket, _payload, wasRetry) => options.onConnected?.(wasRetry) },
  });
  const auth = new SetContextLink(async (context) => ({
    headers: { ...context.headers, SessionToken: await options.getToken() },
  }));
  const http = ApolloLink.from([
    retryLinks(options.retry),
    auth,
    new HttpLink({ uri: `${base}/graphql`, fetch: options.fetch }),
  ]);
  const link = ApolloLink.split(
    (operation) => operation.operationType === "subscription",
    new GraphQLWsLink(ws),
    http,
  );
  const client = new ApolloClient({ link, cache: createCache() });
  return {
    client,
    ws,
    async dispose() {
      client.stop();
      await ws.dispose();
    },
  };
}
