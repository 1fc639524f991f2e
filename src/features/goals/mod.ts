/**
 * Goals, habits and progress: the goal GraphQL (goals, check-ins, streaks, freezes, progress
 * data, the feed's goal activities) and the named functions AI coaching reads goals through.
 */
import type { Queryable } from "../../platform/db.ts";
import { addDays, isoWeekStart, localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { Feature } from "../feature.ts";
import { currentStreak, type NewGoalInput, streakPeriod, todayIndex } from "./rules.ts";
import { goalsModule } from "./schema.ts";
import { addSubGoals, remindStreaksAtRisk } from "./service.ts";
import type { ActivityLedger, GoalsDeps } from "./service.ts";
import { goalChangesModule } from "./changes.ts";
import * as store from "./store.ts";
import type { BucketRow, GoalEventRow, GoalRow } from "./store.ts";
import { mergeModules } from "../../graphql/module.ts";
import { goalsPersonalData } from "./personal-data.ts";

export type { ActivityLedger, BucketRow, GoalEventRow, GoalRow, GoalsDeps };
export { remindStreaksAtRisk };

/** What one goal looks like now, in the owner's time zone. */
export interface GoalSnapshot {
  today: string;
  currentValue: number;
  streak: { current: number; longest: number };
  /** One bucket per local day of the last `days` days, today included. */
  days: BucketRow[];
  /** The latest progress events, newest first. */
  recentEvents: GoalEventRow[];
  subGoals: GoalRow[];
}

export interface GoalsApi {
  /** The user's goal with this public id; null for another user's, unknown or malformed one. */
  ownGoal(userId: string, publicId: unknown): Promise<GoalRow | null>;
  goalById(id: string): Promise<GoalRow | null>;
  snapshot(
    goal: GoalRow,
    timeZone: string,
    at: Date,
    recent: { days: number; events: number },
  ): Promise<GoalSnapshot>;
  /**
   * Creates sub-goals of `parent` inside the caller's transaction, publishing
   * `goals.goal_created` with `source` for each. The inputs must be valid (`newGoalErrors`).
   */
  addSubGoals(
    tx: Queryable,
    parent: GoalRow,
    inputs: NewGoalInput[],
    source: "ai_milestones",
    at: Date,
  ): Promise<GoalRow[]>;
  /**
   * Locks a check-in for share inside `tx` (by its public id, or by the goal's public id and the
   * day for events published without one): false when it was undone or deleted. A credit that
   * holds it finishes before an undo can delete it.
   */
  lockCheckIn(
    tx: Queryable,
    ref: { checkInId?: string | null; goalId: string; date: string },
  ): Promise<boolean>;
  /** Locks a progress event for share: its value and time now, or null when it was deleted. */
  lockGoalEvent(
    tx: Queryable,
    eventId: string,
  ): Promise<{ value: number; occurredAt: Date } | null>;
}

export function goalsFeature(deps: GoalsDeps): Feature<GoalsApi> {
  const sql = deps.db.sql;

  async function snapshot(
    goal: GoalRow,
    timeZone: string,
    at: Date,
    recent: { days: number; events: number },
  ): Promise<GoalSnapshot> {
    const today = localDate(at, timeZone);
    const [[figures], [runs], days, recentEvents, subGoals] = await Promise.all([
      store.goalFigures(sql, [goal.id], today, isoWeekStart(today), timeZone),
      store.streakRuns(sql, [goal.id], timeZone),
      store.progressBuckets(sql, goal, "day", addDays(today, 1 - recent.days), today, timeZone),
      store.eventsOf(sql, [goal.id], {
        limit: recent.events,
        after: null,
        before: null,
        backward: false,
      }),
      store.subGoalsOf(sql, [goal.id]),
    ]);
    const empty = { lastIndex: null, lastLength: 0, longest: 0 };
    return {
      today,
      currentValue: figures?.currentValue ?? 0,
      streak: {
        current: currentStreak(runs ?? empty, todayIndex(today, streakPeriod(goal))),
        longest: runs?.longest ?? 0,
      },
      days,
      recentEvents,
      subGoals,
    };
  }

  return {
    name: "goals",
    personalData: goalsPersonalData(deps.db.sql),
    graphql: mergeModules(goalsModule(deps), goalChangesModule(deps)),
    schedules: [{
      name: "goals.streak_at_risk",
      cron: "0 * * * *",
      run: async (slot) => {
        await remindStreaksAtRisk(deps, slot);
      },
    }],
    api: {
      ownGoal: async (userId, publicId) =>
        typeof publicId === "string" && looksLikePublicId(publicId)
          ? await store.ownGoal(sql, userId, publicId)
          : null,
      goalById: async (id) => (await store.goalsByIds(sql, [id]))[0] ?? null,
      snapshot,
      addSubGoals: (tx, parent, inputs, source, at) =>
        addSubGoals(deps, tx, parent, inputs, source, at),
      lockCheckIn: store.lockCheckIn,
      lockGoalEvent: store.lockGoalEvent,
    },
  };
}
