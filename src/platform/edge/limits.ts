/**
 * The bounds a directly exposed listener puts on each client connection (docs/reliability.md,
 * "Slow and greedy clients"), declared once for the service's and the runner's configuration.
 */
import { integer, variable } from "../env.ts";

export interface EdgeLimits {
  /**
   * Time a connection has to send a complete request head: from connecting, and from the first
   * byte of each later request. 0 = unbounded.
   */
  headersTimeoutMs: number;
  /**
   * A connection with no request under way is closed after this long without one, and a client
   * that leaves an answer unread this long is disconnected. 0 = unbounded.
   */
  idleTimeoutMs: number;
  /** Open connections from one client address; over it, 429. 0 = no cap. */
  maxConnectionsPerAddress: number;
  /** Open client connections in all; over it, 503. 0 = no cap. */
  maxConnections: number;
}

export const DEFAULT_EDGE_LIMITS: EdgeLimits = {
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  maxConnectionsPerAddress: 256,
  maxConnections: 4096,
};

/** Also read by the request body reader (the service's and the runner's). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** The connection variables, the same on the service and the runner. */
export const EDGE_VARIABLES = {
  HTTP_HEADERS_TIMEOUT_MS: variable({
    defaultText: String(DEFAULT_EDGE_LIMITS.headersTimeoutMs),
    description:
      "Time a client connection has to send a complete request head (request line and headers): from connecting, and from the first byte of each later request on the connection. Past it the client gets 408 and the connection is closed. 0 = unbounded.",
    schema: integer(0, 600_000).default(DEFAULT_EDGE_LIMITS.headersTimeoutMs),
  }),
  HTTP_BODY_TIMEOUT_MS: variable({
    defaultText: String(DEFAULT_BODY_TIMEOUT_MS),
    description:
      "Time a request body has to arrive whole, from the end of its head. Past it the answer is 408 `request_timeout` and the connection is closed. 0 = unbounded.",
    schema: integer(0, 600_000).default(DEFAULT_BODY_TIMEOUT_MS),
  }),
  HTTP_IDLE_TIMEOUT_MS: variable({
    defaultText: String(DEFAULT_EDGE_LIMITS.idleTimeoutMs),
    description:
      "A kept-alive connection with no request under way is closed after this long without one; a client that leaves an answer unread this long is disconnected. WebSockets are exempt (they are pinged). 0 = unbounded.",
    schema: integer(0, 3_600_000).default(DEFAULT_EDGE_LIMITS.idleTimeoutMs),
  }),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: variable({
    defaultText: String(DEFAULT_EDGE_LIMITS.maxConnectionsPerAddress),
    description:
      "Open connections (WebSockets included) one client address may hold; one more is answered 429 `too_many_connections` and closed. It counts the socket's peer: behind a load balancer every connection comes from it, so set 0 there and cap clients in the load balancer (the service turns it off itself when `TRUST_PROXY_HOPS` is set). 0 = no cap.",
    schema: integer(0, 1_000_000).default(DEFAULT_EDGE_LIMITS.maxConnectionsPerAddress),
  }),
  HTTP_MAX_CONNECTIONS: variable({
    defaultText: String(DEFAULT_EDGE_LIMITS.maxConnections),
    description:
      "Open client connections in all; one more is answered 503 `at_capacity` and closed, so the process keeps file descriptors for its own work. 0 = no cap. With this, `HTTP_HEADERS_TIMEOUT_MS`, `HTTP_IDLE_TIMEOUT_MS` and `HTTP_MAX_CONNECTIONS_PER_ADDRESS` all 0 (behind a load balancer that bounds its clients), connections are no longer relayed through the bounding listener, which saves its cost (about 20 µs of CPU per request).",
    schema: integer(0, 1_000_000).default(DEFAULT_EDGE_LIMITS.maxConnections),
  }),
};
