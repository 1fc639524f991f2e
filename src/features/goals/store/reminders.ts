/** SQL of the hourly `streak.at_risk` reminder. */
import { type Queryable } from "../../../platform/db.ts";

/** The zones users live in (the few distinct values of `users.time_zone`), for the reminders. */
export async function userTimeZones(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ timeZone: string }[]>`
    select distinct time_zone as "timeZone" from users
    where deletion_requested_at is null and erased_at is null`;
  return rows.map((r) => r.timeZone);
}

/** Up to `size` users living in `timeZone` (not leaving), after the user id `after`, by id. */
export async function usersInZone(
  sql: Queryable,
  timeZone: string,
  after: string | null,
  size: number,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from users
    where time_zone = ${timeZone} and deletion_requested_at is null and erased_at is null
      ${after === null ? sql`` : sql`and id > ${after}::bigint`}
    order by id
    limit ${size}`;
  return rows.map((r) => r.id);
}

/**
 * One statement: those of `userIds` who have an active habit due on `date` (their local date),
 * not checked in nor frozen that day, whose current streak is above zero, with the titles of
 * those habits. A daily habit is due every day and has a streak when the day before is covered; a
 * weekly one is due when skipping the day would miss its week (the check-ins still needed are at
 * least the days left, the day included) and has a streak when last week was met.
 */
export async function habitsAtRisk(
  sql: Queryable,
  userIds: readonly string[],
  date: string,
): Promise<{ userId: string; date: string; titles: string[]; goalIds: string[] }[]> {
  if (userIds.length === 0) return [];
  return await sql<{ userId: string; date: string; titles: string[]; goalIds: string[] }[]>`
    with z as (
      select ${date}::date as day,
             ${date}::date - (extract(isodow from ${date}::date)::int - 1) as week_start
    ), habits as (
      select g.user_id, z.day, z.week_start, g.id as goal_id, g.public_id, g.title, g.cadence,
             coalesce(g.times_per_week, 1) as required
      from z
      join goals g on g.user_id = any(${userIds as string[]}::bigint[]) and g.kind = 'habit'
        and g.status = 'active'
      where not exists (select 1 from habit_check_ins c where c.goal_id = g.id and c.day = z.day)
        and not exists (select 1 from streak_freeze_uses f where f.goal_id = g.id and f.day = z.day)
    ), at_risk as (
      select h.* from habits h
      cross join lateral (
        select count(*) filter (where d.day >= h.week_start) as this_week,
               count(*) filter (where d.day < h.week_start) as last_week,
               bool_or(d.day = h.day - 1) as yesterday
        from (
          select day from habit_check_ins
          where goal_id = h.goal_id and day >= h.week_start - 7 and day < h.day
          union
          select day from streak_freeze_uses
          where goal_id = h.goal_id and day >= h.week_start - 7 and day < h.day
        ) d
      ) done
      where case when h.cadence = 'weekly'
        then done.last_week >= h.required
          and h.required - done.this_week >= 7 - (h.day - h.week_start)
        else coalesce(done.yesterday, false) end
    )
    select user_id::text as "userId", day::text as date, array_agg(title order by goal_id) as titles,
      array_agg(public_id order by goal_id) as "goalIds"
    from at_risk group by user_id, day`;
}
