/**
 * Pure rules of changing what is recorded: goal patches, progress events, check-ins and freezes,
 * and undoing, editing and deleting them (docs/domain.md, "Undo, edit and delete").
 */
import { daysBetween, FUTURE_SKEW_MS, isDate } from "../../../platform/dates.ts";
import { type GoalsError, goalsError } from "./errors.ts";
import {
  BACKFILL_DAYS,
  cadenceErrors,
  canTransition,
  checkInDateError,
  DAY_MS,
  DESCRIPTION_MAX,
  dueDateError,
  EVENT_BACKDATE_DAYS,
  freezeDateError,
  type GoalShape,
  type GoalStatus,
  invalid,
  NOTE_MAX,
  problems,
  targetReached,
  textError,
  titleError,
  UNIT_MAX,
  valueError,
  type Visibility,
} from "./goal.ts";

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

/**
 * The checked patch of `updateGoal` for `goal`, or what is wrong with it (status transitions,
 * fields of the other kind, values, the due date as seen on the user's `today`).
 */
export function goalPatch(
  goal: GoalShape & { startValue: number | null; targetValue: number | null },
  changes: GoalChanges,
  today: string,
): { patch: GoalPatch; errors: GoalsError[] } {
  const errors: (GoalsError | null)[] = [];
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
): { value: number; note: string | null; occurredAt: Date; errors: GoalsError[] } {
  const errors: (GoalsError | null)[] = [];
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
    } else if (at.getTime() < now.getTime() - EVENT_BACKDATE_DAYS * DAY_MS) {
      errors.push(
        invalid("occurredAt", `occurredAt must be within the last ${EVENT_BACKDATE_DAYS} days`),
      );
    } else occurredAt = at;
  }
  return { value: input.value, note, occurredAt, errors: problems(errors) };
}

/** A `not_allowed` error of the goal named by `goalId`. */
function notAllowed(message: string): GoalsError {
  return goalsError("not_allowed", message, "goalId");
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
): GoalsError[] {
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
): GoalsError[] {
  const errors = problems([
    activeHabitError(goal, "streak freezes apply to habits only"),
    invalid("date", freezeDateError(date, today)),
  ]);
  if (!errors.length && date < startedOn) {
    errors.push(goalsError("invalid", "date is before the habit started", "date"));
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
 * An activity just recorded, as it is credited: a check-in when it was made, a progress event by
 * its value at the time it happened (`at`, which decides the challenges it counts in).
 */
export type RecordedActivity =
  | { kind: "check_in"; checkInId: string; goalId: string; date: string; at: Date }
  | { kind: "goal_event"; eventId: string; value: number; at: Date };

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
): GoalsError[] {
  if (goal.kind !== "habit") return [notAllowed("only habits have check-ins")];
  if (!isDate(date)) {
    return [goalsError("invalid", "date must be a date written YYYY-MM-DD", "date")];
  }
  if (date > today) return [goalsError("invalid", "date must not be in the future", "date")];
  if (daysBetween(date, today) > BACKFILL_DAYS) {
    return [goalsError(
      "undo_expired",
      `check-ins older than ${BACKFILL_DAYS} days are history and cannot be undone`,
      "date",
    )];
  }
  return [];
}

/** The earliest time a progress event may have and still be edited or deleted (as added). */
export function eventEditableSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_BACKDATE_DAYS * DAY_MS);
}

/**
 * Why the events of `goal` cannot be edited or deleted (empty = they can), and why `occurredAt`
 * is outside the window an event could be added in (`undo_expired` on `eventId`).
 */
export function eventChangeErrors(
  goal: Pick<GoalShape, "status">,
  occurredAt: Date,
  now: Date,
): GoalsError[] {
  if (goal.status === "archived") {
    return [goalsError("not_allowed", "the goal is archived; reactivate it first", "eventId")];
  }
  if (occurredAt < eventEditableSince(now)) {
    return [goalsError(
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
): { patch: GoalEventPatch; errors: GoalsError[] } {
  const errors: (GoalsError | null)[] = [];
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
    errors.push(goalsError("invalid", "nothing to change: give value, note or occurredAt"));
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
