/**
 * Pure rules of a goal itself: limits and defaults, new goals' input and row, status transitions,
 * percent complete, streaks (in the user's time zone) and streak freezes.
 */
import { daysBetween, isDate, periodIndex } from "../../../platform/dates.ts";
import { type GoalsError, goalsError } from "./errors.ts";
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
/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

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
export function invalid(field: string, message: string | null): GoalsError | null {
  return message === null ? null : goalsError("invalid", message, field);
}

/** The first of `fields` that `input` sets (the argument an error names). */
function firstSet<K extends keyof NewGoalInput>(input: NewGoalInput, fields: K[]): K {
  return fields.find((f) => input[f] != null && input[f] !== "") ?? fields[0];
}

/** Problems with a new goal, as user errors naming their argument (empty = valid). */
export const problems = (errors: (GoalsError | null)[]) =>
  errors.filter((e): e is GoalsError => e !== null);

export function newGoalErrors(input: NewGoalInput, today: string): GoalsError[] {
  const errors: (GoalsError | null)[] = [
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
): GoalsError[] {
  const error = (message: string) => [goalsError("invalid", message, "timesPerWeek")];
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
