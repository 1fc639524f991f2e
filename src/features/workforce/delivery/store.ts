/**
 * SQL for delivery: the delivery columns of `ai_artifacts` (`delivered_at`, `delivery_status`,
 * `delivery_metadata`), which belong to this part of the workforce feature. Every transition is
 * one guarded statement; none of them touches an artifact already delivered.
 */
import type { Queryable } from "../../../platform/db.ts";

type Json = Record<string, unknown>;

/** Records the steps done so far (so a retry does not repeat them). */
export async function saveDeliveryProgress(
  sql: Queryable,
  id: string,
  metadata: Json,
): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set delivery_metadata = ${sql.json(metadata as never)}::jsonb
    where id = ${id} and approval_status = 'approved' and delivered_at is null
    returning id`;
  return rows.length === 1;
}

/** approved, not delivered → delivered. */
export async function markDelivered(
  sql: Queryable,
  id: string,
  metadata: Json,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set delivered_at = ${now}, delivery_status = 'delivered',
      delivery_metadata = ${sql.json(metadata as never)}::jsonb
    where id = ${id} and approval_status = 'approved' and delivered_at is null
    returning id`;
  return rows.length === 1;
}

/** approved, not delivered → failed (the error is in the metadata). */
export async function markDeliveryFailed(
  sql: Queryable,
  id: string,
  metadata: Json,
): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set delivery_status = 'failed',
      delivery_metadata = ${sql.json(metadata as never)}::jsonb
    where id = ${id} and approval_status = 'approved' and delivered_at is null
    returning id`;
  return rows.length === 1;
}

/**
 * failed → queued again (status cleared, the error dropped, the steps already done kept). Only
 * one of two concurrent retries gets the row.
 */
export async function reopenFailedDelivery(sql: Queryable, id: string): Promise<boolean> {
  const rows = await sql`
    update ai_artifacts set delivery_status = null,
      delivery_metadata = coalesce(delivery_metadata, '{}'::jsonb) - 'error' - 'failedStep'
    where id = ${id} and approval_status = 'approved' and delivered_at is null
      and delivery_status = 'failed'
    returning id`;
  return rows.length === 1;
}
