/**
 * The goals feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function goalsPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const goals = await sql`
    select g.public_id as id, p.public_id as "parentId", g.title, g.description, g.kind, g.unit,
      g.start_value as "startValue", g.target_value as "targetValue", g.due_date::text as "dueDate",
      g.cadence, g.times_per_week as "timesPerWeek", g.status, g.visibility,
      g.completed_at as "completedAt", g.created_at as "createdAt"
    from goals g left join goals p on p.id = g.parent_id
    where g.user_id = ${userId} order by g.created_at, g.id`;
      const events = await sql`
    select e.public_id as id, g.public_id as "goalId", e.value, e.note,
      e.occurred_at as "occurredAt", e.created_at as "createdAt"
    from goal_events e join goals g on g.id = e.goal_id
    where e.user_id = ${userId} order by e.occurred_at, e.id`;
      const checkIns = await sql`
    select c.public_id as id, g.public_id as "goalId", c.day::text as day, c.created_at as "createdAt"
    from habit_check_ins c join goals g on g.id = c.goal_id
    where c.user_id = ${userId} order by c.day, c.id`;
      const freezes = await sql`
    select g.public_id as "goalId", u.day::text as day from streak_freeze_uses u
    join goals g on g.id = u.goal_id where u.user_id = ${userId} order by u.day`;
      return {
        goals: [...goals],
        goalEvents: [...events],
        habitCheckIns: [...checkIns],
        streakFreezesUsed: [...freezes],
      };
    },
    async eraseFor(tx, userId) {
      const goals = tx`select id from goals where user_id = ${userId}`;
      await tx`delete from goal_events where user_id = ${userId} or goal_id in (${goals})`;
      await tx`delete from habit_check_ins where user_id = ${userId} or goal_id in (${goals})`;
      await tx`delete from streak_freeze_uses where user_id = ${userId} or goal_id in (${goals})`;
      await tx`delete from streak_freeze_grants where goal_id in (${goals})`;
      await tx`delete from goal_streak_summaries where goal_id in (${goals})`;
      await tx`delete from streak_freeze_balances where user_id = ${userId}`;
      await tx`update goals set parent_id = null where user_id = ${userId}`;
      await tx`delete from goals where user_id = ${userId}`;
    },
  };
}
