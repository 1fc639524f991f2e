/** Use cases of recording progress: `addGoalEvent`, `checkInHabit`, `useStreakFreeze`. */
import { refusableTransaction } from "../../../platform/db.ts";
import { localDate, periodIndexStart } from "../../../platform/dates.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import type { BadgeRow } from "../../badges/mod.ts";
import {
  checkInErrors,
  currentStreak,
  earnsFreeze,
  freezeErrors,
  goalEventInput,
  type GoalsError,
  goalsError,
  streakPeriod,
  targetReached,
  todayIndex,
} from "../rules.ts";
import * as store from "../store.ts";
import type { GoalEventRow, GoalRow } from "../store.ts";
import { recordCompletion } from "./completion.ts";
import { type Actor, award, type GoalsDeps, goneMeanwhile, noGoal, ownGoal } from "./shared.ts";

export interface AddGoalEventInput extends IdempotencyInput {
  goalId: string;
  value: number;
  note?: string | null;
  occurredAt?: Date | null;
}

export interface AddGoalEventPayload {
  event: GoalEventRow | null;
  goal: GoalRow | null;
  goalCompleted: boolean;
  badgesEarned: BadgeRow[];
  errors: GoalsError[];
}

export interface CheckInInput {
  goalId: string;
  date?: string | null;
}

export interface CheckInPayload {
  checkIn: { publicId: string; day: string; createdAt: Date } | null;
  goal: GoalRow | null;
  alreadyCheckedIn: boolean;
  freezeEarned: boolean;
  badgesEarned: BadgeRow[];
  errors: GoalsError[];
}

export interface UseStreakFreezePayload {
  goal: GoalRow | null;
  freezesLeft: number;
  /** A freeze covered the day already (a retry): nothing was spent. */
  alreadyCovered: boolean;
  errors: GoalsError[];
}

export async function addGoalEvent(
  deps: GoalsDeps,
  actor: Actor,
  input: AddGoalEventInput,
): Promise<AddGoalEventPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: GoalsError[]): AddGoalEventPayload => ({
    event: null,
    goal: null,
    goalCompleted: false,
    badgesEarned: [],
    errors,
  });
  const retry = await retrySafe(deps, "addGoalEvent", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  const goal = await ownGoal(deps, actor, input.goalId);
  if (!goal) return refused(noGoal());
  const { value, note, occurredAt, errors } = goalEventInput(goal, input, now());
  if (errors.length) return refused(errors);
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      retry.transaction(async (tx): Promise<AddGoalEventPayload> => {
        const event = await store.insertGoalEvent(tx, goal, value, note, occurredAt);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "goal_event",
          occurredAt,
          data: {
            goalId: goal.id,
            eventId: event.publicId,
            goalTitle: goal.title,
            value,
            unit: goal.unit,
            note,
          },
        });
        await deps.events.publish(tx, "goals.progress_recorded", {
          userId: goal.userId,
          goalId: goal.publicId,
          eventId: event.publicId,
          value,
          occurredAt: occurredAt.toISOString(),
        });
        // Points and scores before badges: the order undo takes them in (no lock cycle).
        await deps.activity.credit(tx, goal.userId, {
          kind: "goal_event",
          eventId: event.publicId,
          value,
          at: occurredAt,
        });
        const badgesEarned = await award(deps, tx, goal.userId, { type: "progress_recorded" });
        let current = goal;
        let goalCompleted = false;
        if (goal.status === "active" && targetReached(goal, await store.targetValueNow(tx, goal))) {
          const done = await store.completeGoal(tx, goal.id, now());
          if (done) {
            current = done;
            goalCompleted = true;
            badgesEarned.push(...await recordCompletion(deps, tx, done, now()));
          }
        }
        return { event, goal: current, goalCompleted, badgesEarned, errors: [] };
      }),
  );
}

export async function checkInHabit(
  deps: GoalsDeps,
  actor: Actor,
  input: CheckInInput,
): Promise<CheckInPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: GoalsError[]): CheckInPayload => ({
    checkIn: null,
    goal: null,
    alreadyCheckedIn: false,
    freezeEarned: false,
    badgesEarned: [],
    errors,
  });
  const goal = await ownGoal(deps, actor, input.goalId);
  const today = localDate(now(), actor.timeZone);
  const date = input.date ?? today;
  const errors = goal ? checkInErrors(goal, date, today) : noGoal();
  if (!goal || errors.length) return refused(errors);
  return await goneMeanwhile(
    refused(noGoal()),
    () =>
      deps.db.sql.begin(async (tx): Promise<CheckInPayload> => {
        const checkIn = await store.insertCheckIn(tx, goal, date);
        if (!checkIn) {
          return {
            checkIn: await store.checkInOn(tx, goal.id, date),
            goal,
            alreadyCheckedIn: true,
            freezeEarned: false,
            badgesEarned: [],
            errors: [],
          };
        }
        await deps.funnel.recordStep(tx, goal.userId, "first_check_in", now());
        const period = streakPeriod(goal);
        const [runs] = await store.streakRuns(tx, [goal.id], actor.timeZone);
        const streak = runs ? currentStreak(runs, todayIndex(today, period)) : 0;
        const freezeEarned = earnsFreeze(streak) &&
          await store.grantFreeze(tx, goal, periodIndexStart(runs!.lastIndex!, period), streak);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "check_in",
          occurredAt: now(),
          data: { goalId: goal.id, goalTitle: goal.title, date, streak },
        });
        await deps.events.publish(tx, "habits.checked_in", {
          userId: goal.userId,
          goalId: goal.publicId,
          checkInId: checkIn.publicId,
          date,
          streak,
          occurredAt: now().toISOString(),
        });
        await deps.activity.credit(tx, goal.userId, {
          kind: "check_in",
          checkInId: checkIn.publicId,
          goalId: goal.publicId,
          date,
          at: now(),
        });
        const badgesEarned = await award(deps, tx, goal.userId, {
          type: "habit_checked_in",
          streak,
          period,
        });
        return { checkIn, goal, alreadyCheckedIn: false, freezeEarned, badgesEarned, errors: [] };
      }),
  );
}

export async function useStreakFreeze(
  deps: GoalsDeps,
  actor: Actor,
  input: { goalId: string; date: string },
): Promise<UseStreakFreezePayload> {
  const sql = deps.db.sql;
  const goal = await ownGoal(deps, actor, input.goalId);
  const today = localDate(deps.clock.now(), actor.timeZone);
  const date = input.date;
  const balance = async () => (await store.freezeBalances(sql, [actor.userId]))[0]?.available ?? 0;
  const refused = async (errors: GoalsError[]): Promise<UseStreakFreezePayload> => ({
    goal: null,
    freezesLeft: await balance(),
    alreadyCovered: false,
    errors,
  });
  if (!goal) return await refused(noGoal());
  const problems = freezeErrors(goal, date, today, localDate(goal.createdAt, actor.timeZone));
  if (problems.length) return await refused(problems);
  const answer = await goneMeanwhile(
    { errors: noGoal(), alreadyCovered: false },
    () =>
      refusableTransaction(sql, async (tx) => {
        if (!(await store.insertFreezeUse(tx, goal, date))) {
          if (await store.freezeUsedOn(tx, goal.id, date)) {
            return { errors: [] as GoalsError[], alreadyCovered: true };
          }
          return {
            errors: [goalsError("invalid", "date was not missed: it is checked in", "date")],
            alreadyCovered: false,
          };
        }
        if (!(await store.spendFreeze(tx, actor.userId))) {
          return {
            errors: [goalsError("no_freezes_left", "no streak freezes left")],
            alreadyCovered: false,
          };
        }
        return { errors: [] as GoalsError[], alreadyCovered: false };
      }),
  );
  if (answer.errors.length) return await refused(answer.errors);
  return { goal, freezesLeft: await balance(), alreadyCovered: answer.alreadyCovered, errors: [] };
}
