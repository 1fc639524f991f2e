/**
 * SQL of idempotency keys (migrations/0028_idempotency_keys.sql): one guarded statement each.
 * The claim is the first statement of the transaction that creates the records, so a concurrent
 * request with the same key waits on the primary key until that transaction ends.
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
 * Claims the key for a new request: true when it was free (or only held by a row older than
 * `expiredBefore`, which it replaces). False when a live row holds it: a request with the same
 * key answered already (read it with {@link liveKey}). Waits for a transaction that holds the key
 * uncommitted to end.
 */
export async function claimKey(
  tx: Queryable,
  scope: KeyScope,
  fingerprint: string,
  at: Date,
  expiredBefore: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into idempotency_keys (user_id, mutation, key, fingerprint, response, created_at)
    values (${scope.userId}, ${scope.mutation}, ${scope.key}, ${fingerprint}, null, ${at})
    on conflict (user_id, mutation, key) do update
      set fingerprint = excluded.fingerprint, response = null, created_at = excluded.created_at
      where idempotency_keys.created_at < ${expiredBefore}
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

/** Deletes the keys created before `before`; how many. */
export async function pruneKeys(sql: Queryable, before: Date): Promise<number> {
  const rows = await sql`delete from idempotency_keys where created_at < ${before} returning key`;
  return rows.length;
}

/** Deletes every key of a user (the account's erasure). */
export async function deleteKeysOf(tx: Queryable, userId: string): Promise<void> {
  await tx`delete from idempotency_keys where user_id = ${userId}`;
}
