/**
 * SQL for goals, progress events, habit check-ins, streak freezes and progress data. Streaks and
 * progress buckets are computed in SQL (gaps and islands, generate_series), never by loading
 * every event; batched functions take many goal ids so lists cost one statement.
 */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type {
  GoalPatch,
  GoalShape,
  GoalStatus,
  GroupBy,
  NewGoalRow,
  StreakRuns,
  Visibility,
} from "./rules.ts";
import { FREEZE_CAP, requiredPerPeriod, startValueOf } from "./rules.ts";
import { type KeyColumn, keyset, type PageWindow } from "../../graphql/pagination.ts";
import { PERIOD_EPOCH } from "../../platform/dates.ts";

export interface GoalRow extends GoalShape {
  id: string;
  publicId: string;
  userId: string;
  parentId: string | null;
  title: string;
  description: string | null;
  visibility: Visibility;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", parent_id as "parentId", title,
      description, kind, unit, start_value as "startValue", target_value as "targetValue",
      due_date::text as "dueDate", cadence, times_per_week as "timesPerWeek", status, visibility,
      completed_at as "completedAt", created_at as "createdAt", updated_at as "updatedAt"`;

export async function insertGoal(
  tx: Queryable,
  userId: string,
  row: NewGoalRow,
  at: Date,
): Promise<GoalRow> {
  return await one(tx<GoalRow[]>`
    insert into goals (public_id, user_id, parent_id, title, description, kind, unit, start_value,
                       target_value, due_date, cadence, times_per_week, visibility, created_at,
                       updated_at)
    values (${publicId()}, ${userId}, ${row.parentId}, ${row.title}, ${row.description},
            ${row.kind}, ${row.unit}, ${row.startValue}, ${row.targetValue}, ${row.dueDate},
            ${row.cadence}, ${row.timesPerWeek}, ${row.visibility}, ${at}, ${at})
    returning ${columns(tx)}`);
}

export async function goalsByIds(sql: Queryable, ids: readonly string[]): Promise<GoalRow[]> {
  return await sql<GoalRow[]>`select ${columns(sql)} from goals where id = any(${ids as string[]})`;
}

/** The user's goal with this public id, or null (another user's goal is null too). */
export async function ownGoal(sql: Queryable, userId: string, goalPublicId: string) {
  return await maybeOne(sql<GoalRow[]>`
    select ${columns(sql)} from goals where public_id = ${goalPublicId} and user_id = ${userId}`);
}

/** A public, not archived goal, or null. */
export async function publicGoal(sql: Queryable, goalPublicId: string): Promise<GoalRow | null> {
  return await maybeOne(sql<GoalRow[]>`
    select ${columns(sql)} from goals
    where public_id = ${goalPublicId} and visibility = 'public' and status <> 'archived'`);
}

/** The cursor key of a row: its creation time to the microsecond (a Date drops them). */
const keyText = (sql: Queryable, column: string) =>
  sql`to_char(${sql.unsafe(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The keyset of `goals`: newest first by (created_at, public_id). */
const GOAL_KEY: KeyColumn[] = [{ column: "created_at", cast: "timestamptz" }, {
  column: "public_id",
}];

const topLevelWhere = (sql: Queryable, userId: string, status: GoalStatus | null) =>
  sql`user_id = ${userId} and parent_id is null
      and ${status ? sql`status = ${status}` : sql`status <> 'archived'`}`;

/** A goal of the top-level list: its cursor key and the version of its activity. */
export type ListedGoalRow = GoalRow & { createdKey: string; activityVersion: string };

const listedColumns = (sql: Queryable) =>
  sql`${columns(sql)}, ${keyText(sql, "created_at")} as "createdKey",
      activity_version::text as "activityVersion"`;

/**
 * A window of a user's top-level goals, newest first; archived ones only when asked for by
 * status. Each with its activity version (what the goals' activity cache is keyed by).
 */
export async function topLevelGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
  window: PageWindow<readonly (string | number)[]>,
): Promise<ListedGoalRow[]> {
  const k = keyset(sql, GOAL_KEY, "desc", window);
  return await sql<ListedGoalRow[]>`
    select ${listedColumns(sql)} from goals
    where ${topLevelWhere(sql, userId, status)} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

/**
 * `topLevelGoals` and, in the same statement, the sub-goals of the goals of the window (oldest
 * first, as `subGoalsOf`): one round trip for a list that shows them.
 */
export async function topLevelGoalsWithSubGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
  window: PageWindow<readonly (string | number)[]>,
): Promise<{ goals: ListedGoalRow[]; subGoals: GoalRow[] }> {
  const k = keyset(sql, GOAL_KEY, "desc", window);
  const rows = await sql<(ListedGoalRow & { subGoal: boolean })[]>`
    with page as materialized (
      select * from goals
      where ${topLevelWhere(sql, userId, status)} and ${k.where}
      order by ${k.orderBy} limit ${k.limit}
    )
    select * from (
      select ${listedColumns(sql)}, false as "subGoal",
        row_number() over (order by ${k.orderBy}) as n
      from page
      union all
      select ${columns(sql)}, null, null, true, row_number() over (order by created_at, id)
      from goals where parent_id in (select id from page)
    ) listed order by "subGoal", n`;
  const firstSubGoal = rows.findIndex((r) => r.subGoal);
  return firstSubGoal === -1
    ? { goals: rows, subGoals: [] }
    : { goals: rows.slice(0, firstSubGoal), subGoals: rows.slice(firstSubGoal) };
}

/** How many top-level goals `topLevelGoals` pages through. */
export async function countTopLevelGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from goals where ${topLevelWhere(sql, userId, status)}`;
  return row.n;
}

/** Sub-goals of several parents, oldest first. */
export async function subGoalsOf(sql: Queryable, parentIds: readonly string[]) {
  return await sql<GoalRow[]>`
    select ${columns(sql)} from goals where parent_id = any(${parentIds as string[]})
    order by created_at, id`;
}

/**
 * Applies a patch in one statement. A status change carries its guard (`status = any(from)`), so
 * a concurrent change makes it match nothing: null is returned and nothing changes.
 */
export async function updateGoal(
  sql: Queryable,
  goalId: string,
  patch: GoalPatch,
  allowedFrom: GoalStatus[] | null,
  at: Date,
): Promise<GoalRow | null> {
  const has = (key: keyof GoalPatch) => patch[key] !== undefined;
  return await maybeOne(sql<GoalRow[]>`
    update goals set
      title = coalesce(${patch.title ?? null}, title),
      description = case when ${has("description")} then ${patch.description ?? null}
                    else description end,
      unit = case when ${has("unit")} then ${patch.unit ?? null} else unit end,
      start_value = coalesce(${patch.startValue ?? null}::double precision, start_value),
      target_value = coalesce(${patch.targetValue ?? null}::double precision, target_value),
      due_date = case when ${has("dueDate")} then ${patch.dueDate ?? null}::date else due_date end,
      times_per_week = coalesce(${patch.timesPerWeek ?? null}::integer, times_per_week),
      visibility = coalesce(${patch.visibility ?? null}, visibility),
      status = coalesce(${patch.status ?? null}, status),
      completed_at = case
        when ${patch.status ?? null}::text is null or ${patch.status ?? null} = status
          then completed_at
        when ${patch.status ?? null} = 'completed' then ${at}::timestamptz
        else null end,
      updated_at = ${at}
    where id = ${goalId}
      ${allowedFrom ? sql`and status = any(${allowedFrom})` : sql``}
    returning ${columns(sql)}`);
}

/** Marks a target completed when it is still active (the guard of the transition). */
export async function completeGoal(tx: Queryable, goalId: string, at: Date) {
  return await maybeOne(tx<GoalRow[]>`
    update goals set status = 'completed', completed_at = ${at}, updated_at = ${at}
    where id = ${goalId} and status = 'active'
    returning ${columns(tx)}`);
}

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

/** Sum of a target's events, plus its start value. */
export async function targetValueNow(tx: Queryable, goal: GoalRow): Promise<number> {
  const [row] = await tx<{ v: number }[]>`
    select ${startValueOf(goal)}::double precision + coalesce(sum(value), 0) as v
    from goal_events where goal_id = ${goal.id}`;
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
export async function insertFreezeUse(tx: Queryable, goal: GoalRow, day: string) {
  const rows = await tx`
    insert into streak_freeze_uses (goal_id, user_id, day)
    select ${goal.id}, ${goal.userId}, ${day}::date
    where not exists (select 1 from habit_check_ins where goal_id = ${goal.id} and day = ${day})
    on conflict (goal_id, day) do nothing
    returning id`;
  return rows.length === 1;
}

export interface BucketRow {
  periodStart: string;
  sum: number;
  count: number;
  cumulativeValue: number;
}

const intervalOf = (groupBy: GroupBy) =>
  groupBy === "day" ? "1 day" : groupBy === "week" ? "1 week" : "1 month";

/**
 * Progress buckets from `from` (a bucket start) to `to`, zero-filled. Targets bucket their
 * events by the local time of `occurred_at`; habits bucket check-ins (value 1 each). The
 * cumulative value includes everything before `from` (and a target's start value).
 */
export async function progressBuckets(
  sql: Queryable,
  goal: GoalRow,
  groupBy: GroupBy,
  from: string,
  to: string,
  timeZone: string,
): Promise<BucketRow[]> {
  const interval = intervalOf(groupBy);
  // Each bucket reads its own index range ([start, next start) in local time, the last one cut
  // at the end of `to`): no per-row time zone conversion, no hashing of every event.
  const bucket = goal.kind === "target"
    ? sql`select sum(value) as s, count(*)::int as n from goal_events
          where goal_id = ${goal.id} and occurred_at >= (b.p at time zone ${timeZone})
            and occurred_at < (b.next at time zone ${timeZone})`
    : sql`select count(*)::double precision as s, count(*)::int as n from habit_check_ins
          where goal_id = ${goal.id} and day >= b.p::date and day < b.next::date`;
  const before = goal.kind === "target"
    ? sql`select ${startValueOf(goal)}::double precision + coalesce(sum(value), 0)
          from goal_events where goal_id = ${goal.id}
            and occurred_at < (${from}::timestamp at time zone ${timeZone})`
    : sql`select count(*)::double precision from habit_check_ins
          where goal_id = ${goal.id} and day < ${from}::date`;
  return await sql<BucketRow[]>`
    with b as (
      select p, least(p + ${interval}::interval, (${to}::date + 1)::timestamp) as next
      from generate_series(${from}::timestamp, ${to}::timestamp, ${interval}::interval) p
    )
    select b.p::date::text as "periodStart", coalesce(a.s, 0)::double precision as sum,
           a.n as count,
           ((${before}) + sum(coalesce(a.s, 0)) over (order by b.p))::double precision
             as "cumulativeValue"
    from b cross join lateral (${bucket}) a
    order by b.p`;
}

/**
 * Habits: periods in [from, to] that met the requirement, and periods that could have (from the
 * goal's first day, up to today). Targets: not applicable.
 */
export async function qualifyingPeriods(
  sql: Queryable,
  goal: GoalRow,
  from: string,
  to: string,
): Promise<number> {
  const weekly = goal.cadence === "weekly";
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from (
      select ${weekly ? sql`date_trunc('week', day::timestamp)::date` : sql`day`} as p
      from (
        select day from habit_check_ins where goal_id = ${goal.id}
        union select day from streak_freeze_uses where goal_id = ${goal.id}
      ) d
      where day between ${from}::date and ${to}::date
      group by 1 having count(*) >= ${requiredPerPeriod(goal)}
    ) q`;
  return row.n;
}

/** Sum of a target's events since `since` (the pace window). */
export async function sumSince(sql: Queryable, goalId: string, since: Date): Promise<number> {
  const [row] = await sql<{ v: number }[]>`
    select coalesce(sum(value), 0)::double precision as v from goal_events
    where goal_id = ${goalId} and occurred_at >= ${since}`;
  return row.v;
}

// Undo, edit and delete ---------------------------------------------------------------------

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

/** The zones users live in (the few distinct values of `users.time_zone`), for the reminders. */
export async function userTimeZones(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ timeZone: string }[]>`
    select distinct time_zone as "timeZone" from users
    where deletion_requested_at is null and erased_at is null`;
  return rows.map((r) => r.timeZone);
}

/**
 * One statement: the users living in these zones (with the zone's local date) who have an active
 * habit due that day, not checked in nor frozen that day, whose current streak is above zero, with
 * the titles of those habits. A daily habit is due every day and has a streak when the day before
 * is covered; a weekly one is due when skipping the day would miss its week (the check-ins still
 * needed are at least the days left, the day included) and has a streak when last week was met.
 */
export async function habitsAtRisk(
  sql: Queryable,
  zones: readonly { timeZone: string; date: string }[],
): Promise<{ userId: string; date: string; titles: string[] }[]> {
  if (zones.length === 0) return [];
  return await sql<{ userId: string; date: string; titles: string[] }[]>`
    with z as (
      select time_zone, day, day - (extract(isodow from day)::int - 1) as week_start
      from unnest(${zones.map((z) => z.timeZone)}::text[], ${zones.map((z) => z.date)}::date[])
        as z(time_zone, day)
    ), habits as (
      select u.id as user_id, z.day, z.week_start, g.id as goal_id, g.title, g.cadence,
             coalesce(g.times_per_week, 1) as required
      from z
      join users u on u.time_zone = z.time_zone
        and u.deletion_requested_at is null and u.erased_at is null
      join goals g on g.user_id = u.id and g.kind = 'habit' and g.status = 'active'
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
    select user_id::text as "userId", day::text as date, array_agg(title order by goal_id) as titles
    from at_risk group by user_id, day`;
}
