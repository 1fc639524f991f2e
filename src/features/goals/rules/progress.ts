/** Pure rules of progress data: bucket ranges, a target's pace, a habit's completion rate. */
import { addDays, daysBetween, isDate, isoWeekStart } from "../../../platform/dates.ts";
import { DAY_MS, type GoalShape, type GroupBy, PACE_WINDOW_DAYS, startValueOf } from "./goal.ts";

/** Rates and paces are reported with three decimals. */
const FIGURE_PRECISION = 1000;
/** A projected completion further away than this many days is not projected. */
const PROJECTION_MAX_DAYS = 365_000;
/** The last projected completion date reported (later ones are null). */
const LAST_PROJECTED_DATE = "2999-12-31";
const WEEK_MS = 7 * DAY_MS;

const rounded = (n: number) => Math.round(n * FIGURE_PRECISION) / FIGURE_PRECISION;

/** The first period of a progress bucket holding `date`. */
export function bucketStart(date: string, groupBy: GroupBy): string {
  if (groupBy === "day") return date;
  if (groupBy === "week") return isoWeekStart(date);
  return `${date.slice(0, 7)}-01`;
}

/** Most buckets one progress request may return. */
export const MAX_BUCKETS = 400;

/** The range of a progress request, defaulted: the last 30 days, 12 weeks or 12 months. */
export function progressRange(
  groupBy: GroupBy,
  today: string,
  from?: string | null,
  to?: string | null,
): { from: string; to: string } | { error: string } {
  if (from != null && !isDate(from)) return { error: "from must be a date written YYYY-MM-DD" };
  if (to != null && !isDate(to)) return { error: "to must be a date written YYYY-MM-DD" };
  const end = to ?? today;
  const defaultSpan = groupBy === "day" ? 29 : groupBy === "week" ? 7 * 11 : 366;
  const start = bucketStart(from ?? addDays(end, -defaultSpan), groupBy);
  if (start > end) return { error: "from must not be after to" };
  const days = daysBetween(start, end);
  const buckets = groupBy === "day" ? days + 1 : groupBy === "week" ? days / 7 + 1 : days / 28;
  if (buckets > MAX_BUCKETS) return { error: `the range may hold at most ${MAX_BUCKETS} buckets` };
  return { from: start, to: end };
}

export interface Pace {
  /** Change per day needed from today to reach the target on the due date; null without one. */
  requiredPerDay: number | null;
  /** Average change per day over the last 14 days. */
  actualPerDay: number;
  /** What is left to reach the target (in the target's direction, never negative). */
  remaining: number;
  /** Days from today to the due date (0 = due today, negative = overdue); null without one. */
  daysLeft: number | null;
  /** When the target is reached at the actual rate; null when the rate never gets there. */
  projectedCompletionDate: string | null;
  /** The actual rate meets the required one (or the target is already reached). */
  onTrack: boolean;
}

/** The pace of a target goal; null for habits. */
export function pace(
  goal: GoalShape,
  currentValue: number,
  recentSum: number,
  today: string,
): Pace | null {
  if (goal.kind !== "target" || goal.targetValue === null) return null;
  const direction = goal.targetValue >= startValueOf(goal) ? 1 : -1;
  const remaining = Math.max(0, (goal.targetValue - currentValue) * direction);
  const actual = recentSum / PACE_WINDOW_DAYS;
  const towards = actual * direction;
  const daysLeft = goal.dueDate ? daysBetween(today, goal.dueDate) : null;
  const required = daysLeft === null
    ? null
    : remaining === 0
    ? 0
    : (remaining / Math.max(1, daysLeft + 1)) * direction;
  const projected = remaining === 0
    ? today
    : towards > 0
    ? addDays(today, Math.min(Math.ceil(remaining / towards), PROJECTION_MAX_DAYS))
    : null;
  const onTrack = remaining === 0 ||
    (required !== null ? towards >= Math.abs(required) && daysLeft! >= 0 : towards > 0);
  return {
    requiredPerDay: required === null ? null : rounded(required),
    actualPerDay: rounded(actual),
    remaining: rounded(remaining),
    daysLeft,
    projectedCompletionDate: projected && projected <= LAST_PROJECTED_DATE ? projected : null,
    onTrack,
  };
}

/** The start of the pace window ending at `now`: the events since then make the recent rate. */
export function paceWindowStart(now: Date): Date {
  return new Date(now.getTime() - PACE_WINDOW_DAYS * DAY_MS);
}

/** The periods a habit's completion rate counts, and how many of them could have met it. */
export interface CompletionPeriods {
  start: string;
  end: string;
  possible: number;
}

/**
 * The days (ISO weeks for weekly habits) of [from, to] a habit's completion rate counts: from its
 * first day (in its owner's zone), up to today. Null when none.
 */
export function completionPeriods(
  goal: Pick<GoalShape, "cadence">,
  firstDay: string,
  from: string,
  to: string,
  today: string,
): CompletionPeriods | null {
  const weekly = goal.cadence === "weekly";
  const start = [from, weekly ? isoWeekStart(firstDay) : firstDay].sort().at(-1)!;
  const end = [to, today].sort()[0];
  if (start > end) return null;
  const possible = weekly
    ? Math.floor((Date.parse(isoWeekStart(end)) - Date.parse(isoWeekStart(start))) / WEEK_MS) + 1
    : (Date.parse(end) - Date.parse(start)) / DAY_MS + 1;
  return { start, end, possible };
}

/** Share (0..1, three decimals) of the possible periods that met the cadence. */
export function completionRate(met: number, possible: number): number {
  return rounded(Math.min(1, met / possible));
}

/** How many of an imported habit history's latest check-ins appear in the feed. */
export const IMPORTED_CHECK_INS_IN_FEED = 5;
/** How many of an imported target history's latest progress events appear in the feed. */
export const IMPORTED_EVENTS_IN_FEED = 3;
