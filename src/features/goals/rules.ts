/**
 * Pure rules for goals, habits and progress: input validation, status transitions, percent
 * complete, streaks (in the user's time zone), streak freezes and pace. No database here; see
 * docs/domain.md for the reasoning behind each rule.
 */
import {
  addDays,
  daysBetween,
  FUTURE_SKEW_MS,
  isDate,
  isoWeekStart,
  localDate,
  periodIndex,
} from "../../platform/dates.ts";
import { type UserError, userError } from "../../platform/user-error.ts";

export const TITLE_MAX = 120;
export const DESCRIPTION_MAX = 2000;
export const UNIT_MAX = 20;
export const NOTE_MAX = 500;
export const VALUE_LIMIT = 1_000_000_000;
/** A check-in may be recorded for today or up to this many days back. */
export const BACKFILL_DAYS = 7;
/** A freeze may cover a missed day up to this many days back (yesterday = 1). */
export const FREEZE_WINDOW_DAYS = 7;
/** A freeze is earned each time a habit's streak reaches a multiple of this many periods. */
export const FREEZE_EARN_EVERY = 7;
/** Freezes held at most. */
export const FREEZE_CAP = 3;
/** Progress events may be dated up to this many days back. */
export const EVENT_BACKDATE_DAYS = 366;
/** Days of events that make up the "recent rate" of the pace. */
export const PACE_WINDOW_DAYS = 14;
/** What a target counts from when it names no start value. */
export const DEFAULT_START_VALUE = 0;
/** How often a habit is due when it names no cadence. */
export const DEFAULT_CADENCE = "daily";
/** Who sees a new goal when it does not say. */
export const DEFAULT_VISIBILITY = "private";
/** Rates and paces are reported with three decimals. */
const FIGURE_PRECISION = 1000;
/** A projected completion further away than this many days is not projected. */
const PROJECTION_MAX_DAYS = 365_000;
/** The last projected completion date reported (later ones are null). */
const LAST_PROJECTED_DATE = "2999-12-31";
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

const rounded = (n: number) => Math.round(n * FIGURE_PRECISION) / FIGURE_PRECISION;

export type GoalKind = "habit" | "target";
export type GoalStatus = "active" | "completed" | "archived";
export type Visibility = "private" | "public";
export type Cadence = "daily" | "weekly";
export type GroupBy = "day" | "week" | "month";

/** The fields of a goal the rules look at. */
export interface GoalShape {
  kind: GoalKind;
  status: GoalStatus;
  unit: string | null;
  startValue: number | null;
  targetValue: number | null;
  dueDate: string | null;
  cadence: Cadence | null;
  timesPerWeek: number | null;
}

export interface NewGoalInput {
  title: string;
  description?: string | null;
  kind: GoalKind;
  unit?: string | null;
  startValue?: number | null;
  targetValue?: number | null;
  dueDate?: string | null;
  cadence?: Cadence | null;
  timesPerWeek?: number | null;
}

/** A goal's row as it is stored: text trimmed, the kind's defaults filled in. */
export interface NewGoalRow {
  parentId: string | null;
  title: string;
  description: string | null;
  kind: GoalKind;
  unit: string | null;
  startValue: number | null;
  targetValue: number | null;
  dueDate: string | null;
  cadence: Cadence | null;
  timesPerWeek: number | null;
  visibility: Visibility;
}

/**
 * The row of a new goal from valid input (`newGoalErrors`): text trimmed (empty = none), a
 * target's start value defaulted, a habit's cadence defaulted, timesPerWeek kept for weekly
 * habits only.
 */
export function newGoalRow(
  input: NewGoalInput & { parentId: string | null; visibility: Visibility },
): NewGoalRow {
  const habit = input.kind === "habit";
  const cadence = habit ? input.cadence ?? DEFAULT_CADENCE : null;
  return {
    parentId: input.parentId,
    title: input.title.trim(),
    description: input.description?.trim() || null,
    kind: input.kind,
    unit: input.unit?.trim() || null,
    startValue: habit ? null : input.startValue ?? DEFAULT_START_VALUE,
    targetValue: input.targetValue ?? null,
    dueDate: input.dueDate ?? null,
    cadence,
    timesPerWeek: cadence === "weekly" ? input.timesPerWeek ?? null : null,
    visibility: input.visibility,
  };
}

/** What a target's values count from. */
export const startValueOf = (goal: Pick<GoalShape, "startValue">): number =>
  goal.startValue ?? DEFAULT_START_VALUE;

const finite = (v: number) => Number.isFinite(v) && Math.abs(v) <= VALUE_LIMIT;

export function titleError(title: string): string | null {
  const t = title.trim();
  if (!t) return "title must not be empty";
  if (t.length > TITLE_MAX) return `title must be at most ${TITLE_MAX} characters`;
  return null;
}

export function textError(field: string, value: string | null | undefined, max: number) {
  return value && value.length > max ? `${field} must be at most ${max} characters` : null;
}

export function valueError(field: string, value: number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return finite(value) ? null : `${field} must be a number between -1e9 and 1e9`;
}

export function dueDateError(dueDate: string | null | undefined, today: string): string | null {
  if (dueDate === null || dueDate === undefined) return null;
  if (!isDate(dueDate)) return "dueDate must be a date written YYYY-MM-DD";
  if (dueDate < today) return "dueDate must not be in the past";
  return null;
}

/** An `invalid` user error of `field`, or null without a message. */
export function invalid(field: string, message: string | null): UserError | null {
  return message === null ? null : userError("invalid", message, field);
}

/** The first of `fields` that `input` sets (the argument an error names). */
function firstSet<K extends keyof NewGoalInput>(input: NewGoalInput, fields: K[]): K {
  return fields.find((f) => input[f] != null && input[f] !== "") ?? fields[0];
}

/** Problems with a new goal, as user errors naming their argument (empty = valid). */
export function newGoalErrors(input: NewGoalInput, today: string): UserError[] {
  const errors: (UserError | null)[] = [
    invalid("title", titleError(input.title)),
    invalid("description", textError("description", input.description, DESCRIPTION_MAX)),
    invalid("unit", textError("unit", input.unit, UNIT_MAX)),
    invalid("startValue", valueError("startValue", input.startValue)),
    invalid("targetValue", valueError("targetValue", input.targetValue)),
    invalid("dueDate", dueDateError(input.dueDate, today)),
  ];
  if (input.kind === "target") {
    if (input.targetValue === null || input.targetValue === undefined) {
      errors.push(invalid("targetValue", "targetValue is required for a target goal"));
    } else if ((input.startValue ?? 0) === input.targetValue) {
      errors.push(invalid("targetValue", "targetValue must differ from startValue"));
    }
    if (input.cadence || input.timesPerWeek != null) {
      errors.push(
        invalid(
          firstSet(input, ["cadence", "timesPerWeek"]),
          "cadence and timesPerWeek apply to habits only",
        ),
      );
    }
  } else {
    if (input.targetValue != null || input.startValue != null || input.unit) {
      errors.push(
        invalid(
          firstSet(input, ["unit", "startValue", "targetValue"]),
          "unit, startValue and targetValue apply to targets only",
        ),
      );
    }
    errors.push(...cadenceErrors(input.cadence ?? "daily", input.timesPerWeek));
  }
  return problems(errors);
}

export function cadenceErrors(
  cadence: Cadence,
  timesPerWeek: number | null | undefined,
): UserError[] {
  const error = (message: string) => [userError("invalid", message, "timesPerWeek")];
  if (cadence === "daily") {
    return timesPerWeek != null ? error("timesPerWeek applies to weekly habits only") : [];
  }
  if (timesPerWeek == null) return error("timesPerWeek is required for a weekly habit");
  if (!Number.isInteger(timesPerWeek) || timesPerWeek < 1 || timesPerWeek > 7) {
    return error("timesPerWeek must be between 1 and 7");
  }
  return [];
}

/** Status changes a goal may make (same status = no change). */
const TRANSITIONS: Record<GoalStatus, GoalStatus[]> = {
  active: ["completed", "archived"],
  completed: ["active", "archived"],
  archived: ["active"],
};

export function canTransition(from: GoalStatus, to: GoalStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** The statuses from which a goal may move to `to` (the guard of the update statement). */
export function statusesLeadingTo(to: GoalStatus): GoalStatus[] {
  return (Object.keys(TRANSITIONS) as GoalStatus[]).filter((from) => canTransition(from, to));
}

/** Required check-ins per period: 1 a day, or `timesPerWeek` an ISO week. */
export function requiredPerPeriod(goal: Pick<GoalShape, "cadence" | "timesPerWeek">): number {
  return goal.cadence === "weekly" ? goal.timesPerWeek ?? 1 : 1;
}

export function streakPeriod(goal: Pick<GoalShape, "kind" | "cadence">): "day" | "week" {
  return goal.kind === "habit" && goal.cadence === "weekly" ? "week" : "day";
}

/**
 * Percent complete, 0..100. Targets: the share of the way from start to target (either
 * direction, so a weight-loss goal works). Habits: the share of the current period's required
 * check-ins (today for daily habits, this ISO week for weekly ones).
 */
export function percentComplete(goal: GoalShape, currentValue: number): number {
  let ratio: number;
  if (goal.kind === "target") {
    const start = goal.startValue ?? 0;
    const span = (goal.targetValue ?? start) - start;
    ratio = span === 0 ? 1 : (currentValue - start) / span;
  } else {
    ratio = currentValue / requiredPerPeriod(goal);
  }
  const pct = Math.min(1, Math.max(0, ratio)) * 100;
  return Math.round(pct * 10) / 10;
}

/** True when `value` has reached the target, in the target's direction. */
export function targetReached(goal: GoalShape, value: number): boolean {
  if (goal.kind !== "target" || goal.targetValue === null) return false;
  const start = goal.startValue ?? 0;
  return goal.targetValue >= start ? value >= goal.targetValue : value <= goal.targetValue;
}

/** The latest run of consecutive qualifying periods and the longest one, as SQL reports them. */
export interface StreakRuns {
  /** Period index (see `periodIndex`) of the last period of the latest run; null = none. */
  lastIndex: number | null;
  lastLength: number;
  longest: number;
}

/**
 * The current streak: the latest run counts while it ends in the current period or the one
 * before (today not yet checked in does not break it).
 */
export function currentStreak(runs: StreakRuns, todayIndex: number): number {
  if (runs.lastIndex === null) return 0;
  return runs.lastIndex >= todayIndex - 1 ? runs.lastLength : 0;
}

export function todayIndex(today: string, period: "day" | "week"): number {
  return periodIndex(today, period);
}

/** Why a check-in for `date` is refused, or null. */
export function checkInDateError(date: string, today: string): string | null {
  if (!isDate(date)) return "date must be a date written YYYY-MM-DD";
  if (date > today) return "date must not be in the future";
  if (daysBetween(date, today) > BACKFILL_DAYS) {
    return `date must be within the last ${BACKFILL_DAYS} days`;
  }
  return null;
}

/** Why a streak freeze for `date` is refused before looking at check-ins, or null. */
export function freezeDateError(date: string, today: string): string | null {
  if (!isDate(date)) return "date must be a date written YYYY-MM-DD";
  if (date >= today) return "date must be a past day: only a missed day can be covered";
  if (daysBetween(date, today) > FREEZE_WINDOW_DAYS) {
    return `date must be within the last ${FREEZE_WINDOW_DAYS} days`;
  }
  return null;
}

/** True when a streak of `streak` periods earns a freeze (each multiple of 7). */
export function earnsFreeze(streak: number): boolean {
  return streak > 0 && streak % FREEZE_EARN_EVERY === 0;
}

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

/** A change of a goal's fields (absent = unchanged; `null` clears where allowed). */
export interface GoalPatch {
  title?: string;
  description?: string | null;
  status?: GoalStatus;
  visibility?: Visibility;
  unit?: string | null;
  startValue?: number;
  targetValue?: number;
  dueDate?: string | null;
  timesPerWeek?: number;
}

/** `updateGoal`'s arguments as the client sent them (absent = unchanged). */
export interface GoalChanges {
  title?: string | null;
  description?: string | null;
  status?: GoalStatus | null;
  visibility?: Visibility | null;
  unit?: string | null;
  startValue?: number | null;
  targetValue?: number | null;
  dueDate?: string | null;
  timesPerWeek?: number | null;
}

const problems = (errors: (UserError | null)[]) => errors.filter((e): e is UserError => e !== null);

/**
 * The checked patch of `updateGoal` for `goal`, or what is wrong with it (status transitions,
 * fields of the other kind, values, the due date as seen on the user's `today`).
 */
export function goalPatch(
  goal: GoalShape & { startValue: number | null; targetValue: number | null },
  changes: GoalChanges,
  today: string,
): { patch: GoalPatch; errors: UserError[] } {
  const errors: (UserError | null)[] = [];
  const patch: GoalPatch = {};
  if (changes.title !== undefined) {
    errors.push(invalid("title", titleError(changes.title ?? "")));
    patch.title = (changes.title ?? "").trim();
  }
  if (changes.description !== undefined) {
    errors.push(
      invalid("description", textError("description", changes.description, DESCRIPTION_MAX)),
    );
    patch.description = changes.description?.trim() || null;
  }
  if (changes.visibility != null) patch.visibility = changes.visibility;
  if (changes.status != null) {
    const to = changes.status;
    if (!canTransition(goal.status, to)) {
      errors.push(invalid("status", `a goal cannot go from ${goal.status} to ${to}`));
    }
    patch.status = to;
  }
  const targetOnly = (["unit", "startValue", "targetValue"] as const).filter((k) =>
    changes[k] != null
  );
  if (goal.kind === "habit" && targetOnly.length) {
    errors.push(invalid(targetOnly[0], "unit, startValue and targetValue apply to targets only"));
  }
  if (changes.unit !== undefined) {
    errors.push(invalid("unit", textError("unit", changes.unit, UNIT_MAX)));
    patch.unit = changes.unit?.trim() || null;
  }
  for (const key of ["startValue", "targetValue"] as const) {
    const value = changes[key];
    if (value === null) errors.push(invalid(key, `${key} cannot be cleared`));
    else if (value !== undefined) {
      errors.push(invalid(key, valueError(key, value)));
      patch[key] = value;
    }
  }
  if (
    goal.kind === "target" &&
    (patch.startValue ?? goal.startValue ?? 0) === (patch.targetValue ?? goal.targetValue)
  ) {
    errors.push(
      invalid(
        changes.startValue != null ? "startValue" : "targetValue",
        "targetValue must differ from startValue",
      ),
    );
  }
  if (changes.dueDate !== undefined) {
    const due = changes.dueDate;
    errors.push(due === goal.dueDate ? null : invalid("dueDate", dueDateError(due, today)));
    patch.dueDate = due;
  }
  if (changes.timesPerWeek != null) {
    if (goal.cadence !== "weekly") {
      errors.push(invalid("timesPerWeek", "timesPerWeek applies to weekly habits only"));
    } else errors.push(...cadenceErrors("weekly", changes.timesPerWeek));
    patch.timesPerWeek = changes.timesPerWeek;
  }
  return { patch, errors: problems(errors) };
}

/** A checked progress event of `addGoalEvent`, or what is wrong with it. */
export function goalEventInput(
  goal: Pick<GoalShape, "kind" | "status">,
  input: { value: number; note?: string | null; occurredAt?: Date | null },
  now: Date,
): { value: number; note: string | null; occurredAt: Date; errors: UserError[] } {
  const errors: (UserError | null)[] = [];
  if (goal.kind !== "target") {
    errors.push(notAllowed("habits record progress with checkInHabit"));
  }
  if (goal.status === "archived") errors.push(notAllowed("the goal is archived"));
  errors.push(invalid("value", valueError("value", input.value)));
  if (input.value === 0) errors.push(invalid("value", "value must not be 0"));
  const note = input.note?.trim() || null;
  errors.push(invalid("note", textError("note", note, NOTE_MAX)));
  let occurredAt = now;
  if (input.occurredAt != null) {
    const at = input.occurredAt;
    if (at.getTime() > now.getTime() + FUTURE_SKEW_MS) {
      errors.push(invalid("occurredAt", "occurredAt must not be in the future"));
    } else if (at.getTime() < now.getTime() - EVENT_BACKDATE_DAYS * 86_400_000) {
      errors.push(
        invalid("occurredAt", `occurredAt must be within the last ${EVENT_BACKDATE_DAYS} days`),
      );
    } else occurredAt = at;
  }
  return { value: input.value, note, occurredAt, errors: problems(errors) };
}

/** A `not_allowed` error of the goal named by `goalId`. */
function notAllowed(message: string): UserError {
  return userError("not_allowed", message, "goalId");
}

/** Why `goal` is not an active habit (`notHabit` when it is a target), or null. */
function activeHabitError(goal: Pick<GoalShape, "kind" | "status">, notHabit: string) {
  if (goal.kind !== "habit") return notAllowed(notHabit);
  return goal.status === "active" ? null : notAllowed(`the habit is ${goal.status}`);
}

/** Why a check-in of `goal` for `date` is refused (empty = allowed). */
export function checkInErrors(
  goal: Pick<GoalShape, "kind" | "status">,
  date: string,
  today: string,
): UserError[] {
  return problems([
    activeHabitError(goal, "only habits take check-ins; use addGoalEvent"),
    invalid("date", checkInDateError(date, today)),
  ]);
}

/**
 * Why a streak freeze of `goal` for `date` is refused before looking at check-ins (empty =
 * allowed); `startedOn` is the habit's first local day.
 */
export function freezeErrors(
  goal: Pick<GoalShape, "kind" | "status">,
  date: string,
  today: string,
  startedOn: string,
): UserError[] {
  const errors = problems([
    activeHabitError(goal, "streak freezes apply to habits only"),
    invalid("date", freezeDateError(date, today)),
  ]);
  if (!errors.length && date < startedOn) {
    errors.push(userError("invalid", "date is before the habit started", "date"));
  }
  return errors;
}

// Undo, edit and delete ---------------------------------------------------------------------

/** An activity that points and challenge scores are credited for (challenges count them). */
export type ActivityRef =
  | {
    kind: "check_in";
    /** Absent on events published before check-ins carried their id. */
    checkInId?: string | null;
    /** The goal's public id and the local day checked in. */
    goalId: string;
    date: string;
  }
  | { kind: "goal_event"; eventId: string };

/**
 * Why undoing the check-in of `goal` on `date` is refused before looking for it (empty = allowed).
 * A check-in can be undone while its day is one `checkInHabit` could still record (the last
 * {@link BACKFILL_DAYS} days, today included): what one can add, one can take back; older days are
 * history (`undo_expired`).
 */
export function undoCheckInErrors(
  goal: Pick<GoalShape, "kind">,
  date: string,
  today: string,
): UserError[] {
  if (goal.kind !== "habit") return [notAllowed("only habits have check-ins")];
  if (!isDate(date)) {
    return [userError("invalid", "date must be a date written YYYY-MM-DD", "date")];
  }
  if (date > today) return [userError("invalid", "date must not be in the future", "date")];
  if (daysBetween(date, today) > BACKFILL_DAYS) {
    return [userError(
      "undo_expired",
      `check-ins older than ${BACKFILL_DAYS} days are history and cannot be undone`,
      "date",
    )];
  }
  return [];
}

/** The earliest time a progress event may have and still be edited or deleted (as added). */
export function eventEditableSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_BACKDATE_DAYS * 86_400_000);
}

/**
 * Why the events of `goal` cannot be edited or deleted (empty = they can), and why `occurredAt`
 * is outside the window an event could be added in (`undo_expired` on `eventId`).
 */
export function eventChangeErrors(
  goal: Pick<GoalShape, "status">,
  occurredAt: Date,
  now: Date,
): UserError[] {
  if (goal.status === "archived") {
    return [userError("not_allowed", "the goal is archived; reactivate it first", "eventId")];
  }
  if (occurredAt < eventEditableSince(now)) {
    return [userError(
      "undo_expired",
      `events older than ${EVENT_BACKDATE_DAYS} days are history and cannot be changed`,
      "eventId",
    )];
  }
  return [];
}

/** `updateGoalEvent`'s changes (absent = unchanged; a null or empty note clears it). */
export interface GoalEventChanges {
  value?: number | null;
  note?: string | null;
  occurredAt?: Date | null;
}

export interface GoalEventPatch {
  value?: number;
  /** Present: the new note (null clears it). */
  note?: string | null;
  occurredAt?: Date;
}

/** The checked patch of `updateGoalEvent`, with the limits of `addGoalEvent`. */
export function goalEventPatch(
  changes: GoalEventChanges,
  now: Date,
): { patch: GoalEventPatch; errors: UserError[] } {
  const errors: (UserError | null)[] = [];
  const patch: GoalEventPatch = {};
  if (changes.value === null) errors.push(invalid("value", "value cannot be cleared"));
  else if (changes.value !== undefined) {
    errors.push(invalid("value", valueError("value", changes.value)));
    if (changes.value === 0) errors.push(invalid("value", "value must not be 0"));
    patch.value = changes.value;
  }
  if (changes.note !== undefined) {
    patch.note = changes.note?.trim() || null;
    errors.push(invalid("note", textError("note", patch.note, NOTE_MAX)));
  }
  if (changes.occurredAt === null) {
    errors.push(invalid("occurredAt", "occurredAt cannot be cleared"));
  } else if (changes.occurredAt !== undefined) {
    const at = changes.occurredAt;
    if (at.getTime() > now.getTime() + FUTURE_SKEW_MS) {
      errors.push(invalid("occurredAt", "occurredAt must not be in the future"));
    } else if (at < eventEditableSince(now)) {
      errors.push(
        invalid("occurredAt", `occurredAt must be within the last ${EVENT_BACKDATE_DAYS} days`),
      );
    }
    patch.occurredAt = at;
  }
  if (!Object.keys(patch).length && !errors.length) {
    errors.push(userError("invalid", "nothing to change: give value, note or occurredAt"));
  }
  return { patch, errors: problems(errors) };
}

/**
 * What a change of a target's value (an event edited or deleted) does to its status: `complete`
 * when an active target now reaches its value (as `addGoalEvent` does), `reopen` when a completed
 * target reached it before the change and no longer does (the change undid the completion; a
 * target completed by hand below its value stays completed), else null.
 */
export function statusAfterValueChange(
  goal: GoalShape,
  before: number,
  after: number,
): "complete" | "reopen" | null {
  if (goal.kind !== "target") return null;
  if (goal.status === "active" && targetReached(goal, after)) return "complete";
  if (goal.status === "completed" && targetReached(goal, before) && !targetReached(goal, after)) {
    return "reopen";
  }
  return null;
}

/** The local hour (0-23) in which `streak.at_risk` is sent: 20:00-20:59 in the user's zone. */
export const STREAK_REMINDER_HOUR = 20;

/** Habit titles named in one `streak.at_risk` notification before "and N more". */
const REMINDER_TITLES = 3;

/** One formatter per zone, reading the wall-clock hour (00-23). */
const hourFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock hour (0-23) of `instant` in the IANA zone `timeZone`. */
export function localHour(instant: Date, timeZone: string): number {
  let f = hourFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hour: "2-digit", hourCycle: "h23" });
    if (hourFormatters.size >= 1000) hourFormatters.clear();
    hourFormatters.set(timeZone, f);
  }
  return Number(f.formatToParts(instant).find((p) => p.type === "hour")?.value);
}

/**
 * The zones among `zones` whose local time at `now` is in the reminder hour, each with its local
 * date; zones the runtime does not know are skipped.
 */
export function streakReminderZones(
  now: Date,
  zones: readonly string[],
): { timeZone: string; date: string }[] {
  const found: { timeZone: string; date: string }[] = [];
  for (const timeZone of zones) {
    try {
      if (localHour(now, timeZone) === STREAK_REMINDER_HOUR) {
        found.push({ timeZone, date: localDate(now, timeZone) });
      }
    } catch {
      // An unknown zone reminds no one rather than stopping the run for every other zone.
    }
  }
  return found;
}

/** The once-a-day key of a user's `streak.at_risk` (internal user id, local date). */
export const streakAtRiskKey = (userId: string, date: string) => `streak.at_risk:${userId}:${date}`;

/** The text of `streak.at_risk`, naming the habits at risk (the first few of them). */
export function streakAtRiskNotice(titles: readonly string[]): string {
  const named = titles.slice(0, REMINDER_TITLES).map((t) => `"${t}"`);
  const more = titles.length - named.length;
  const list = more > 0
    ? `${named.join(", ")} and ${more} more`
    : named.length > 1
    ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`
    : named[0];
  const streaks = titles.length > 1 ? "streaks" : "streak";
  return `Your ${streaks} on ${list} ${
    titles.length > 1 ? "are" : "is"
  } at risk: check in before the day ends.`;
}
