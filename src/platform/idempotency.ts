/**
 * Safe retries of mutations (docs/graphql.md, "Retrying mutations"). A create, a delete or an
 * admin's one-off action takes an optional `idempotencyKey`; the key is scoped by the user and
 * the mutation, and the first request that succeeds with it stores its answer in the same
 * transaction as the records it writes. The same key with the same arguments within
 * {@link IDEMPOTENCY_KEY_TTL_MS} answers that stored answer and does nothing; with other arguments
 * it is refused (`idempotency_key_reused`). A refused request keeps no key, so its retry is judged
 * afresh. A use case opts in with {@link retrySafe}:
 *
 * @example
 * ```ts
 * const retry = await retrySafe(deps, "addMoodLog", actor.userId, input, refusedWith);
 * if (retry.earlier) return retry.earlier;
 * // ...validation...
 * return await retry.transaction(async (tx) => ({ moodLog: await insert(tx), errors: [] }));
 * // work that must not hold a transaction open (a model call) holds the key first instead:
 * return await retry.held(async (transaction) => {
 *   const answer = await askTheModel();
 *   return await transaction(async (tx) => ({ suggestion: await insert(tx, answer), errors: [] }));
 * });
 * ```
 */
import { createHash } from "node:crypto";
import type { Clock } from "./clock.ts";
import { type Database, type Queryable, refusableTransaction, type TransactionSql } from "./db.ts";
import { type UserError, userError } from "./user-error.ts";
import * as store from "./idempotency/store.ts";

/** How long a key is remembered: a retry after it is a new request. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
/**
 * How long a key held by {@link RetrySafe.held} waits for its holder's answer before another
 * request with it may take it over (the holder is taken to be gone). Longer than a model call
 * with its retries.
 */
export const HELD_KEY_LEASE_MS = 5 * 60_000;
/** The first and the longest wait between two looks at a key another request holds. */
const HELD_POLL_FIRST_MS = 10;
const HELD_POLL_MAX_MS = 500;
/** The longest key (a UUID has 36 characters). */
export const IDEMPOTENCY_KEY_MAX = 64;
const KEY = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);

/** The argument every retry-safe mutation takes. */
export interface IdempotencyInput {
  idempotencyKey?: string | null;
}

/** The refusals of a retry-safe mutation: a malformed key, or a key reused for other arguments. */
export type RetryRefusal = UserError<"invalid" | "idempotency_key_reused">;

/** Why `key` is not a usable idempotency key, or null. */
export function idempotencyKeyError(key: string): string | null {
  return KEY.test(key)
    ? null
    : `idempotencyKey must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters (a UUID, for example)`;
}

/** `value` with object keys sorted, null and undefined members dropped, dates as ISO text. */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[name];
      if (member !== undefined && member !== null) out[name] = canonical(member);
    }
    return out;
  }
  return value;
}

/**
 * The hex SHA-256 of a request's arguments without its key: an argument given as null counts as
 * absent, and the order of an input object's members does not matter.
 */
export function fingerprintOf(input: object): string {
  const { idempotencyKey: _key, ...args } = input as IdempotencyInput & Record<string, unknown>;
  return createHash("sha256").update(JSON.stringify(canonical(args))).digest("hex");
}

type Path = (string | number)[];

/** An answer as it is stored: JSON, and the paths of the dates it held. */
export interface StoredAnswer {
  value: unknown;
  dates: Path[];
}

/**
 * An answer (a payload of rows: plain objects, arrays, dates and JSON values) as JSON with the
 * paths of its dates, so {@link decodeAnswer} gives back an equal value. Anything else (a Map, a
 * class instance, a bigint) is a programming error and throws.
 */
export function encodeAnswer(answer: unknown): StoredAnswer {
  const dates: Path[] = [];
  const walk = (value: unknown, path: Path): unknown => {
    if (value instanceof Date) {
      dates.push(path);
      return value.toISOString();
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]));
    if (value && typeof value === "object") {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError(`an answer cannot be stored: ${path.join(".")} is not plain data`);
      }
      const out: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value)) {
        if (member !== undefined) out[name] = walk(member, [...path, name]);
      }
      return out;
    }
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw new TypeError(`an answer cannot be stored: ${path.join(".")} is a ${typeof value}`);
    }
    return value;
  };
  return { value: walk(answer, []), dates };
}

/** The answer {@link encodeAnswer} stored. */
export function decodeAnswer(stored: StoredAnswer): unknown {
  const root = { value: stored.value };
  for (const path of stored.dates) {
    let holder: Record<string | number, unknown> = root;
    let name: string | number = "value";
    for (const step of path) {
      holder = holder[name] as Record<string | number, unknown>;
      name = step;
    }
    holder[name] = new Date(holder[name] as string);
  }
  return root.value;
}

export interface RetrySafe<P> {
  /**
   * The answer a request with the same key already got (or the refusal of a malformed or reused
   * key), read when the request began; null when there is none and the use case goes on. Without
   * a key: always null.
   */
  earlier: P | null;
  /**
   * Runs `work` in one transaction that first claims the key (waiting for a concurrent request
   * with the same key, whose answer it then gives instead of running `work`) and stores `work`'s
   * answer when it has no errors; a refused answer frees the key and commits what `work` wrote,
   * as a plain transaction would. Without a key: a plain transaction.
   */
  transaction(work: (tx: TransactionSql) => Promise<P>): Promise<P>;
  /** {@link RetrySafe.transaction}, but a refused answer undoes everything (`refusableTransaction`). */
  refusableTransaction(work: (tx: TransactionSql) => Promise<P>): Promise<P>;
  /**
   * `answer`, decided outside the key's transaction (a refusal found before it, or a state that
   * already held), unless a request with the same key has answered meanwhile: then that answer.
   * A concurrent first request with the key can make a check that runs before the transaction
   * fail (a delete finds its record gone); the retry still answers what the first one answered.
   * Without a key, or when nothing was answered: `answer`.
   */
  unlessAnswered(answer: P): Promise<P>;
  /**
   * For work that must not hold a transaction open (a model call, a file, another service):
   * holds the key first, in a statement of its own, so that a concurrent request with the key
   * waits (looking again every few milliseconds) for this one's answer and answers it, then runs
   * `work` once. `work` writes its records with the `transaction` it is given, which stores a
   * successful answer in that transaction (the first one; a refused one stores nothing); an
   * answer given without one is stored on its own. A refused answer, or a throw, frees the key.
   * A holder gone (its process ended) frees it after `leaseMs` ({@link HELD_KEY_LEASE_MS}); a
   * holder slower than that may have lost it to a retry and then stores nothing. Without a key:
   * `work` with a plain transaction.
   */
  held(
    work: (transaction: (records: (tx: TransactionSql) => Promise<P>) => Promise<P>) => Promise<P>,
    options?: { leaseMs?: number },
  ): Promise<P>;
}

/** What {@link retrySafe} needs; `pause` waits between two looks at a held key (tests watch it). */
export interface RetrySafeDeps {
  db: Pick<Database, "sql">;
  clock: Clock;
  pause?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Makes one request of a use case retry-safe: `mutation` names it (keys of different mutations
 * never meet), `userId` is the acting user's internal id (null, the system acting, keeps no
 * key), `input` its arguments with the key. `refused` builds the use case's payload for a refusal
 * of the key (its codes must be in the feature's closed set). Reads the earlier answer of the
 * key, if any, before the use case goes on.
 */
export async function retrySafe<P extends { errors: readonly unknown[] }>(
  deps: RetrySafeDeps,
  mutation: string,
  userId: string | null,
  input: IdempotencyInput & object,
  refused: (error: RetryRefusal) => P,
): Promise<RetrySafe<P>> {
  const sql = deps.db.sql;
  const key = userId === null ? null : input.idempotencyKey ?? null;
  const where: store.KeyScope = { userId: userId ?? "", mutation, key: key ?? "" };
  const fingerprint = key === null ? "" : fingerprintOf(input);
  const expiredBefore = () => new Date(deps.clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS);
  const badKey = (): P | null => {
    const problem = key === null ? null : idempotencyKeyError(key);
    return problem ? refused(userError("invalid", problem, "idempotencyKey")) : null;
  };
  const answerOf = (row: store.KeyRow): P =>
    row.fingerprint === fingerprint ? decodeAnswer(row.response as StoredAnswer) as P : refused(
      userError(
        "idempotency_key_reused",
        "this idempotencyKey was used with other arguments; send a new key for a new request",
        "idempotencyKey",
      ),
    );

  /**
   * The keyed transaction's body. With `undo` the caller is a refusable transaction, which rolls
   * a refused answer back (the claim with it); else a refused answer frees the key.
   */
  const keyed =
    (work: (tx: TransactionSql) => Promise<P>, undo: boolean) =>
    async (tx: TransactionSql): Promise<P> => {
      const now = deps.clock.now();
      if (!(await store.claimKey(tx, where, fingerprint, now, expiredBefore()))) {
        const row = await store.liveKey(tx, where, expiredBefore());
        if (!row) throw new Error(`idempotency key of ${mutation} held but unanswered`);
        return answerOf(row);
      }
      const answer = await work(tx);
      if (answer.errors.length === 0) await store.answerKey(tx, where, encodeAnswer(answer));
      else if (!undo) await store.releaseKey(tx, where);
      return answer;
    };

  /**
   * Holds the key for {@link RetrySafe.held}: the time it was held at, or the answer of a request
   * that held it first (waited for while it works).
   */
  const hold = async (leaseMs: number): Promise<{ at: Date } | { answer: P }> => {
    const pause = deps.pause ?? sleep;
    for (let look = 0;; look++) {
      const at = deps.clock.now();
      const leaseEndedBefore = new Date(at.getTime() - leaseMs);
      if (await store.claimKey(sql, where, fingerprint, at, expiredBefore(), leaseEndedBefore)) {
        return { at };
      }
      const row = await store.heldOrAnsweredKey(sql, where, expiredBefore());
      if (row && (row.fingerprint !== fingerprint || row.response !== null)) {
        return { answer: answerOf(row) };
      }
      await pause(Math.min(HELD_POLL_MAX_MS, HELD_POLL_FIRST_MS * 2 ** look));
    }
  };

  const earlier = async (): Promise<P | null> => {
    if (key === null) return null;
    const row = badKey() ? null : await store.liveKey(sql, where, expiredBefore());
    return badKey() ?? (row ? answerOf(row) : null);
  };

  return {
    earlier: await earlier(),
    async transaction(work) {
      if (key === null) return await sql.begin(work) as P;
      return badKey() ?? await sql.begin(keyed(work, false)) as P;
    },
    async refusableTransaction(work) {
      if (key === null) return await refusableTransaction(sql, work);
      return badKey() ?? await refusableTransaction(sql, keyed(work, true));
    },
    async unlessAnswered(answer) {
      if (key === null || badKey()) return answer;
      const row = await store.liveKey(sql, where, expiredBefore());
      return row ? answerOf(row) : answer;
    },
    async held(work, options = {}) {
      if (key === null) return await work((records) => sql.begin(records) as Promise<P>);
      const refusal = badKey();
      if (refusal) return refusal;
      const held = await hold(options.leaseMs ?? HELD_KEY_LEASE_MS);
      if ("answer" in held) return held.answer;
      const keep = (tx: Queryable, answer: P) =>
        store.answerHeldKey(tx, where, held.at, encodeAnswer(answer));
      const release = () => store.releaseHeldKey(sql, where, held.at);
      let kept = false;
      let answer: P;
      try {
        answer = await work(async (records) =>
          await sql.begin(async (tx) => {
            const answer = await records(tx);
            if (answer.errors.length === 0 && !kept) {
              await keep(tx, answer);
              kept = true;
            }
            return answer;
          }) as P
        );
      } catch (err) {
        // The lease frees the key should this fail too; the work's error is the one to report.
        await release().catch(() => {});
        throw err;
      }
      if (kept) return answer;
      if (answer.errors.length === 0) await keep(sql, answer);
      else await release();
      return answer;
    },
  };
}

/** Forgets the keys older than {@link IDEMPOTENCY_KEY_TTL_MS} at `now`; how many. */
export const pruneIdempotencyKeys = (sql: Queryable, now: Date): Promise<number> =>
  store.pruneKeys(sql, new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS));

/** Erases a user's keys and the answers stored with them (inside the erasure's transaction). */
export const eraseIdempotencyKeysOf = (tx: Queryable, userId: string): Promise<void> =>
  store.deleteKeysOf(tx, userId);
