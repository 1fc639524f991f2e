/**
 * Every statement awaited through a pool of {@link connect} is bounded on the client, counted in
 * the request's stats, timed for the metrics and traced; a failure to reach the server becomes
 * `DependencyUnavailableError`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  currentRequestStats,
  type RequestStats,
  runWithRequestStats,
  statementStarted,
} from "../request-context.ts";
import { DependencyUnavailableError } from "../dependency.ts";
import { childSpan, failSpan, recordingSpan, SpanKind } from "../tracing.ts";
import { asDependencyError } from "./failures.ts";
import type { Sql, TransactionSql } from "./types.ts";

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

export interface Bounds {
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
export function instrument<S extends Sql | TransactionSql>(
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
    const finished = stats ? statementStarted(stats, started) : undefined;
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
      const ended = performance.now();
      const ms = ended - started;
      finished?.(ended);
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
