/** Listening, the database and Redis. */
import { z } from "zod";
import { integer, variable } from "../platform/env.ts";

export const STORAGE_VARIABLES = {
  PORT: variable({
    defaultText: "4000",
    description: "Listen port; `0` picks a free port, logged as `listening` with `port`.",
    schema: integer(0, 65535).default(4000),
  }),
  HOST: variable({
    defaultText: "0.0.0.0",
    description: "Listen address.",
    schema: z.string().min(1).default("0.0.0.0"),
  }),
  DATA_DIR: variable({
    defaultText: "./data",
    description:
      "Embedded database (`DATA_DIR/pg`) and other local state. Opened by one process at a time: the holder locks `DATA_DIR/data-dir.lock`, and a second `serve`, `migrate` or `demo-data` on it exits 1 naming the holder (docs/deployment.md).",
    schema: z.string().min(1).default("./data"),
  }),
  DATABASE_URL: variable({
    description: "PostgreSQL connection URL; unset = embedded PGlite under `DATA_DIR/pg`.",
    schema: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    secret: "url",
  }),
  DATABASE_DIRECT_URL: variable({
    description:
      "Set only when `DATABASE_URL` goes through a transaction pooler (PgBouncer `pool_mode = transaction`): the PostgreSQL server's own URL. LISTEN (job wake-ups) and migrations use it, one connection per instance; `DATABASE_URL` then runs without prepared statements or start-up settings. See docs/deployment.md.",
    schema: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    secret: "url",
  }),
  DATABASE_POOL_SIZE: variable({
    defaultText: "10",
    description:
      "Connections per instance to PostgreSQL (embedded mode always uses 1). Keep N instances x pool under the server's limit (25 on small tiers).",
    schema: integer(1, 100).default(10),
  }),
  DATABASE_CONNECT_TIMEOUT_MS: variable({
    defaultText: "3000",
    description:
      "How long opening a database connection may take before the request fails with `SERVICE_UNAVAILABLE` (HTTP 503).",
    schema: integer(100, 600_000).default(3000),
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: variable({
    defaultText: "5000",
    description:
      "Longest a statement may run: the server's `statement_timeout`, and on the client (plus 1 s) the bound on every awaited statement including the wait for a pool connection, so a stopped server answers `SERVICE_UNAVAILABLE` (503) instead of hanging. Migrations are exempt.",
    schema: integer(100, 3_600_000).default(5000),
  }),
  REDIS_URL: variable({
    description: "Redis URL for rate limits and pub/sub fan-out; unset = in-process store.",
    schema: z.url({ protocol: /^rediss?$/ }).optional(),
    secret: "url",
  }),
  REDIS_KEY_PREFIX: variable({
    defaultText: "goals:",
    description:
      "Prepended to every Redis key and pub/sub channel, so deployments sharing one Redis (pub/sub ignores the database index) never see each other's counters, persisted queries or events. Printable ASCII without spaces, at most 64 characters.",
    schema: z.string().max(64).regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .default("goals:"),
  }),
  REDIS_CONNECT_TIMEOUT_MS: variable({
    defaultText: "2000",
    description: "How long opening the Redis connection may take.",
    schema: integer(100, 600_000).default(2000),
  }),
  REDIS_COMMAND_TIMEOUT_MS: variable({
    defaultText: "2000",
    description:
      "Longest a Redis command may wait for its reply (queued while reconnecting included); then the request answers `SERVICE_UNAVAILABLE` (503), or a fail-open rate limit lets it through.",
    schema: integer(50, 600_000).default(2000),
  }),
} as const;
