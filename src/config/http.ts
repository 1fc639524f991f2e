/**
 * The HTTP surface and the process: the admin console, GraphQL, CORS, rate limits, metrics, logs,
 * shutdown.
 */
import { z } from "zod";
import { integer, secretVariable, variable } from "../platform/env.ts";
import { METRICS_LISTENER_VARIABLES } from "../platform/metrics-config.ts";
import { EDGE_VARIABLES } from "../platform/edge/limits.ts";
import { csv, isOriginOrAny } from "./schemas.ts";

export const HTTP_VARIABLES = {
  ADMIN_BASE_URL: variable({
    defaultText: "http://localhost:4000/admin",
    description: "Base of `admin_url` links.",
    schema: z.url().default("http://localhost:4000/admin"),
  }),
  ADMIN_SIGN_IN_URL: variable({
    description:
      "The identity provider's hosted sign-in page that returns to `/admin/sign-in#token=<JWT>`; the admin console offers it as a link next to pasting a token. Unset = no link. An `http`/`https` URL; it is shown to visitors, so it must carry nothing secret.",
    schema: z.url({ protocol: /^https?$/ }).optional(),
  }),
  GRAPHQL_EXPLORER: variable({
    defaultText: "on; off with `DEPLOY_ENV=production`",
    description:
      "`on`: GraphiQL at `GET /graphql` (served offline, no CDN) and introspection without a session token. `off`: no GraphiQL, and introspection only for signed-in callers. Unset, it is `off` with `DEPLOY_ENV=production` and `on` otherwise; set, it wins.",
    schema: z.enum(["on", "off"]).optional(),
  }),
  CORS_ALLOWED_ORIGINS: variable({
    description:
      "Comma-separated origins (`https://app.example.com`, exactly as browsers send `Origin`) whose pages may call `/graphql` with `SessionToken`: preflights are answered (methods `GET`, `POST`; cached 2 h) and answers carry `Access-Control-Allow-Origin` and `Vary: Origin`. `*` allows every origin. Never with credentials (sessions are a header, not a cookie). Unset = no CORS headers: only same-origin pages and non-browser clients.",
    schema: csv.pipe(
      z.array(
        z.string().refine(
          isOriginOrAny,
          "each entry must be * or an origin such as https://app.example.com (no path)",
        ),
      ),
    ).default([]),
  }),
  RATE_LIMIT_USER_PER_MINUTE: variable({
    defaultText: "600",
    description:
      "GraphQL requests (a batch counts once) one signed-in user may make per minute, across all instances (counted in `REDIS_URL`'s store); over it, HTTP 429 with `Retry-After` and code `RATE_LIMITED`. Every answer of a counted request carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy` (docs/graphql.md). 0 = no limit (and no such headers).",
    schema: integer(0, 1_000_000).default(600),
  }),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: variable({
    defaultText: "300",
    description:
      "Requests per minute from one client address without a valid session: anonymous GraphQL (`publicGoal`, `teamInvitePreview`), refused session tokens and the admin console's pages (sign-in). Same answer as above. 0 = no limit.",
    schema: integer(0, 1_000_000).default(300),
  }),
  RATE_LIMIT_STORE_WAIT_MS: variable({
    defaultText: "75",
    description:
      "Longest a request waits for its rate-limit count in `REDIS_URL`'s store (the limits above and user lookups). Past it, or when the store fails, the request goes through uncounted, and these limits skip the store for 5 s before one request asks it again, so a hung Redis costs a request at most this (docs/reliability.md). Limits that must count (the AI's) keep `REDIS_COMMAND_TIMEOUT_MS`.",
    schema: integer(10, 10_000).default(75),
  }),
  TRUST_PROXY_HOPS: variable({
    defaultText: "0",
    description:
      "Proxies (load balancers) in front of the service that append to `X-Forwarded-For`. 0: the socket's peer is the client and the header is ignored. N: the client is the Nth address from the right of `X-Forwarded-For`; set it only when the service is reachable through those proxies alone.",
    schema: integer(0, 10).default(0),
  }),
  ...EDGE_VARIABLES,
  CABLE_MAX_CONNECTIONS_PER_USER: variable({
    defaultText: "20",
    description:
      "`/cable` sockets one signed-in user may hold on an instance. One more is refused: with 429 `too_many_connections` when its session token comes with the upgrade, else closed with 4429 (too many connections) when it signs in with `connection_init`. 0 = no cap.",
    schema: integer(0, 1_000_000).default(20),
  }),
  CABLE_MAX_CONNECTIONS_PER_ADDRESS: variable({
    defaultText: "100",
    description:
      "`/cable` sockets one client address (after `TRUST_PROXY_HOPS`) may hold on an instance; the next upgrade is answered 429 `too_many_connections` before it becomes a socket. 0 = no cap.",
    schema: integer(0, 1_000_000).default(100),
  }),
  METRICS_TOKEN: secretVariable({
    description:
      "Bearer token for `GET /metrics` (Prometheus text format) on the service's port: a scrape sends `Authorization: Bearer <token>`. Unset, and with `METRICS_PORT` unset, no metrics are served (docs/observability.md).",
    shorterAccepted: 16,
  }),
  ...METRICS_LISTENER_VARIABLES,
  LOG_LEVEL: variable({
    defaultText: "info",
    description: "Lowest level written: `debug`, `info`, `warn` or `error`.",
    schema: z.enum(["debug", "info", "warn", "error"]).default("info"),
  }),
  SHUTDOWN_TIMEOUT_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long running jobs may take to finish before they are released to another instance (the attempt counts).",
    schema: integer(0, 600_000).default(10_000),
  }),
  SHUTDOWN_DRAIN_MS: variable({
    defaultText: "10000",
    description:
      "On SIGTERM, how long in-flight HTTP requests (uploads included) may take to finish; runs alongside the job grace, not after it.",
    schema: integer(0, 600_000).default(10_000),
  }),
} as const;
