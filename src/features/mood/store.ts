/** SQL for mood logs. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import { keyset, type PageWindow } from "../../graphql/pagination.ts";

export interface MoodLogRow {
  publicId: string;
  mood: number;
  note: string | null;
  tags: string[];
  loggedAt: Date;
  createdAt: Date;
}

const columns = (sql: Queryable) =>
  sql`public_id as "publicId", mood, note, tags, logged_at as "loggedAt",
      created_at as "createdAt"`;

export async function insertMoodLog(
  tx: Queryable,
  userId: string,
  log: { mood: number; note: string | null; tags: string[]; loggedAt: Date },
): Promise<MoodLogRow> {
  return await one(tx<MoodLogRow[]>`
    insert into mood_logs (public_id, user_id, mood, note, tags, logged_at)
    values (${publicId()}, ${userId}, ${log.mood}, ${log.note}, ${log.tags}, ${log.loggedAt})
    returning ${columns(tx)}`);
}

/** A window of the logs in [from, to), newest first by (logged_at, public_id). */
export async function moodLogsBetween(
  sql: Queryable,
  userId: string,
  from: Date,
  to: Date,
  window: PageWindow<readonly (string | number)[]>,
): Promise<(MoodLogRow & { loggedKey: string })[]> {
  const k = keyset(
    sql,
    [{ column: "logged_at", cast: "timestamptz" }, { column: "public_id" }],
    "desc",
    window,
  );
  // The cursor keeps microseconds (a JavaScript Date would drop them and skip rows).
  return await sql<(MoodLogRow & { loggedKey: string })[]>`
    select ${columns(sql)},
      to_char(logged_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "loggedKey"
    from mood_logs
    where user_id = ${userId} and logged_at >= ${from} and logged_at < ${to} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

/** How many logs [from, to) holds. */
export async function countMoodLogs(
  sql: Queryable,
  userId: string,
  from: Date,
  to: Date,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from mood_logs
    where user_id = ${userId} and logged_at >= ${from} and logged_at < ${to}`;
  return row.n;
}

/** One of the user's logs; null for another user's or none. */
export async function ownMoodLog(sql: Queryable, userId: string, logPublicId: string) {
  return await maybeOne(sql<MoodLogRow[]>`
    select ${columns(sql)} from mood_logs
    where public_id = ${logPublicId} and user_id = ${userId}`);
}

/** Deletes one of the user's logs; null for another user's or none. Returns it as it was. */
export async function deleteMoodLog(tx: Queryable, userId: string, logPublicId: string) {
  return await maybeOne(tx<MoodLogRow[]>`
    delete from mood_logs where public_id = ${logPublicId} and user_id = ${userId}
    returning ${columns(tx)}`);
}

/** Whether the user has any mood log left (for judging `first_mood_log`). */
export async function hasMoodLog(tx: Queryable, userId: string): Promise<boolean> {
  const [row] = await tx<{ any: boolean }[]>`
    select exists (select 1 from mood_logs where user_id = ${userId}) as any`;
  return row.any;
}

/** Writes several logs of the user in one statement; returns the rows written. */
export async function insertMoodLogs(
  tx: Queryable,
  userId: string,
  logs: readonly { mood: number; note: string | null; tags: string[]; loggedAt: Date }[],
): Promise<MoodLogRow[]> {
  if (!logs.length) return [];
  // Tags travel as JSON arrays: a text[][] parameter cannot hold rows of different lengths.
  return await tx<MoodLogRow[]>`
    insert into mood_logs (public_id, user_id, mood, note, tags, logged_at)
    select p, ${userId}, m, n,
      array(select jsonb_array_elements_text(t::jsonb)), l
    from unnest(${logs.map(() => publicId())}::text[], ${logs.map((l) => l.mood)}::int[], ${logs
    .map((l) => l.note) as string[]}::text[], ${logs.map((l) => JSON.stringify(l.tags))}::text[], ${
    logs.map((l) => l.loggedAt.toISOString())
  }::timestamptz[]) with ordinality as e(p, m, n, t, l, i)
    order by i
    returning ${columns(tx)}`;
}
