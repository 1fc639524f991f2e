/**
 * SQL of idempotency keys (migrations/0028_idempotency_keys.sql): one guarded statement each.
 * The claim is the first statement of the transaction that creates the records, so a concurrent
 * request with the same key waits on the primary key until that transaction ends. A held key (the
 * same claim with a lease, committed on its own) is for work that must not hold a transaction open:
 * a committed row without an answer, whose `created_at` tells its holder and ends its lease.
 */
import { maybeOne, type Queryable } from "../db.ts";

/** Where a key lives: the user (internal id), the mutation's name and the client's key. */
export interface KeyScope {
  userId: string;
  mutation: string;
  key: string;
}

/** A key as stored: the arguments' fingerprint and the first answer (null while it runs). */
export interface KeyRow {
  fingerprint: string;
  response: unknown;
}

/**
 * Claims the key for a new request: true when it was free, or only held by a row older than
 * `expiredBefore`, or (given `leaseEndedBefore`) held unanswered by a row older than that, whose
 * holder is gone; the row it replaces is overwritten. False when a live row holds it: a request
 * with the same key answered already, or still runs (read it with {@link liveKey} or
 * {@link heldOrAnsweredKey}).
 *
 * Run first in the transaction that creates the records, it waits for a transaction that holds the
 * key uncommitted to end. Run on its own (a held key, for work outside a transaction), the row is
 * committed at once with `created_at` = `at`, which names the holder in {@link answerHeldKey} and
 * {@link releaseHeldKey}.
 */
export async function claimKey(
  sql: Queryable,
  scope: KeyScope,
  fingerprint: string,
  at: Date,
  expiredBefore: Date,
  leaseEndedBefore: Date | null = null,
): Promise<boolean> {
  const rows = await sql`
    insert into idempotency_keys (user_id, mutation, key, fingerprint, response, created_at)
    values (${scope.userId}, ${scope.mutation}, ${scope.key}, ${fingerprint}, null, ${at})
    on conflict (user_id, mutation, key) do update
      set fingerprint = excluded.fingerprint, response = null, created_at = excluded.created_at
      where idempotency_keys.created_at < ${expiredBefore}
        or (idempotency_keys.response is null and idempotency_keys.created_at < ${leaseEndedBefore})
    returning key`;
  return rows.length > 0;
}

/** The key's row when it is younger than `expiredBefore` and answered; null otherwise. */
export async function liveKey(
  sql: Queryable,
  scope: KeyScope,
  expiredBefore: Date,
): Promise<KeyRow | null> {
  return await maybeOne(sql<KeyRow[]>`
    select fingerprint, response from idempotency_keys
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}
      and created_at >= ${expiredBefore} and response is not null`);
}

/** Stores the answer of the request that claimed the key (inside its transaction). */
export async function answerKey(tx: Queryable, scope: KeyScope, response: unknown): Promise<void> {
  await tx`
    update idempotency_keys set response = ${tx.json(response as never)}
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}`;
}

/** Frees the key of a request that was refused: a retry is judged afresh. */
export async function releaseKey(tx: Queryable, scope: KeyScope): Promise<void> {
  await tx`
    delete from idempotency_keys
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}`;
}

/** The key's row when it is younger than `expiredBefore`, answered or still held; else null. */
export async function heldOrAnsweredKey(
  sql: Queryable,
  scope: KeyScope,
  expiredBefore: Date,
): Promise<KeyRow | null> {
  return await maybeOne(sql<KeyRow[]>`
    select fingerprint, response from idempotency_keys
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}
      and created_at >= ${expiredBefore}`);
}

/** Stores the answer of the holder of `heldAt`; false when it no longer holds the key. */
export async function answerHeldKey(
  sql: Queryable,
  scope: KeyScope,
  heldAt: Date,
  response: unknown,
): Promise<boolean> {
  const rows = await sql`
    update idempotency_keys set response = ${sql.json(response as never)}
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}
      and created_at = ${heldAt} and response is null
    returning key`;
  return rows.length > 0;
}

/** Frees the key held since `heldAt` (a refused or failed request), if it still holds it. */
export async function releaseHeldKey(sql: Queryable, scope: KeyScope, heldAt: Date) {
  await sql`
    delete from idempotency_keys
    where user_id = ${scope.userId} and mutation = ${scope.mutation} and key = ${scope.key}
      and created_at = ${heldAt} and response is null`;
}

/** Deletes the keys created before `before`; how many. */
export async function pruneKeys(sql: Queryable, before: Date): Promise<number> {
  const rows = await sql`delete from idempotency_keys where created_at < ${before} returning key`;
  return rows.length;
}

/** Deletes every key of a user (the account's erasure). */
export async function deleteKeysOf(tx: Queryable, userId: string): Promise<void> {
  await tx`delete from idempotency_keys where user_id = ${userId}`;
}
