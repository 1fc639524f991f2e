/**
 * The use cases of owning one's data, each `(deps, actor, input) => Promise<result>`: exports
 * (requested here, written by a job) and account deletion (requested here, erased by a schedule).
 * The only privacy code that opens transactions, enqueues jobs and calls other features.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { eraseIdempotencyKeysOf, pruneIdempotencyKeys } from "../../platform/idempotency.ts";
import type { UserError } from "../../platform/user-error.ts";
import type { JobQueue, PersonalData } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import { DELETION_GRACE_DAYS, erasureDueAt } from "../users/rules.ts";
import {
  ERASURES_PER_RUN,
  exportDocument,
  exportExpiresAt,
  noAccount,
  noDeletionPending,
  type PRIVACY_ERROR_CODES,
  quotedNames,
} from "./rules.ts";
import * as store from "./store.ts";
import type { DataExportRow } from "./store.ts";
import { writeExportJob } from "./jobs.ts";

export type { DataExportRow };

/** A feature's part, under the feature's name (the export's section name). */
export interface PersonalDataPart extends PersonalData {
  feature: string;
}

export interface PrivacyDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  jobs: JobQueue;
  users: Pick<
    UsersApi,
    "loadUser" | "requestDeletion" | "cancelDeletion" | "dueForErasure" | "forget" | "usersByIds"
  >;
  /** Every feature's part, in the order the features are built (users first). */
  parts: () => PersonalDataPart[];
}

/** Who acts: the signed-in user. */
export interface Actor {
  userId: string;
}

type PrivacyError = UserError<typeof PRIVACY_ERROR_CODES[number]>;

/**
 * This feature's own part: the user's exports, and the answers kept for retried requests (a day
 * at most; not exported: they repeat records the other parts export).
 */
export const ownPart: PersonalDataPart = {
  feature: "privacy",
  exportFor: () => Promise.resolve({}),
  eraseFor: async (tx, userId) => {
    await store.deleteExportsOf(tx, userId);
    await eraseIdempotencyKeysOf(tx, userId);
  },
};

const allParts = (deps: Pick<PrivacyDeps, "parts">) => [...deps.parts(), ownPart];

// ---- exports ----

/** One of the actor's exports that has not expired; null for any other id. */
export async function exportOf(
  deps: Pick<PrivacyDeps, "db" | "clock">,
  actor: Actor,
  id: string,
): Promise<DataExportRow | null> {
  return looksLikePublicId(id)
    ? await store.exportOf(deps.db.sql, actor.userId, id, deps.clock.now())
    : null;
}

export interface DataExportPayload {
  dataExport: DataExportRow | null;
  errors: PrivacyError[];
}

/** Starts an export (a pending one is answered instead of a new one). */
export async function requestDataExport(
  deps: Pick<PrivacyDeps, "db" | "clock" | "jobs">,
  actor: Actor,
): Promise<DataExportPayload> {
  const now = deps.clock.now();
  return await deps.db.sql.begin(async (tx) => {
    const pending = await store.pendingExport(tx, actor.userId, now);
    if (pending) return { dataExport: pending, errors: [] };
    const created = await store.insertExport(tx, actor.userId, now, exportExpiresAt(now));
    await deps.jobs.enqueue(tx, writeExportJob, { exportId: created.publicId });
    return { dataExport: created, errors: [] };
  });
}

/** The `privacy.write_export` job: gathers every feature's part into the export. */
export async function writeExport(deps: PrivacyDeps, exportId: string): Promise<void> {
  const owner = await store.pendingExportOwner(deps.db.sql, exportId);
  if (!owner) return;
  const parts = [];
  for (const part of allParts(deps)) {
    parts.push({ feature: part.feature, data: await part.exportFor(owner.userId) });
  }
  const now = deps.clock.now();
  await store.completeExport(
    deps.db.sql,
    exportId,
    exportDocument(owner.userPublicId, now, parts),
    now,
  );
}

/**
 * The content of a ready export whose token matches and that has not expired. An id or token that
 * is not shaped like one (both are public ids) is no export: nothing a client sends in the path or
 * the query string reaches the statement unchecked.
 */
export const downloadableContent = async (
  deps: Pick<PrivacyDeps, "db" | "clock">,
  id: string,
  token: string,
): Promise<unknown | null> =>
  looksLikePublicId(id) && looksLikePublicId(token)
    ? await store.downloadableContent(deps.db.sql, id, token, deps.clock.now())
    : null;

export const deleteExpiredExports = (deps: Pick<PrivacyDeps, "db" | "clock">) =>
  store.deleteExpiredExports(deps.db.sql, deps.clock.now());

/** Forgets the idempotency keys of retried requests once they expire (a day after use). */
export async function pruneIdempotencyKeysNow(deps: Pick<PrivacyDeps, "db" | "clock" | "log">) {
  const pruned = await pruneIdempotencyKeys(deps.db.sql, deps.clock.now());
  if (pruned) deps.log.info("idempotency keys pruned", { pruned });
}

// ---- account deletion ----

export interface AccountDeletion {
  requestedAt: Date;
  erasesAt: Date;
}

export interface AccountDeletionPayload {
  accountDeletion: AccountDeletion | null;
  errors: PrivacyError[];
}

const deletionAt = (requestedAt: Date): AccountDeletion => ({
  requestedAt,
  erasesAt: erasureDueAt(requestedAt),
});

/** The pending deletion of a user whose `deletionRequestedAt` is given; null when none. */
export const pendingDeletion = (requestedAt: Date | null | undefined) =>
  requestedAt ? deletionAt(requestedAt) : null;

export async function requestAccountDeletion(
  deps: Pick<PrivacyDeps, "users" | "clock">,
  actor: Actor,
): Promise<AccountDeletionPayload> {
  const requestedAt = await deps.users.requestDeletion(actor.userId, deps.clock.now());
  return requestedAt
    ? { accountDeletion: deletionAt(requestedAt), errors: [] }
    : { accountDeletion: null, errors: [noAccount()] };
}

/** Cancels the deletion the actor requested at `requestedAt` (as the request loaded it). */
export async function cancelAccountDeletion(
  deps: Pick<PrivacyDeps, "users">,
  actor: Actor,
  input: { requestedAt: Date | null | undefined },
): Promise<AccountDeletionPayload> {
  const requestedAt = input.requestedAt;
  if (!requestedAt || !(await deps.users.cancelDeletion(actor.userId))) {
    return { accountDeletion: null, errors: [noDeletionPending()] };
  }
  return { accountDeletion: deletionAt(requestedAt), errors: [] };
}

/** Erases one account now, whatever its grace period. */
export async function erase(deps: PrivacyDeps, userId: string): Promise<void> {
  const at = deps.clock.now();
  const [user] = await deps.users.usersByIds([userId]);
  if (!user) return;
  const names = quotedNames(user);
  // Dependents first, users (the tombstone) last: each part sees its references still valid.
  const parts = allParts(deps).reverse();
  await deps.db.sql.begin(async (tx) => {
    for (const part of parts) await part.eraseFor(tx, userId, at, names);
  });
  deps.users.forget(userId);
  deps.log.info("account erased", { userId });
}

/** Erases every account whose grace period ended at `now`; the number erased. */
export async function eraseDue(deps: PrivacyDeps, now: Date): Promise<number> {
  const requestedBy = new Date(now.getTime() - DELETION_GRACE_DAYS * 86_400_000);
  const due = await deps.users.dueForErasure(requestedBy, ERASURES_PER_RUN);
  for (const userId of due) await erase(deps, userId);
  return due.length;
}
