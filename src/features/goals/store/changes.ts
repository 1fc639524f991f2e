/** SQL of undoing, editing and deleting what was recorded (docs/domain.md, "Undo, edit and delete"). */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import type { GoalStatus } from "../rules.ts";
import { columns, type GoalRow } from "./goals.ts";
import { type GoalEventRow, streakRuns } from "./activity.ts";

export interface RemovedCheckIn {
  publicId: string;
  day: string;
  createdAt: Date;
}

/**
 * Removes the check-in of `day`; null when there is none. The delete takes the row's lock, so a
 * credit of it running meanwhile (challenges) finishes first or then finds it gone.
 */
export async function deleteCheckIn(tx: Queryable, goalId: string, day: string) {
  return await maybeOne(tx<RemovedCheckIn[]>`
    delete from habit_check_ins where goal_id = ${goalId} and day = ${day}
    returning public_id as "publicId", day::text as day, created_at as "createdAt"`);
}

const eventColumns = (sql: Queryable, alias: string) =>
  sql`${sql(alias)}.id, ${sql(alias)}.public_id as "publicId", ${sql(alias)}.goal_id as "goalId",
      ${sql(alias)}.value, ${sql(alias)}.note, ${sql(alias)}.occurred_at as "occurredAt",
      ${sql(alias)}.created_at as "createdAt"`;

/** An event of one of the user's goals; null for another user's or none. */
export async function ownEvent(sql: Queryable, userId: string, eventPublicId: string) {
  return await maybeOne(sql<GoalEventRow[]>`
    select ${eventColumns(sql, "e")} from goal_events e
    where e.public_id = ${eventPublicId} and e.user_id = ${userId}`);
}

/**
 * Applies an event patch while the event is still editable (`occurred_at >= since`, re-checked
 * by the statement); null when it changed meanwhile (deleted, or moved out of the window).
 */
export async function updateGoalEvent(
  tx: Queryable,
  eventId: string,
  patch: { value?: number; note?: string | null; occurredAt?: Date },
  since: Date,
): Promise<GoalEventRow | null> {
  return await maybeOne(tx<GoalEventRow[]>`
    update goal_events e set
      value = coalesce(${patch.value ?? null}::double precision, e.value),
      note = case when ${patch.note !== undefined} then ${patch.note ?? null} else e.note end,
      occurred_at = coalesce(${patch.occurredAt ?? null}::timestamptz, e.occurred_at)
    where e.id = ${eventId} and e.occurred_at >= ${since}
    returning ${eventColumns(tx, "e")}`);
}

/** Deletes an event while it is still editable; null when it changed meanwhile. */
export async function deleteGoalEvent(tx: Queryable, eventId: string, since: Date) {
  return await maybeOne(tx<GoalEventRow[]>`
    delete from goal_events e where e.id = ${eventId} and e.occurred_at >= ${since}
    returning ${eventColumns(tx, "e")}`);
}

/** Reopens a completed goal (the guard of the transition); null when it is not completed. */
export async function reopenGoal(tx: Queryable, goalId: string, at: Date) {
  return await maybeOne(tx<GoalRow[]>`
    update goals set status = 'active', completed_at = null, updated_at = ${at}
    where id = ${goalId} and status = 'completed'
    returning ${columns(tx)}`);
}

export interface GoalActivity {
  checkIns: { goalPublicId: string; checkInId: string; day: string }[];
  eventIds: string[];
  /** The deleted goals' internal and public ids, and whether any of them was completed. */
  goalIds: string[];
  publicIds: string[];
  hadCompleted: boolean;
}

/**
 * Deletes a goal of the user with its sub-goals and everything recorded on them (check-ins,
 * events, freeze uses and grants; summaries and AI suggestions cascade), in a fixed number of
 * statements whatever their size; null when the user has no such goal. Returns what the credits
 * of points and challenges need to take back.
 */
export async function deleteGoalTree(
  tx: Queryable,
  userId: string,
  goalId: string,
): Promise<GoalActivity | null> {
  const goals = await tx<{ id: string; publicId: string; status: GoalStatus }[]>`
    select id, public_id as "publicId", status from goals
    where user_id = ${userId} and (id = ${goalId} or parent_id = ${goalId})
    order by id for update`;
  if (!goals.some((g) => g.id === goalId)) return null;
  const ids = goals.map((g) => g.id);
  const publicIdOf = new Map(goals.map((g) => [g.id, g.publicId]));
  const checkIns = await tx<{ goalId: string; checkInId: string; day: string }[]>`
    delete from habit_check_ins where goal_id = any(${ids}::bigint[])
    returning goal_id as "goalId", public_id as "checkInId", day::text as day`;
  const events = await tx<{ publicId: string }[]>`
    delete from goal_events where goal_id = any(${ids}::bigint[])
    returning public_id as "publicId"`;
  await tx`
    with uses as (delete from streak_freeze_uses where goal_id = any(${ids}::bigint[])),
    grants as (delete from streak_freeze_grants where goal_id = any(${ids}::bigint[]))
    delete from goals where id = any(${ids}::bigint[])`;
  return {
    checkIns: checkIns.map((c) => ({
      goalPublicId: publicIdOf.get(c.goalId)!,
      checkInId: c.checkInId,
      day: c.day,
    })),
    eventIds: events.map((e) => e.publicId),
    goalIds: ids,
    publicIds: goals.map((g) => g.publicId),
    hadCompleted: goals.some((g) => g.status === "completed"),
  };
}

/** What the user's goals show now, for judging badges after an undo or a deletion. */
export async function badgeFacts(tx: Queryable, userId: string, timeZone: string) {
  const [facts] = await tx<{
    hasGoal: boolean;
    hasCheckIn: boolean;
    hasProgressEvent: boolean;
    hasCompletedGoal: boolean;
    dayGoals: string[];
  }[]>`
    select
      exists (select 1 from goals where user_id = ${userId}) as "hasGoal",
      exists (select 1 from goals g join habit_check_ins c on c.goal_id = g.id
              where g.user_id = ${userId}) as "hasCheckIn",
      exists (select 1 from goals g join goal_events e on e.goal_id = g.id
              where g.user_id = ${userId}) as "hasProgressEvent",
      exists (select 1 from goals where user_id = ${userId} and status = 'completed')
        as "hasCompletedGoal",
      array(select id::text from goals where user_id = ${userId}
            and (kind = 'target' or cadence is distinct from 'weekly')) as "dayGoals"`;
  const runs = facts.dayGoals.length ? await streakRuns(tx, facts.dayGoals, timeZone) : [];
  const { dayGoals: _, ...flags } = facts;
  return { ...flags, longestDayStreak: Math.max(0, ...runs.map((r) => r.longest)) };
}

/** Locks a check-in for share (by id, or by goal and day); false when it no longer exists. */
export async function lockCheckIn(
  tx: Queryable,
  ref: { checkInId?: string | null; goalId: string; date: string },
): Promise<boolean> {
  const rows = ref.checkInId
    ? await tx`select 1 from habit_check_ins where public_id = ${ref.checkInId} for share`
    : await tx`
      select 1 from habit_check_ins c join goals g on g.id = c.goal_id
      where g.public_id = ${ref.goalId} and c.day = ${ref.date}::date for share of c`;
  return rows.length > 0;
}

/** Locks an event for share; its value and time now, or null when it was deleted. */
export async function lockGoalEvent(tx: Queryable, eventPublicId: string) {
  return await maybeOne(tx<{ value: number; occurredAt: Date }[]>`
    select value, occurred_at as "occurredAt" from goal_events
    where public_id = ${eventPublicId} for share`);
}
