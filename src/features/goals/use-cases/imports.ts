/**
 * Use cases of recorded history: `importCheckIns` and `importGoalEvents` take a habit's past
 * check-ins or a target's past progress events in one call, each item parsed by the same rules
 * as a check-in or an event recorded at the moment it happened, and write them in one
 * transaction. The demo loader uses them for a year of history.
 *
 * History is not live activity: no domain events go out (points and challenge scores are the
 * caller's to credit), the feed gets only the most recent items, and the badges are awarded once
 * for what the whole history reached.
 */
import { localDate } from "../../../platform/dates.ts";
import type { BadgeRow } from "../../badges/mod.ts";
import {
  checkInErrors,
  goalEventInput,
  type GoalsError,
  goalsError,
  IMPORTED_CHECK_INS_IN_FEED,
  IMPORTED_EVENTS_IN_FEED,
  streakPeriod,
} from "../rules.ts";
import * as store from "../store.ts";
import type { GoalEventRow, GoalRow } from "../store.ts";
import { type Actor, type GoalsDeps, goneMeanwhile, noGoal, ownGoal } from "./shared.ts";

type ImportDeps = Pick<GoalsDeps, "db" | "clock" | "badges" | "feed">;

export interface ImportCheckInsPayload {
  goal: GoalRow | null;
  /** Check-ins written; a day already checked in is left as it is. */
  imported: number;
  badgesEarned: BadgeRow[];
  errors: GoalsError[];
}

export interface ImportGoalEventsPayload {
  goal: GoalRow | null;
  events: GoalEventRow[];
  badgesEarned: BadgeRow[];
  errors: GoalsError[];
}

/** A day of history, as `checkInHabit` would have taken it on that day: the error, or null. */
function pastDayErrors(goal: GoalRow, day: string, today: string, index: number): GoalsError[] {
  const errors = day > today
    ? [goalsError("invalid", "date must not be in the future", `days.${index}`)]
    : checkInErrors(goal, day, day);
  return errors.map((e) => e.field === "date" ? { ...e, field: `days.${index}` } : e);
}

/**
 * Past check-ins of the actor's habit, each day valid as a check-in on that day and none after
 * today (in the actor's time zone); any invalid day refuses the whole import.
 */
export async function importCheckIns(
  deps: ImportDeps,
  actor: Actor,
  input: { goalId: string; days: readonly string[] },
): Promise<ImportCheckInsPayload> {
  const refused = (errors: GoalsError[]): ImportCheckInsPayload => ({
    goal: null,
    imported: 0,
    badgesEarned: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return refused(noGoal());
  const today = localDate(deps.clock.now(), actor.timeZone);
  const days = [...new Set(input.days)].sort();
  const errors = days.flatMap((day, i) => pastDayErrors(goal, day, today, i));
  if (errors.length) return refused(errors);
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      deps.db.sql.begin(async (tx): Promise<ImportCheckInsPayload> => {
        const imported = await store.insertCheckIns(tx, goal, days);
        if (!imported) return { goal, imported, badgesEarned: [], errors: [] };
        for (const day of days.slice(-IMPORTED_CHECK_INS_IN_FEED)) {
          await deps.feed.record(tx, {
            userId: goal.userId,
            kind: "check_in",
            occurredAt: pastMoment(day, deps.clock.now()),
            data: { goalId: goal.id, goalTitle: goal.title, date: day },
          });
        }
        const [runs] = await store.streakRuns(tx, [goal.id], actor.timeZone);
        const badgesEarned = await deps.badges.awardFor(tx, goal.userId, {
          type: "habit_checked_in",
          streak: runs?.longest ?? 1,
          period: streakPeriod(goal),
        }, pastMoment(days.at(-1)!, deps.clock.now()));
        return { goal, imported, badgesEarned, errors: [] };
      }),
  );
}

/**
 * Past progress events of the actor's target, each valid as `addGoalEvent` takes it at the
 * moment it happened, none in the future; any invalid event refuses the whole import. The goal
 * is not completed by an import.
 */
export async function importGoalEvents(
  deps: ImportDeps,
  actor: Actor,
  input: {
    goalId: string;
    events: readonly { value: number; note?: string | null; occurredAt: Date }[];
  },
): Promise<ImportGoalEventsPayload> {
  const refused = (errors: GoalsError[]): ImportGoalEventsPayload => ({
    goal: null,
    events: [],
    badgesEarned: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return refused(noGoal());
  const now = deps.clock.now();
  const parsed = input.events.map((e) => goalEventInput(goal, e, e.occurredAt));
  const errors = parsed.flatMap((p, i) => [
    ...p.errors.map((e) => e.field === "goalId" ? e : { ...e, field: `events.${i}.${e.field}` }),
    ...(p.occurredAt > now
      ? [goalsError("invalid", "occurredAt must not be in the future", `events.${i}.occurredAt`)]
      : []),
  ]);
  if (errors.length) return refused(errors);
  const fields = parsed.map(({ value, note, occurredAt }) => ({ value, note, occurredAt }))
    .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      deps.db.sql.begin(async (tx): Promise<ImportGoalEventsPayload> => {
        const events = await store.insertGoalEvents(tx, goal, fields);
        if (!events.length) return { goal, events, badgesEarned: [], errors: [] };
        for (const event of events.slice(-IMPORTED_EVENTS_IN_FEED)) {
          await deps.feed.record(tx, {
            userId: goal.userId,
            kind: "goal_event",
            occurredAt: event.occurredAt,
            data: {
              goalId: goal.id,
              eventId: event.publicId,
              goalTitle: goal.title,
              value: event.value,
              unit: goal.unit,
              note: event.note,
            },
          });
        }
        const badgesEarned = await deps.badges.awardFor(tx, goal.userId, {
          type: "progress_recorded",
        }, events[0].occurredAt);
        return { goal, events, badgesEarned, errors: [] };
      }),
  );
}

/** A local day's moment for stored times: noon UTC (that day in every time zone people use),
 * never later than `now`. */
function pastMoment(day: string, now: Date): Date {
  return new Date(Math.min(new Date(`${day}T12:00:00Z`).getTime(), now.getTime()));
}
