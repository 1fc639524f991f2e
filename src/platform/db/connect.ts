import postgres from "postgres";
import type { Logger } from "../log.ts";
import { storableJsonText } from "../text.ts";
import { instrument } from "./instrument.ts";
import type { Sql } from "./types.ts";

/** How long the driver may wait on the server. */
export interface DatabaseTimeouts {
  /** Opening a connection (TCP and start-up). */
  connectMs: number;
  /**
   * A statement: the server's `statement_timeout`, and on the client the bound on every awaited
   * statement (queueing for a pool connection included), which also holds when the server is
   * stopped and nothing answers at all.
   */
  statementMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 3000, statementMs: 5000 };

/** Told the text and parameters of every statement sent (tests that check plans). */
export type StatementListener = (text: string, parameters: readonly unknown[]) => void;

/**
 * Connects the `postgres` driver with the project's settings. `pooled`: `url` is a transaction
 * pooler, which hands each transaction to any server connection: no prepared statements (they
 * live on one server connection), and no session settings in the start-up packet (PgBouncer
 * refuses any but a few; its `connect_query` sets the server's timeouts instead, see
 * docs/deployment.md). The client's own statement bound holds either way.
 */
export function connect(
  url: string,
  poolSize: number,
  log: Logger,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  { pooled = false, idleTimeoutS, onStatement }: {
    pooled?: boolean;
    idleTimeoutS?: number;
    onStatement?: StatementListener;
  } = {},
): Sql {
  const session = pooled ? {} : {
    statement_timeout: timeouts.statementMs,
    // A transaction its client forgot must not hold locks for long.
    idle_in_transaction_session_timeout: Math.max(30_000, timeouts.statementMs * 2),
  };
  return instrument(
    postgres(url, {
      prepare: !pooled,
      idle_timeout: idleTimeoutS,
      debug: onStatement &&
        ((_connection: number, text: string, parameters: unknown[]) =>
          onStatement(text, parameters)),
      max: poolSize,
      onnotice: (notice) => log.debug("postgres notice", { notice: notice.message }),
      connect_timeout: timeouts.connectMs / 1000,
      // Seconds; detects a peer that vanished without closing (a dead host, a cut network).
      keep_alive: 30,
      // Seconds before reconnecting after failed attempts. The driver's default grows to 20 s
      // after a few refusals, so an instance would stay down that long after the server is back.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      connection: { application_name: "goals-service", ...session },
      transform: { undefined: null },
      // json and jsonb refuse U+0000 and lone surrogates; outside content may hold either.
      types: {
        json: { to: 114, from: [114, 3802], serialize: storableJsonText, parse: JSON.parse },
      },
    }),
    { statementMs: timeouts.statementMs },
  );
}
