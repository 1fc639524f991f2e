/**
 * The relational database: PostgreSQL at `DATABASE_URL`, or embedded PGlite persisted under
 * `DATA_DIR/pg` and served to the same `postgres` driver through `pglite-socket` on a private
 * loopback port. Both modes hand out the same {@link Database}; only the pool size differs
 * (PGlite is one session, so transactions must not interleave: pool size 1). PGlite and its
 * socket server are imported only when the embedded database starts: with `DATABASE_URL` set they
 * are never loaded. The service runs them in a worker (`embedded.ts`); tests in this thread.
 */
import postgres from "postgres";
import type { Logger } from "./log.ts";
import { storableJsonText } from "./text.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import { currentRequestStats, type RequestStats, runWithRequestStats } from "./request-context.ts";
import { DependencyUnavailableError } from "./dependency.ts";
import { childSpan, failSpan, recordingSpan, SpanKind } from "./tracing.ts";
import { type EmbeddedServer, startEmbeddedPostgresInWorker } from "./embedded.ts";
import { lockDataDir } from "./data-dir-lock.ts";

export {
  type EmbeddedOptions,
  type EmbeddedPostgres,
  type EmbeddedServer,
  startEmbeddedPostgres,
} from "./embedded.ts";

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
  /**
   * A connection to the server itself when `sql` goes through a transaction pooler: what needs a
   * session of its own (LISTEN, migrations) uses it. Absent: `sql` is direct.
   */
  direct?: Sql;
  close(): Promise<void>;
}

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

// The client's bound leaves the server a moment to report its own statement timeout first.
const CLIENT_GRACE_MS = 1000;

const unboundedScope = new AsyncLocalStorage<true>();

/**
 * Runs `work` without the client's statement bound (migrations: an index build may take
 * minutes). The server's `statement_timeout` is the caller's to lift (`set local`).
 */
export function withoutStatementBound<T>(work: () => T): T {
  return unboundedScope.run(true, work);
}

const CONNECTION_ERROR_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // SQLSTATE: query_canceled (statement timeout), admin/crash shutdown, cannot connect now,
  // too many connections.
  "57014",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

/**
 * True for a failure to reach the server (not a refusal of a statement). The driver also rejects
 * such failures where nobody awaits (fetching type metadata on a fresh connection as the server
 * dies): the process's unhandled-rejection handler uses this to log them as an outage.
 */
export function isDatabaseConnectionFailure(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = String((err as { code?: unknown }).code ?? "");
  // SQLSTATE class 08: connection exception.
  return CONNECTION_ERROR_CODES.has(code) || code.startsWith("08");
}

/** A failure to reach the server becomes the typed error. */
function asDependencyError(err: unknown): unknown {
  if (err instanceof DependencyUnavailableError || !isDatabaseConnectionFailure(err)) return err;
  const code = String((err as { code?: unknown }).code ?? "");
  const message = err instanceof Error ? err.message : code;
  return new DependencyUnavailableError("database", message, { cause: err });
}

interface Bounds {
  /** Client-side bound per awaited statement; 0 = none. */
  statementMs: number;
  observer?: StatementObserver;
}

/** Told about every awaited statement (the metrics' statement timing). */
export interface StatementObserver {
  statementStarted(): void;
  statementFinished(seconds: number, failed: boolean): void;
}

const OBSERVE = Symbol("observe statements");

/** Tells `observer` about every statement awaited through `sql` (a pool from {@link connect}). */
export function observeStatements(sql: Sql, observer: StatementObserver): void {
  (sql as unknown as Record<symbol, (o: StatementObserver) => void>)[OBSERVE]?.(observer);
}

/** A span for one statement when a traced request or job awaits it. */
function statementSpan(query: unknown) {
  if (!recordingSpan()) return undefined;
  const strings = (query as { strings?: readonly string[] }).strings;
  const text = strings ? strings.join("$?").trim().slice(0, 2_000) : "";
  const verb = /^\w+/.exec(text)?.[0].toUpperCase() ?? "SQL";
  return childSpan(verb, {
    "db.system.name": "postgresql",
    "db.operation.name": verb,
    "db.query.text": text,
  }, SpanKind.CLIENT);
}

/**
 * Bounds and counts every statement: the caller's wait is cut at the client bound (a statement
 * still waiting for a connection leaves the queue, see {@link dropIfQueued}) and
 * connection failures become {@link DependencyUnavailableError}. Counting happens where the
 * caller awaits (its async context), not where the driver writes to a connection: a query
 * queued behind others is sent from another query's callback, whose context belongs to
 * whichever request ran that one.
 */
function instrument<S extends Sql | TransactionSql>(
  sql: S,
  bounds: Bounds,
  fixed?: RequestStats,
): S {
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      // deno-lint-ignore no-explicit-any
      return whenAwaited(Reflect.apply(target as any, thisArg, args), bounds, fixed);
    },
    get(target, prop, receiver) {
      if (prop === OBSERVE) return (observer: StatementObserver) => bounds.observer = observer;
      const value = Reflect.get(target, prop, receiver);
      if (prop === "unsafe") {
        return (...args: unknown[]) =>
          // deno-lint-ignore no-explicit-any
          whenAwaited((value as any).apply(target, args), bounds, fixed);
      }
      if (prop === "begin" || prop === "savepoint") {
        return (...args: unknown[]) => boundedTransaction(target, value, args, bounds, fixed);
      }
      return value;
    },
  });
}

const clientBound = (bounds: Bounds) =>
  unboundedScope.getStore() || bounds.statementMs <= 0 ? 0 : bounds.statementMs + CLIENT_GRACE_MS;

const timedOut = (what: string, ms: number) => () =>
  new DependencyUnavailableError("database", `${what} did not finish within ${ms} ms`);

/**
 * `begin`/`savepoint` under the bound: the wait for a connection (and `begin` itself) and, once
 * the work has settled, the commit or rollback. The work's own statements are bounded one by
 * one. Work that starts after its caller gave up throws at once, so it is rolled back.
 */
function boundedTransaction(
  target: Sql | TransactionSql,
  begin: unknown,
  args: unknown[],
  bounds: Bounds,
  fixed?: RequestStats,
): Promise<unknown> {
  const stats = fixed ?? currentRequestStats();
  const ms = clientBound(bounds);
  const fn = args.at(-1);
  let abandoned = false;
  let settle: (err: Error) => void = () => {};
  const guard = new Promise<never>((_, reject) => settle = reject);
  guard.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (what: string) => {
    if (ms <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      abandoned = true;
      settle(timedOut(what, ms)());
    }, ms);
  };
  if (typeof fn === "function") {
    args[args.length - 1] = async (tx: TransactionSql) => {
      clearTimeout(timer);
      if (abandoned) throw new DependencyUnavailableError("database", "transaction abandoned");
      // Statements inside keep the scope's bound whichever context the driver calls back in.
      const run = () => fn(instrument(tx, ms > 0 ? bounds : { ...bounds, statementMs: 0 }, stats));
      try {
        return await (stats ? runWithRequestStats(stats, run) : run());
      } finally {
        arm("commit or rollback");
      }
    };
  }
  arm("waiting for a connection");
  // deno-lint-ignore no-explicit-any
  const started = Promise.resolve((begin as any).apply(target, args));
  return Promise.race([started, guard]).then(
    (value) => {
      clearTimeout(timer);
      return value;
    },
    (err) => {
      clearTimeout(timer);
      started.catch(() => {});
      throw asDependencyError(err);
    },
  );
}

// A query only runs when awaited, and fragments nested in other queries are never awaited, so
// bounding, counting and timing start at `then`: nothing is counted that the caller did not
// execute.
function whenAwaited<T>(query: T, bounds: Bounds, fixed?: RequestStats): T {
  if (!query || typeof (query as { then?: unknown }).then !== "function") return query;
  const target = query as unknown as PromiseLike<unknown> & Parameters<typeof dropIfQueued>[0];
  const originalThen = target.then;
  let counted = false;
  target.then = function (onFulfilled?: unknown, onRejected?: unknown) {
    const stats = fixed ?? currentRequestStats();
    if (stats && !counted) {
      counted = true;
      stats.statements++;
    }
    const started = performance.now();
    const observer = bounds.observer;
    observer?.statementStarted();
    const span = statementSpan(target);
    const ms = clientBound(bounds);
    const settled = new Promise((resolve, reject) => {
      const timer = ms > 0
        ? setTimeout(() => {
          dropIfQueued(target);
          reject(timedOut("a statement", ms)());
        }, ms)
        : undefined;
      originalThen.call(
        target,
        (v: unknown) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(asDependencyError(e));
        },
      );
    });
    const stop = (failure?: unknown) => {
      const ms = performance.now() - started;
      if (stats) stats.dbMs += ms;
      observer?.statementFinished(ms / 1000, failure !== undefined);
      if (span) {
        if (failure !== undefined) failSpan(span, failure);
        span.end();
      }
    };
    return settled.then(
      (v: unknown) => {
        stop();
        return typeof onFulfilled === "function" ? onFulfilled(v) : v;
      },
      (e: unknown) => {
        stop(e ?? "rejected");
        if (typeof onRejected === "function") return onRejected(e);
        throw e;
      },
    );
  } as typeof target.then;
  return query;
}

/**
 * Takes a statement its caller gave up on out of the pool's queue. A statement already sent is
 * left to finish (its answer is dropped): a cancel request would stop whichever statement that
 * backend runs when it arrives, and the driver's handling of a cancelled pipelined statement
 * attributes its rows to the next one. The server's `statement_timeout` bounds it instead.
 * `query.cancel()` drops the promise of its work, so the canceller is called directly.
 */
function dropIfQueued(query: {
  state?: unknown;
  canceller?: ((q: unknown) => Promise<unknown>) | null;
}): void {
  const canceller = query.canceller;
  if (query.state || typeof canceller !== "function") return;
  query.canceller = null;
  canceller(query).catch(() => {});
}

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
  { pooled = false, idleTimeoutS }: { pooled?: boolean; idleTimeoutS?: number } = {},
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
): Database {
  const sql = connect(embedded.url, 1, log, timeouts);
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

class Refused {
  constructor(readonly answer: unknown) {}
}

/**
 * Runs `work` in one transaction whose answer may be a refusal: when it answers with a non-empty
 * `errors`, everything written so far is undone and that answer is returned as it is. Services
 * return refusals as values; this is the one place that turns one into a rollback.
 */
export async function refusableTransaction<T extends { errors: readonly unknown[] }>(
  sql: Sql,
  work: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  try {
    return await sql.begin(async (tx) => {
      const answer = await work(tx);
      if (answer.errors.length > 0) throw new Refused(answer);
      return answer;
    }) as T;
  } catch (err) {
    if (err instanceof Refused) return err.answer as T;
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
