/**
 * Leaderboard points (migrations/0013_team_activity_rollup.sql): one point per habit check-in and
 * per goal event, added to the user's week, month and all-time rows in the transaction that
 * writes the check-in or event.
 */
import type { Queryable } from "../../platform/db.ts";

/** Adds one point for activity on `day` (YYYY-MM-DD: a check-in's day, an event's UTC day). */
export async function addActivityPoint(sql: Queryable, userId: string, day: string) {
  await sql`
    insert into activity_points as p (period, starts, user_id, points)
    select b.period, b.starts, ${userId}, 1
    from (values
      ('week', date_trunc('week', ${day}::text::date::timestamp)::date),
      ('month', date_trunc('month', ${day}::text::date::timestamp)::date),
      ('all', '-infinity'::date)
    ) b (period, starts)
    on conflict (period, starts, user_id) do update set points = p.points + 1`;
}
