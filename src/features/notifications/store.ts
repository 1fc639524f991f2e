/** SQL for notifications. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { NotificationView } from "./rules.ts";

export interface NotificationRow {
  id: string;
  publicId: string;
  userId: string;
  kind: string;
  content: string;
  acknowledgedAt: Date | null;
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", kind, content,
      acknowledged_at as "acknowledgedAt", created_at as "createdAt"`;

export function toView(row: NotificationRow): NotificationView {
  return {
    id: row.publicId,
    kind: row.kind,
    content: row.content,
    acknowledged: row.acknowledgedAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function insertNotification(
  sql: Queryable,
  input: { userId: string; kind: string; content: string },
): Promise<NotificationRow> {
  return await one(sql<NotificationRow[]>`
    insert into notifications (public_id, user_id, kind, content)
    values (${publicId()}, ${input.userId}, ${input.kind}, ${input.content})
    returning ${columns(sql)}`);
}

export async function notificationById(sql: Queryable, id: string) {
  return await maybeOne(sql<NotificationRow[]>`
    select ${columns(sql)} from notifications where id = ${id}`);
}

/** The user's notification with this public id (another user's behaves as missing). */
export async function ownNotification(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<NotificationRow[]>`
    select ${columns(sql)} from notifications where public_id = ${id} and user_id = ${userId}`);
}

/** Newest first; `after` is the (createdAt, publicId) of the last row of the previous page. */
export async function listNotifications(
  sql: Queryable,
  userId: string,
  limit: number,
  after: [string, string] | null,
): Promise<(NotificationRow & { createdKey: string })[]> {
  // The cursor keeps microseconds (a JavaScript Date would drop them and skip rows).
  return await sql<(NotificationRow & { createdKey: string })[]>`
    select ${columns(sql)},
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdKey"
    from notifications
    where user_id = ${userId}
      ${after ? sql`and (created_at, public_id) < (${after[0]}::timestamptz, ${after[1]})` : sql``}
    order by created_at desc, public_id desc
    limit ${limit}`;
}

/** Marks the notification read; null when it was not the user's or was already acknowledged. */
export async function acknowledge(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<NotificationRow[]>`
    update notifications set acknowledged_at = now()
    where public_id = ${id} and user_id = ${userId} and acknowledged_at is null
    returning ${columns(sql)}`);
}
