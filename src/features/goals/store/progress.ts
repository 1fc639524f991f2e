/** SQL of progress data: buckets (generate_series), qualifying periods, the pace window's sum. */
import { type Queryable } from "../../../platform/db.ts";
import type { GroupBy } from "../rules.ts";
import { requiredPerPeriod, startValueOf } from "../rules.ts";
import { type GoalRow } from "./goals.ts";

export interface BucketRow {
  periodStart: string;
  sum: number;
  count: number;
  cumulativeValue: number;
  /** Days of the period a streak freeze covers (habits; always 0 for targets). */
  frozenDays: number;
}

const intervalOf = (groupBy: GroupBy) =>
  groupBy === "day" ? "1 day" : groupBy === "week" ? "1 week" : "1 month";

/**
 * Progress buckets from `from` (a bucket start) to `to`, zero-filled. Targets bucket their
 * events by the local time of `occurred_at`; habits bucket check-ins (value 1 each) and count the
 * days streak freezes cover. The cumulative value includes everything before `from` (and a
 * target's start value).
 */
export async function progressBuckets(
  sql: Queryable,
  goal: GoalRow,
  groupBy: GroupBy,
  from: string,
  to: string,
  timeZone: string,
): Promise<BucketRow[]> {
  return await progressBucketsStatement(sql, goal, groupBy, from, to, timeZone);
}

/** The statement of {@link progressBuckets}, not yet sent (a test reads its plan). */
export function progressBucketsStatement(
  sql: Queryable,
  goal: GoalRow,
  groupBy: GroupBy,
  from: string,
  to: string,
  timeZone: string,
) {
  const interval = intervalOf(groupBy);
  // Each bucket reads its own index range ([start, next start) in local time, the last one cut
  // at the end of `to`): no per-row time zone conversion, no hashing of every event.
  const bucket = goal.kind === "target"
    ? sql`select sum(value) as s, count(*)::int as n from goal_events
          where goal_id = ${goal.id} and occurred_at >= (b.p at time zone ${timeZone})
            and occurred_at < (b.next at time zone ${timeZone})`
    : sql`select count(*)::double precision as s, count(*)::int as n from habit_check_ins
          where goal_id = ${goal.id} and day >= b.p::date and day < b.next::date`;
  const frozen = goal.kind === "target"
    ? sql`select 0 as f`
    : sql`select count(*)::int as f from streak_freeze_uses
          where goal_id = ${goal.id} and day >= b.p::date and day < b.next::date`;
  // Everything before `from`, read from the running totals of migration 0037: the last total of
  // an earlier day, plus (targets) the events of `from`'s UTC day up to it.
  const start = sql`(${from}::timestamp at time zone ${timeZone})`;
  const before = goal.kind === "target"
    ? sql`select ${startValueOf(goal)}::double precision
          + coalesce((select value_through from goal_progress_days
              where goal_id = ${goal.id} and day < (${start} at time zone 'UTC')::date
              order by day desc limit 1), 0)::double precision
          + coalesce((select sum(value) from goal_events where goal_id = ${goal.id}
              and occurred_at >= date_trunc('day', ${start}, 'UTC') and occurred_at < ${start}), 0)`
    : sql`select coalesce((select check_ins_through from goal_progress_days
            where goal_id = ${goal.id} and day < ${from}::date
            order by day desc limit 1), 0)::double precision`;
  return sql<BucketRow[]>`
    with b as (
      select p, least(p + ${interval}::interval, (${to}::date + 1)::timestamp) as next
      from generate_series(${from}::timestamp, ${to}::timestamp, ${interval}::interval) p
    )
    select b.p::date::text as "periodStart", coalesce(a.s, 0)::double precision as sum,
           a.n as count,
           ((${before}) + sum(coalesce(a.s, 0)) over (order by b.p))::double precision
             as "cumulativeValue",
           z.f as "frozenDays"
    from b cross join lateral (${bucket}) a cross join lateral (${frozen}) z
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
