/**
 * The relational database: PostgreSQL at `DATABASE_URL`, or embedded PGlite persisted under
 * `DATA_DIR/pg` and served to the same `postgres` driver through `pglite-socket` on a private
 * loopback port. Both modes hand out the same {@link Database}; only the pool size differs
 * (PGlite is one session, so transactions must not interleave: pool size 1).
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { Logger } from "./log.ts";
import { storableJsonText } from "./text.ts";
import { currentRequestStats, type RequestStats, runWithRequestStats } from "./request-context.ts";

// deno-lint-ignore ban-types
export type Sql = postgres.Sql<{}>;
export type TransactionSql = postgres.TransactionSql;
/** Either the pool or a transaction: what store functions accept. */
export type Queryable = Sql | TransactionSql;

export type DatabaseMode = "postgres" | "embedded";

export interface Database {
  sql: Sql;
  mode: DatabaseMode;
  /** Connection URL (for embedded mode: the loopback socket). */
  url: string;
  poolSize: number;
  /** True where LISTEN/NOTIFY reaches other connections (real PostgreSQL only). */
  supportsListen: boolean;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  log: Logger;
}

/**
 * Counts every statement executed and the time spent awaiting results, per request. Counting
 * happens where the caller awaits (its async context), not where the driver writes to a
 * connection: a query queued behind others is sent from another query's callback, whose context
 * belongs to whichever request ran that one.
 */
function instrument<S extends Sql | TransactionSql>(sql: S, fixed?: RequestStats): S {
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      // deno-lint-ignore no-explicit-any
      return timeWhenAwaited(Reflect.apply(target as any, thisArg, args), fixed);
    },
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "unsafe") {
        // deno-lint-ignore no-explicit-any
        return (...args: unknown[]) => timeWhenAwaited((value as any).apply(target, args), fixed);
      }
      if (prop === "begin" || prop === "savepoint") {
        return (...args: unknown[]) => {
          const stats = fixed ?? currentRequestStats();
          const fn = args.at(-1);
          if (typeof fn === "function") {
            args[args.length - 1] = (tx: TransactionSql) => {
              const run = () => fn(instrument(tx, stats));
              return stats ? runWithRequestStats(stats, run) : run();
            };
          }
          // deno-lint-ignore no-explicit-any
          return (value as any).apply(target, args);
        };
      }
      return value;
    },
  });
}

// A query only runs when awaited, and fragments nested in other queries are never awaited, so
// counting and timing start at `then`: nothing is counted that the caller did not execute.
function timeWhenAwaited<T>(query: T, fixed?: RequestStats): T {
  if (!query || typeof (query as { then?: unknown }).then !== "function") return query;
  const target = query as unknown as PromiseLike<unknown> & Record<string, unknown>;
  const originalThen = target.then;
  let counted = false;
  target.then = function (onFulfilled?: unknown, onRejected?: unknown) {
    const stats = fixed ?? currentRequestStats();
    if (!stats) return originalThen.call(target, onFulfilled as never, onRejected as never);
    if (!counted) {
      counted = true;
      stats.statements++;
    }
    const started = performance.now();
    const stop = () => {
      stats.dbMs += performance.now() - started;
    };
    return originalThen.call(
      target,
      (v: unknown) => {
        stop();
        return typeof onFulfilled === "function" ? onFulfilled(v) : v;
      },
      (e: unknown) => {
        stop();
        if (typeof onRejected === "function") return onRejected(e);
        throw e;
      },
    );
  } as typeof target.then;
  return query;
}

/** Connects the `postgres` driver with the project's settings. */
export function connect(url: string, poolSize: number, log: Logger): Sql {
  return instrument(postgres(url, {
    max: poolSize,
    onnotice: (notice) => log.debug("postgres notice", { notice: notice.message }),
    connection: { application_name: "goals-service" },
    transform: { undefined: null },
    // json and jsonb refuse U+0000 and lone surrogates; outside content may hold either.
    types: {
      json: { to: 114, from: [114, 3802], serialize: storableJsonText, parse: JSON.parse },
    },
  }));
}

/** An embedded PGlite served on a loopback port. */
export interface EmbeddedPostgres {
  url: string;
  pglite: PGlite;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Directory to persist into; omitted = in memory. */
  dataDir?: string;
  /** A data-dir tarball (from `dumpDataDir`) to start from. */
  loadDataDir?: Blob | File;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const pglite = await PGlite.create(options.dataDir, {
    loadDataDir: options.loadDataDir,
  });
  const server = new PGLiteSocketServer({
    db: pglite,
    host: "127.0.0.1",
    port: 0,
    maxConnections: 4,
  });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pglite,
    async stop() {
      await server.stop();
      await pglite.close();
    },
  };
}

/** Opens the database named by the configuration (embedded when no URL is given). */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const poolSize = options.poolSize ?? 10;
    const sql = connect(options.databaseUrl, poolSize, options.log);
    return {
      sql,
      mode: "postgres",
      url: options.databaseUrl,
      poolSize,
      supportsListen: true,
      close: () => sql.end({ timeout: 5 }),
    };
  }
  const dir = `${options.dataDir}/pg`;
  await Deno.mkdir(dir, { recursive: true });
  const embedded = await startEmbeddedPostgres({ dataDir: dir });
  options.log.info("embedded database started", { data_dir: dir });
  return embeddedDatabase(embedded, options.log);
}

/** Wraps a running embedded PGlite as a {@link Database} with pool size 1. */
export function embeddedDatabase(embedded: EmbeddedPostgres, log: Logger): Database {
  const sql = connect(embedded.url, 1, log);
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

/** The one row a statement returns (an insert, an update of a row known to exist). */
export async function one<T>(rows: PromiseLike<T[]>): Promise<T> {
  const [row] = await rows;
  if (row === undefined) throw new Error("expected one row, got none");
  return row;
}

/** The first row a statement returns, or null when there is none. */
export async function maybeOne<T>(rows: PromiseLike<T[]>): Promise<T | null> {
  const [row] = await rows;
  return row ?? null;
}

/** Thrown inside {@link transaction}: rolls the transaction back and makes `outcome` its answer. */
export class Rollback<O> extends Error {
  constructor(readonly outcome: O) {
    super(`transaction rolled back: ${String(outcome)}`);
    this.name = "Rollback";
  }
}

/**
 * Runs `work` in one transaction. A guarded statement that matches nothing midway throws
 * `new Rollback(outcome)`: everything written so far is undone and `outcome` is the answer.
 */
export async function transaction<T, O = T>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T | O> {
  try {
    return await sql.begin(work) as T;
  } catch (err) {
    if (err instanceof Rollback) return err.outcome as O;
    throw err;
  }
}

/**
 * Keyset paging newest first: the condition "before the row whose public id is `after`" in
 * (`sortColumn`, id) order, that row looked up in `table` only where `scope` holds (a cursor from
 * elsewhere matches nothing: an empty page). No condition without a cursor.
 */
export function beforeRow(
  sql: Queryable,
  table: string,
  sortColumn: string,
  after: string | null,
  scope: ReturnType<Queryable["unsafe"]>,
) {
  if (after === null) return sql``;
  return sql`and (${sql(sortColumn)}, id) < (
    select ${sql(sortColumn)}, id from ${sql(table)} where public_id = ${after} and ${scope})`;
}
