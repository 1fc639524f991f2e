/**
 * The relational database: PostgreSQL at `DATABASE_URL`, or embedded PGlite persisted under
 * `DATA_DIR/pg` and served to the same `postgres` driver through `pglite-socket` on a private
 * loopback port. Both modes hand out the same {@link Database}; only the pool size differs
 * (PGlite is one session, so transactions must not interleave: pool size 1). PGlite and its
 * socket server are imported only when the embedded database starts: with `DATABASE_URL` set they
 * are never loaded. The service runs them in a worker (`embedded.ts`); tests in this thread.
 */
import type { Logger } from "./log.ts";
import { type EmbeddedServer, startEmbeddedPostgresInWorker } from "./embedded.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { connect, type DatabaseTimeouts } from "./db/connect.ts";
import type { Database, Sql } from "./db/types.ts";

export {
  type EmbeddedOptions,
  type EmbeddedPostgres,
  type EmbeddedServer,
  startEmbeddedPostgres,
} from "./embedded.ts";
export type { Database, DatabaseMode, Queryable, Sql, TransactionSql } from "./db/types.ts";
export {
  connect,
  type DatabaseTimeouts,
  DEFAULT_DATABASE_TIMEOUTS,
  type StatementListener,
} from "./db/connect.ts";
import type { StatementListener } from "./db/connect.ts";
export { isDatabaseConnectionFailure } from "./db/failures.ts";
export {
  observeStatements,
  type StatementObserver,
  withoutStatementBound,
} from "./db/instrument.ts";
export { refusableTransaction } from "./db/transactions.ts";
export { beforeRow, maybeOne, one } from "./db/rows.ts";

/** The connection for LISTEN and migrations: the direct one where `sql` is pooled. */
export const sessionSql = (db: Database): Sql => db.direct ?? db.sql;

/**
 * Opens up to `count` of the pool's connections now (a trivial statement on each, side by side)
 * rather than on the first requests. Resolves once they are open; a failure is left to the
 * statements that follow, which report it.
 */
export async function openPoolConnections(db: Database, count: number): Promise<void> {
  const n = Math.min(count, db.poolSize);
  await Promise.all(Array.from({ length: n }, () => db.sql`select 1`.catch(() => {})));
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  /**
   * Set when `databaseUrl` is a transaction pooler (PgBouncer `pool_mode = transaction`): the
   * server's own URL, for what needs a session (see {@link Database.direct}).
   */
  directUrl?: string;
  dataDir: string;
  /**
   * Embedded mode: what this process is (`serve`, `migrate`, ...), written into the data dir's
   * lock for a second process's refusal (src/platform/data-dir-lock.ts).
   */
  command?: string;
  /** Embedded mode: run under the lock before the database starts (given `DATA_DIR/pg`). */
  prepareDataDir?: (pgDir: string) => Promise<void>;
  poolSize?: number;
  log: Logger;
  timeouts?: DatabaseTimeouts;
  /**
   * Embedded mode: finds the data-dir tarball a fresh `pgDir` starts from, or undefined (the
   * service passes `findEmbeddedTemplate` of src/embedded-template.ts). Without it: initdb.
   */
  embeddedTemplate?: (pgDir: string) => Promise<URL | undefined>;
}

/**
 * Opens the database named by the configuration (embedded when no URL is given). The embedded one
 * is locked for this process first: another process holding `dataDir` makes this throw
 * `DataDirLockedError` at once; the lock is released by `close()`.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const poolSize = options.poolSize ?? 10;
    const pooled = options.directUrl !== undefined;
    const sql = connect(options.databaseUrl, poolSize, options.log, options.timeouts, { pooled });
    // LISTEN keeps a connection of its own; this one serves the migrations at start and is
    // closed when idle, so each instance holds one server connection beside the pooler's.
    const direct = pooled
      ? connect(options.directUrl!, 1, options.log, options.timeouts, { idleTimeoutS: 10 })
      : undefined;
    return {
      sql,
      mode: "postgres",
      url: options.databaseUrl,
      poolSize,
      supportsListen: true,
      direct,
      async close() {
        await Promise.all([sql.end({ timeout: 5 }), direct?.end({ timeout: 5 })]);
      },
    };
  }
  const lock = await lockDataDir(options.dataDir, options.command ?? "open");
  let embedded: EmbeddedServer;
  let template: URL | undefined;
  const dir = `${options.dataDir}/pg`;
  try {
    await options.prepareDataDir?.(dir);
    await Deno.mkdir(dir, { recursive: true });
    template = await options.embeddedTemplate?.(dir);
    embedded = await startEmbeddedPostgresInWorker(dir, template);
  } catch (err) {
    await lock.release();
    throw err;
  }
  options.log.info("embedded database started", { data_dir: dir, from_template: !!template });
  const db = embeddedDatabase(embedded, options.log, options.timeouts);
  return {
    ...db,
    async close() {
      try {
        await db.close();
      } finally {
        await lock.release();
      }
    },
  };
}

/** Wraps a running embedded PGlite as a {@link Database} with pool size 1. */
export function embeddedDatabase(
  embedded: EmbeddedServer,
  log: Logger,
  timeouts?: DatabaseTimeouts,
  onStatement?: StatementListener,
): Database {
  const sql = connect(embedded.url, 1, log, timeouts, { onStatement });
  return {
    sql,
    mode: "embedded",
    url: embedded.url,
    poolSize: 1,
    supportsListen: false,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded.stop();
    },
  };
}
