/** SQL for data exports (`data_exports`). */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

export interface DataExportRow {
  id: string;
  publicId: string;
  status: "pending" | "ready";
  downloadToken: string;
  createdAt: Date;
  readyAt: Date | null;
  expiresAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", status, download_token as "downloadToken",
      created_at as "createdAt", ready_at as "readyAt", expires_at as "expiresAt"`;

/** The user's pending export that has not expired, if any. */
export async function pendingExport(
  sql: Queryable,
  userId: string,
  now: Date,
): Promise<DataExportRow | null> {
  return await maybeOne(sql<DataExportRow[]>`
    select ${columns(sql)} from data_exports
    where user_id = ${userId} and status = 'pending' and expires_at > ${now}
    order by created_at desc limit 1`);
}

export async function insertExport(
  tx: Queryable,
  userId: string,
  at: Date,
  expiresAt: Date,
): Promise<DataExportRow> {
  return await one(tx<DataExportRow[]>`
    insert into data_exports (public_id, user_id, download_token, created_at, expires_at)
    values (${publicId()}, ${userId}, ${publicId(32)}, ${at}, ${expiresAt})
    returning ${columns(tx)}`);
}

/** One of the user's exports that has not expired, by public id. */
export async function exportOf(
  sql: Queryable,
  userId: string,
  id: string,
  now: Date,
): Promise<DataExportRow | null> {
  return await maybeOne(sql<DataExportRow[]>`
    select ${columns(sql)} from data_exports
    where public_id = ${id} and user_id = ${userId} and expires_at > ${now}`);
}

/** The owner of a pending export (for the job that writes it), or null when it is gone. */
export async function pendingExportOwner(
  sql: Queryable,
  id: string,
): Promise<{ userId: string; userPublicId: string } | null> {
  return await maybeOne(sql<{ userId: string; userPublicId: string }[]>`
    select e.user_id as "userId", u.public_id as "userPublicId"
    from data_exports e join users u on u.id = e.user_id
    where e.public_id = ${id} and e.status = 'pending'`);
}

export async function completeExport(
  sql: Queryable,
  id: string,
  content: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await sql`
    update data_exports set status = 'ready', content = ${
    sql.json(content as never)
  }, ready_at = ${at}
    where public_id = ${id} and status = 'pending'`;
}

/** The content of a ready export whose token matches and that has not expired. */
export async function downloadableContent(
  sql: Queryable,
  id: string,
  token: string,
  now: Date,
): Promise<unknown | null> {
  const row = await maybeOne(sql<{ content: unknown }[]>`
    select content from data_exports
    where public_id = ${id} and download_token = ${token} and status = 'ready'
      and expires_at > ${now}`);
  return row?.content ?? null;
}

export async function deleteExpiredExports(sql: Queryable, now: Date): Promise<number> {
  const rows = await sql`delete from data_exports where expires_at <= ${now} returning id`;
  return rows.length;
}

export async function deleteExportsOf(tx: Queryable, userId: string): Promise<void> {
  await tx`delete from data_exports where user_id = ${userId}`;
}
