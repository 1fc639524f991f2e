/**
 * Goals, habits and progress: the goal GraphQL (goals, check-ins, streaks, freezes, progress
 * data, the feed's goal activities) and the named functions AI coaching reads goals through.
 */
import type { Queryable } from "../../platform/db.ts";
import { type Feature, handles } from "../feature.ts";
import type { NewGoalInput } from "./rules.ts";
import { goalsModule } from "./schema.ts";
import * as service from "./service.ts";
import type { GoalRow, GoalsDeps, GoalSnapshot } from "./service.ts";
import { goalChangesModule } from "./changes.ts";
import { goalNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { goalsPersonalData } from "./personal-data.ts";

export type {
  ActivityLedger,
  BucketRow,
  CheckInPayload,
  GoalEventRow,
  GoalRow,
  GoalsDeps,
  GoalSnapshot,
} from "./service.ts";
export { remindStreaksAtRisk } from "./service.ts";

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
  return {
    name: "goals",
    personalData: goalsPersonalData(deps.db.sql),
    graphql: mergeModules(goalsModule(deps), goalChangesModule(deps), goalNodesModule(deps)),
    jobs: [handles(service.reminderBatchJob, async (batch) => {
      await service.remindBatch(deps, batch);
    })],
    schedules: [{
      name: "goals.streak_at_risk",
      cron: "0 * * * *",
      run: (slot) => service.remindStreaksAtRisk(deps, slot),
    }],
    api: {
      ownGoal: (userId, publicId) => service.ownGoal(deps, { userId }, publicId),
      goalById: async (id) => (await service.goalsByIds(deps, [id]))[0] ?? null,
      snapshot: (goal, timeZone, at, recent) =>
        service.goalSnapshot(deps, goal, timeZone, at, recent),
      addSubGoals: (tx, parent, inputs, source, at) =>
        service.addSubGoals(deps, tx, parent, inputs, source, at),
      lockCheckIn: service.lockCheckIn,
      lockGoalEvent: service.lockGoalEvent,
    },
  };
}
