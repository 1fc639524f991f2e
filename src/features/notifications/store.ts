/** SQL for notifications. */
import type postgres from "postgres";
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";

export interface NotificationRow {
  id: string;
  publicId: string;
  userId: string;
  kind: string;
  content: string;
  acknowledgedAt: Date | null;
  createdAt: Date;
  actorId: string | null;
  subjectType: string | null;
  subjectId: string | null;
  args: Record<string, unknown>;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", kind, content,
      acknowledged_at as "acknowledgedAt", created_at as "createdAt", actor_id::text as "actorId",
      subject_type as "subjectType", subject_id as "subjectId", args`;

/** One notification to write; `key`, when given, makes the write happen at most once. */
export interface NewNotification {
  userId: string;
  kind: string;
  content: string;
  actorId: string | null;
  subjectType: string | null;
  subjectId: string | null;
  args: Record<string, unknown>;
  key?: string | null;
}

/** The condition that the recipient (a column or an id) has not turned `kind` off. */
const wanted = (sql: Queryable, recipient: postgres.Fragment, kind: postgres.Fragment) =>
  sql`not exists (
    select 1 from notification_preferences p
    where p.user_id = ${recipient} and p.kind = ${kind} and not p.enabled)`;

/**
 * The CTE `counted` that adds the notifications the CTE `notifications` returned to their users'
 * kept counts (in user order, so concurrent batches lock the rows in one order).
 */
const counted = (sql: Queryable) =>
  sql`counted as (
    insert into notification_counts (user_id, total, unread)
    select user_id, count(*), count(*) from notifications group by user_id order by user_id
    on conflict (user_id) do update set total = notification_counts.total + excluded.total,
      unread = notification_counts.unread + excluded.unread
  )`;

/**
 * Stores the notification in one statement unless its user turned the kind off or a notification
 * with the same key exists; null when nothing was stored.
 */
export async function insertNotification(
  sql: Queryable,
  input: NewNotification,
): Promise<NotificationRow | null> {
  return await maybeOne(sql<NotificationRow[]>`
    with notifications as (
      insert into notifications
        (public_id, user_id, kind, content, actor_id, subject_type, subject_id, args, dedup_key)
      select ${publicId()}, ${input.userId}::bigint, ${input.kind}::text, ${input.content}::text,
        ${input.actorId}::bigint, ${input.subjectType}::text, ${input.subjectId}::text,
        ${sql.json(input.args as never)}, ${input.key ?? null}::text
      where ${wanted(sql, sql`${input.userId}::bigint`, sql`${input.kind}::text`)}
      on conflict (dedup_key) do nothing
      returning *
    ), ${counted(sql)}
    select ${columns(sql)} from notifications`);
}

/** `insertNotification` for many recipients, in one statement; the stored ids. */
export async function insertNotifications(
  sql: Queryable,
  recipients: readonly NewNotification[],
): Promise<string[]> {
  if (recipients.length === 0) return [];
  const rows = await sql<{ id: string }[]>`
    with notifications as (
    insert into notifications
      (public_id, user_id, kind, content, actor_id, subject_type, subject_id, args, dedup_key)
    select r.public_id, r.user_id, r.kind, r.content, r.actor_id, r.subject_type, r.subject_id,
      r.args::jsonb, r.dedup_key
    from unnest(
      ${recipients.map(() => publicId())}::text[],
      ${recipients.map((r) => r.userId)}::bigint[],
      ${recipients.map((r) => r.kind)}::text[],
      ${recipients.map((r) => r.content)}::text[],
      ${recipients.map((r) => r.actorId)}::bigint[],
      ${recipients.map((r) => r.subjectType)}::text[],
      ${recipients.map((r) => r.subjectId)}::text[],
      ${recipients.map((r) => JSON.stringify(r.args))}::text[],
      ${recipients.map((r) => r.key ?? null)}::text[]
    ) as r(public_id, user_id, kind, content, actor_id, subject_type, subject_id, args, dedup_key)
    where ${wanted(sql, sql`r.user_id`, sql`r.kind`)}
    on conflict (dedup_key) do nothing
    returning id, user_id
    ), ${counted(sql)}
    select id from notifications`;
  return rows.map((r) => r.id);
}

export async function notificationById(sql: Queryable, id: string) {
  return await maybeOne(sql<NotificationRow[]>`
    select ${columns(sql)} from notifications where id = ${id}`);
}

export async function notificationsByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<NotificationRow[]>`
    select ${columns(sql)} from notifications where id = any(${ids as string[]}::bigint[])`;
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

/** How many notifications `listNotifications` pages through, from the kept counts. */
export async function countNotifications(
  sql: Queryable,
  userId: string,
  acknowledged: boolean | null,
): Promise<number> {
  const n = acknowledged === null ? sql`total` : acknowledged ? sql`total - unread` : sql`unread`;
  const [row] = await sql<{ n: number }[]>`
    select coalesce((select ${n} from notification_counts where user_id = ${userId}), 0)::int
      as n`;
  return row.n;
}

/**
 * Marks the user's notification read in one statement: the row as it is now (null when it is not
 * the user's) and whether this call changed it (false when it was already read).
 */
export async function acknowledge(sql: Queryable, userId: string, id: string) {
  return await maybeOne(sql<(NotificationRow & { changed: boolean })[]>`
    with updated as (
      update notifications set acknowledged_at = now()
      where public_id = ${id} and user_id = ${userId} and acknowledged_at is null
      returning ${columns(sql)}
    ), counted as (
      update notification_counts set unread = unread - 1
      where user_id = ${userId} and exists (select 1 from updated)
    )
    select *, true as changed from updated
    union all
    select ${columns(sql)}, false as changed from notifications
    where public_id = ${id} and user_id = ${userId} and not exists (select 1 from updated)`);
}

/** Marks every unread notification of the user read, in one statement; how many it marked. */
export async function acknowledgeAll(sql: Queryable, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    with read as (
      update notifications set acknowledged_at = now()
      where user_id = ${userId} and acknowledged_at is null
      returning 1
    ), counted as (
      update notification_counts set unread = unread - (select count(*) from read)
      where user_id = ${userId}
    )
    select count(*)::int as n from read`;
  return row.n;
}

/** The kinds the user turned off. */
export async function disabledKinds(sql: Queryable, userId: string): Promise<Set<string>> {
  const rows = await sql<{ kind: string }[]>`
    select kind from notification_preferences where user_id = ${userId} and not enabled`;
  return new Set(rows.map((r) => r.kind));
}

/** Turns a kind on or off for the user (one upsert; repeating it changes nothing). */
export async function setPreference(
  sql: Queryable,
  userId: string,
  kind: string,
  enabled: boolean,
): Promise<void> {
  await sql`
    insert into notification_preferences (user_id, kind, enabled)
    values (${userId}, ${kind}, ${enabled})
    on conflict (user_id, kind) do update set enabled = excluded.enabled, updated_at = now()
    where notification_preferences.enabled <> excluded.enabled`;
}

/**
 * Deletes up to `limit` read notifications sent before `before`, oldest first, and takes them out
 * of their users' kept counts; how many.
 */
export async function pruneReadBefore(sql: Queryable, before: Date, limit: number) {
  const [{ n }] = await sql<{ n: number }[]>`
    with gone as (
      delete from notifications where acknowledged_at is not null and id in (
        select id from notifications where acknowledged_at is not null and created_at < ${before}
        order by created_at limit ${limit})
      returning user_id
    ), counted as (
      update notification_counts c set total = c.total - g.n
      from (select user_id, count(*)::int as n from gone group by user_id) g
      where c.user_id = g.user_id
    )
    select count(*)::int as n from gone`;
  return n;
}
