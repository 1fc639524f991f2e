/** SQL for notifications. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { NotificationView } from "./rules.ts";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";

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

/** Which notifications a list holds: all, or only the (un)acknowledged ones. */
const filterOf = (sql: Queryable, userId: string, acknowledged: boolean | null) =>
  sql`user_id = ${userId} ${
    acknowledged === null
      ? sql``
      : acknowledged
      ? sql`and acknowledged_at is not null`
      : sql`and acknowledged_at is null`
  }`;

/** A window of the user's notifications, newest first by (created_at, public_id). */
export async function listNotifications(
  sql: Queryable,
  userId: string,
  acknowledged: boolean | null,
  window: PageWindow<readonly (string | number)[]>,
): Promise<(NotificationRow & { createdKey: string })[]> {
  const k = keyset(
    sql,
    [{ column: "created_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  // The cursor keeps microseconds (a JavaScript Date would drop them and skip rows).
  return await sql<(NotificationRow & { createdKey: string })[]>`
    select ${columns(sql)},
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdKey"
    from notifications
    where ${filterOf(sql, userId, acknowledged)} and ${k.where}
    order by ${k.orderBy}
    limit ${k.limit}`;
}

/** How many notifications `listNotifications` pages through. */
export async function countNotifications(
  sql: Queryable,
  userId: string,
  acknowledged: boolean | null,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from notifications where ${filterOf(sql, userId, acknowledged)}`;
  return row.n;
}

/** Marks the notification read; null when it was not the user's or was already acknowledged. */
export async function acknowledge(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<NotificationRow[]>`
    update notifications set acknowledged_at = now()
    where public_id = ${id} and user_id = ${userId} and acknowledged_at is null
    returning ${columns(sql)}`);
}
