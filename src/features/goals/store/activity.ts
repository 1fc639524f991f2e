/**
 * SQL of what is recorded on goals: progress events, habit check-ins, streak freezes, and the
 * figures and streak runs derived from them (gaps and islands in SQL, never by loading every
 * event; batched functions take many goal ids so lists cost one statement).
 */
import { maybeOne, one, type Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";
import type { StreakRuns } from "../rules.ts";
import { FREEZE_CAP, startValueOf } from "../rules.ts";
import { type KeyColumn, keyset, type PageWindow } from "../../../graphql/pagination.ts";
import { PERIOD_EPOCH } from "../../../platform/dates.ts";
import { type GoalRow, keyText } from "./goals.ts";

export interface GoalEventRow {
  id: string;
  publicId: string;
  goalId: string;
  value: number;
  note: string | null;
  occurredAt: Date;
  createdAt: Date;
}

export async function insertGoalEvent(
  tx: Queryable,
  goal: GoalRow,
  value: number,
  note: string | null,
  occurredAt: Date,
): Promise<GoalEventRow> {
  return await one(tx<GoalEventRow[]>`
    insert into goal_events (public_id, goal_id, user_id, value, note, occurred_at)
    values (${publicId()}, ${goal.id}, ${goal.userId}, ${value}, ${note}, ${occurredAt})
    returning id, public_id as "publicId", goal_id as "goalId", value, note,
              occurred_at as "occurredAt", created_at as "createdAt"`);
}

/** Records many progress events of one goal in one statement. */
export async function insertGoalEvents(
  tx: Queryable,
  goal: GoalRow,
  events: readonly { value: number; note: string | null; occurredAt: Date }[],
): Promise<GoalEventRow[]> {
  if (!events.length) return [];
  return await tx<GoalEventRow[]>`
    insert into goal_events (public_id, goal_id, user_id, value, note, occurred_at)
    select p, ${goal.id}, ${goal.userId}, v, n, o
    from unnest(${events.map(() => publicId())}::text[], ${
    events.map((e) => e.value)
  }::float8[], ${events.map((e) => e.note) as string[]}::text[], ${
    events.map((e) => e.occurredAt.toISOString())
  }::timestamptz[]) as e(p, v, n, o)
    returning id, public_id as "publicId", goal_id as "goalId", value, note,
              occurred_at as "occurredAt", created_at as "createdAt"`;
}

/** The keyset of a goal's events: newest first by (occurred_at, public_id). */
const EVENT_KEY: KeyColumn[] = [{ column: "occurred_at", cast: "timestamptz" }, {
  column: "public_id",
}];

/**
 * The same window of the events of several goals, newest first, in one statement (a lateral
 * read per goal). Rows come in each goal's read order.
 */
export async function eventsOf(
  sql: Queryable,
  goalIds: readonly string[],
  window: PageWindow<readonly (string | number)[]>,
): Promise<(GoalEventRow & { occurredKey: string })[]> {
  const k = keyset(sql, EVENT_KEY, "desc", window);
  return await sql<(GoalEventRow & { occurredKey: string })[]>`
    select e.id, e.public_id as "publicId", e.goal_id as "goalId", e.value, e.note,
           e.occurred_at as "occurredAt", e.created_at as "createdAt", e.key as "occurredKey"
    from unnest(${goalIds as string[]}::bigint[]) with ordinality as g(id, n)
    cross join lateral (
      select *, ${
    keyText(sql, "occurred_at")
  } as key, row_number() over (order by ${k.orderBy}) as r
      from goal_events where goal_id = g.id and ${k.where}
      order by ${k.orderBy} limit ${k.limit}
    ) e
    order by g.n, e.r`;
}

/** The number of events of each of several goals (missing = 0). */
export async function eventCounts(
  sql: Queryable,
  goalIds: readonly string[],
): Promise<{ goalId: string; n: number }[]> {
  return await sql<{ goalId: string; n: number }[]>`
    select goal_id as "goalId", count(*)::int as n from goal_events
    where goal_id = any(${goalIds as string[]}) group by goal_id`;
}

export interface GoalFigures {
  goalId: string;
  /** Targets: start value plus every event. Habits: check-ins in the current period. */
  currentValue: number;
  checkedInToday: boolean;
  /**
   * The stored streak runs in the time zone asked for, when still current (the same match as
   * {@link streakRuns}); null when they need computing.
   */
  keptRuns: StreakRuns | null;
}

/** Current values of several goals in one statement. */
export async function goalFigures(
  sql: Queryable,
  goalIds: readonly string[],
  today: string,
  weekStart: string,
  timeZone: string,
): Promise<GoalFigures[]> {
  const ids = goalIds as string[];
  const rows = await sql<
    (Omit<GoalFigures, "keptRuns"> & { kept: boolean } & StreakRuns)[]
  >`
    select g.id as "goalId",
      coalesce(s.time_zone = ${timeZone} and s.required = case when g.cadence = 'weekly'
        then g.times_per_week else 1 end, false) as kept,
      s.longest, s.last_length as "lastLength", s.last_index as "lastIndex",
      case when g.kind = 'target' then coalesce(g.start_value, 0) + coalesce(s.event_total,
          (select sum(e.value) from goal_events e where e.goal_id = g.id), 0)
        else coalesce(case when g.cadence = 'weekly' then c.in_week else c.in_day end, 0)
          ::double precision end as "currentValue",
      coalesce(c.today, false) as "checkedInToday"
    from goals g
    left join goal_streak_summaries s on s.goal_id = g.id
      and s.activity_version = g.activity_version
    left join (
      select goal_id, bool_or(day = ${today}::date) as today, count(*) as in_week,
             count(*) filter (where day = ${today}::date) as in_day
      from habit_check_ins
      where goal_id = any(${ids}) and day between ${weekStart}::date and ${today}::date
      group by goal_id
    ) c on c.goal_id = g.id
    where g.id = any(${ids})`;
  return rows.map(({ kept, longest, lastLength, lastIndex, ...figures }) => ({
    ...figures,
    keptRuns: kept ? { longest, lastLength, lastIndex } : null,
  }));
}

/**
 * Sum of a target's events, plus its start value: the running total of the goal's last day with
 * activity (goal_progress_days, migration 0037), so the cost does not grow with its history.
 */
export async function targetValueNow(tx: Queryable, goal: GoalRow): Promise<number> {
  const [row] = await tx<{ v: number }[]>`
    select ${startValueOf(goal)}::double precision + coalesce((
      select value_through from goal_progress_days where goal_id = ${goal.id}
      order by day desc limit 1
    ), 0)::double precision as v`;
  return row.v;
}

/**
 * Streak runs of several goals of one user, by gaps and islands: a period qualifies when its
 * distinct days (check-ins and frozen days for habits, days with events for targets, in
 * `timeZone`) reach the goal's requirement; consecutive qualifying periods form a run.
 *
 * One statement: goals whose stored summary still matches (activity version, time zone,
 * requirement; see migration 0012) read it; the others are computed, one ordered pass per goal,
 * and their summaries stored, never over a newer one (nor for a goal deleted meanwhile).
 */
export async function streakRuns(
  sql: Queryable,
  goalIds: readonly string[],
  timeZone: string,
): Promise<(StreakRuns & { goalId: string })[]> {
  const ids = goalIds as string[];
  return await sql<(StreakRuns & { goalId: string })[]>`
    with g as (
      select id, kind, cadence, activity_version,
             case when cadence = 'weekly' then times_per_week else 1 end as required
      from goals where id = any(${ids})
    ), kept as (
      select s.goal_id, s.longest, s.last_length, s.last_index
      from goal_streak_summaries s join g on g.id = s.goal_id
      where s.activity_version = g.activity_version and s.time_zone = ${timeZone}
        and s.required = g.required
    ), stale as materialized (
      -- Key-share locked while computed and stored: a goal being deleted meanwhile is waited for
      -- and then skipped, so its summary is never stored after it is gone.
      select g.* from g join goals locked on locked.id = g.id
      where not exists (select 1 from kept where kept.goal_id = g.id)
      for key share of locked
    ), computed as (
      select g.id as goal_id, g.activity_version, g.required,
             coalesce(r.longest, 0) as longest, coalesce(r.last_length, 0) as last_length,
             r.last_index,
             case when g.kind = 'target' then
               (select coalesce(sum(value), 0) from goal_events where goal_id = g.id) end
               as event_total
      from stale g cross join lateral (
        select max(len)::int as longest, (array_agg(len order by last_idx desc))[1] as last_length,
               max(last_idx) as last_index
        from (
          select max(idx) as last_idx, count(*)::int as len
          from (select idx, idx - row_number() over (order by idx) as grp from (
            select d.day - ${PERIOD_EPOCH}::date as idx from (
              select day from habit_check_ins where goal_id = g.id
              union select day from streak_freeze_uses where goal_id = g.id
            ) d where g.kind = 'habit' and g.cadence is distinct from 'weekly'
            union all
            select floor((d.day - ${PERIOD_EPOCH}::date) / 7.0)::int from (
              select day from habit_check_ins where goal_id = g.id
              union select day from streak_freeze_uses where goal_id = g.id
            ) d where g.kind = 'habit' and g.cadence = 'weekly'
            group by 1 having count(*) >= g.required
            union all
            select distinct (occurred_at at time zone ${timeZone})::date - ${PERIOD_EPOCH}::date
            from goal_events where goal_id = g.id and g.kind = 'target'
          ) periods) islands
          group by grp
        ) runs
      ) r
    ), stored as (
      insert into goal_streak_summaries as s
        (goal_id, activity_version, time_zone, required, longest, last_length, last_index,
         event_total)
      select goal_id, activity_version, ${timeZone}, required, longest, last_length, last_index,
             event_total
      from computed
      on conflict (goal_id) do update set
        activity_version = excluded.activity_version, time_zone = excluded.time_zone,
        required = excluded.required, longest = excluded.longest,
        last_length = excluded.last_length, last_index = excluded.last_index,
        event_total = excluded.event_total, computed_at = now()
      where s.activity_version <= excluded.activity_version
    )
    select goal_id as "goalId", longest, last_length as "lastLength", last_index as "lastIndex"
    from kept
    union all
    select goal_id, longest, last_length, last_index from computed`;
}

/** Records a check-in; null when that day is already checked in (a repeat is idempotent). */
export async function insertCheckIn(tx: Queryable, goal: GoalRow, day: string) {
  return await maybeOne(tx<{ publicId: string; day: string; createdAt: Date }[]>`
    insert into habit_check_ins (public_id, goal_id, user_id, day)
    values (${publicId()}, ${goal.id}, ${goal.userId}, ${day})
    on conflict (goal_id, day) do nothing
    returning public_id as "publicId", day::text as day, created_at as "createdAt"`);
}

/** Records many check-ins of one goal in one statement; days already checked in are skipped. */
export async function insertCheckIns(tx: Queryable, goal: GoalRow, days: readonly string[]) {
  if (!days.length) return 0;
  const rows = await tx`
    insert into habit_check_ins (public_id, goal_id, user_id, day)
    select p, ${goal.id}, ${goal.userId}, d
    from unnest(${days.map(() => publicId())}::text[], ${days as string[]}::date[]) as c(p, d)
    on conflict (goal_id, day) do nothing
    returning id`;
  return rows.length;
}

export async function checkInOn(sql: Queryable, goalId: string, day: string) {
  return await maybeOne(sql<{ publicId: string; day: string; createdAt: Date }[]>`
    select public_id as "publicId", day::text as day, created_at as "createdAt"
    from habit_check_ins where goal_id = ${goalId} and day = ${day}`);
}

/** A check-in of one of the user's habits; null for another user's or none. */
export async function ownCheckIn(sql: Queryable, userId: string, checkInPublicId: string) {
  return await maybeOne(sql<{ publicId: string; day: string; createdAt: Date }[]>`
    select public_id as "publicId", day::text as day, created_at as "createdAt"
    from habit_check_ins where public_id = ${checkInPublicId} and user_id = ${userId}`);
}

/** The freezes a user holds, for several users. */
export async function freezeBalances(sql: Queryable, userIds: readonly string[]) {
  return await sql<{ userId: string; available: number }[]>`
    select user_id as "userId", available from streak_freeze_balances
    where user_id = any(${userIds as string[]})`;
}

/**
 * Grants one freeze for the run that reached `streak` on `reachedOn`, once per (goal, day), and
 * never above the cap. True when a freeze was added.
 */
export async function grantFreeze(
  tx: Queryable,
  goal: GoalRow,
  reachedOn: string,
  streak: number,
): Promise<boolean> {
  const [granted] = await tx`
    insert into streak_freeze_grants (goal_id, reached_on, streak)
    values (${goal.id}, ${reachedOn}, ${streak})
    on conflict do nothing returning goal_id`;
  if (!granted) return false;
  const [row] = await tx<{ available: number }[]>`
    insert into streak_freeze_balances (user_id, available, earned_total)
    values (${goal.userId}, 1, 1)
    on conflict (user_id) do update set
      available = least(streak_freeze_balances.available + 1, ${FREEZE_CAP}),
      earned_total = streak_freeze_balances.earned_total + 1, updated_at = now()
    returning available`;
  return row !== undefined;
}

/** Spends one freeze; false when none is left (the guard: `available > 0`). */
export async function spendFreeze(tx: Queryable, userId: string): Promise<boolean> {
  const rows = await tx`
    update streak_freeze_balances set available = available - 1, updated_at = now()
    where user_id = ${userId} and available > 0 returning available`;
  return rows.length === 1;
}

/** Covers a missed day; false when the day is already checked in or covered. */
/** Whether a streak freeze covers the goal's `day`. */
export async function freezeUsedOn(tx: Queryable, goalId: string, day: string): Promise<boolean> {
  const rows = await tx`
    select 1 from streak_freeze_uses where goal_id = ${goalId} and day = ${day}::date`;
  return rows.length > 0;
}

export async function insertFreezeUse(tx: Queryable, goal: GoalRow, day: string) {
  const rows = await tx`
    insert into streak_freeze_uses (goal_id, user_id, day)
    select ${goal.id}, ${goal.userId}, ${day}::date
    where not exists (select 1 from habit_check_ins where goal_id = ${goal.id} and day = ${day})
    on conflict (goal_id, day) do nothing
    returning id`;
  return rows.length === 1;
}
