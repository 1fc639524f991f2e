/** SQL for mood logs. */
import { one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";

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

/** Logs in [from, to), newest first, at most `limit`. */
export async function moodLogsBetween(
  sql: Queryable,
  userId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<MoodLogRow[]> {
  return await sql<MoodLogRow[]>`
    select ${columns(sql)} from mood_logs
    where user_id = ${userId} and logged_at >= ${from} and logged_at < ${to}
    order by logged_at desc, id desc limit ${limit}`;
}
