/**
 * SQL for delivery: the delivery columns of `ai_artifacts` (`delivered_at`, `delivery_status`,
 * `delivery_metadata`), and the patch check's. Every delivery transition is one guarded statement
 * on an approved artifact not delivered yet, so none of them touches an artifact already delivered.
 */
import type { Queryable } from "../../../platform/db.ts";
import type { PatchCheckStatus } from "../store/rows.ts";

type Json = Record<string, unknown>;
type Fragment = ReturnType<Queryable["unsafe"]>;

/** Applies `set` to the artifact when it is approved, not delivered, and `extra` holds. */
async function updateUndelivered(
  sql: Queryable,
  id: string,
  set: Fragment,
  extra: Fragment = sql``,
): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set ${set}
    where id = ${id} and approval_status = 'approved' and delivered_at is null ${extra}
    returning id`;
  return rows.length === 1;
}

const metadataOf = (sql: Queryable, metadata: Json) => sql.json(metadata as never);

/**
 * Marks the delivery started (`delivery_metadata` set), which ends the undo window; with
 * `approvedAt`, only while the artifact still carries that approval.
 */
export function startDelivery(sql: Queryable, id: string, approvedAt: string | null) {
  return updateUndelivered(
    sql,
    id,
    sql`delivery_metadata = coalesce(delivery_metadata, '{}'::jsonb)`,
    approvedAt === null ? sql`` : sql`and reviewed_at = ${approvedAt}::timestamptz`,
  );
}

/** Records the steps done so far (so a retry does not repeat them). */
export function saveDeliveryProgress(sql: Queryable, id: string, metadata: Json) {
  return updateUndelivered(sql, id, sql`delivery_metadata = ${metadataOf(sql, metadata)}::jsonb`);
}

/** approved, not delivered → delivered. */
export function markDelivered(sql: Queryable, id: string, metadata: Json, now: Date) {
  return updateUndelivered(
    sql,
    id,
    sql`delivered_at = ${now}, delivery_status = 'delivered',
        delivery_metadata = ${metadataOf(sql, metadata)}::jsonb`,
  );
}

/** approved, not delivered → failed (the error is in the metadata). */
export function markDeliveryFailed(sql: Queryable, id: string, metadata: Json) {
  return updateUndelivered(
    sql,
    id,
    sql`delivery_status = 'failed', delivery_metadata = ${metadataOf(sql, metadata)}::jsonb`,
  );
}

/**
 * failed → queued again (status cleared, the error dropped, the steps already done kept). Only
 * one of two concurrent retries gets the row.
 */
export function reopenFailedDelivery(sql: Queryable, id: string) {
  return updateUndelivered(
    sql,
    id,
    sql`delivery_status = null,
        delivery_metadata = coalesce(delivery_metadata, '{}'::jsonb) - 'error' - 'failedStep'`,
    sql`and delivery_status = 'failed'`,
  );
}

export interface PatchCheck {
  status: PatchCheckStatus;
  reason: string | null;
  /** The commit the files were read at; null when GitHub was not read. */
  commitSha: string | null;
}

/**
 * Records the patch check of a code patch, as long as its payload is still the one checked (an
 * approval with edits replaces it, and drops the check, meanwhile).
 */
export async function recordPatchCheck(
  sql: Queryable,
  id: string,
  checkedPayload: string,
  check: PatchCheck,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set patch_check = ${check.status}, patch_check_reason = ${check.reason},
      patch_checked_sha = ${check.commitSha}, patch_checked_at = ${now}
    where id = ${id} and kind = 'code_patch' and payload = ${checkedPayload}
    returning id`;
  return rows.length === 1;
}
