/** Goal operations and fixtures shared by the tests that need goals, habits and progress. */
import type { TestSetup } from "./setup.ts";

export const GOAL_FIELDS = `id title description kind status visibility unit startValue
  targetValue dueDate cadence timesPerWeek currentValue percentComplete currentStreak
  longestStreak checkedInToday completedAt createdAt updatedAt`;

export const ADD_GOAL = `mutation Add($title: String!, $kind: GoalKind!, $description: String,
  $unit: String, $startValue: Float, $targetValue: Float, $dueDate: String,
  $cadence: HabitCadence, $timesPerWeek: Int, $visibility: GoalVisibility,
  $parentGoalId: String) {
  addGoal(title: $title, kind: $kind, description: $description, unit: $unit,
    startValue: $startValue, targetValue: $targetValue, dueDate: $dueDate, cadence: $cadence,
    timesPerWeek: $timesPerWeek, visibility: $visibility, parentGoalId: $parentGoalId) {
    goal { ${GOAL_FIELDS} }
    badgesEarned { code }
    errors
  }
}`;

export const CHECK_IN = `mutation C($goalId: String!, $date: String) {
  checkInHabit(goalId: $goalId, date: $date) {
    checkIn { id date } goal { id currentStreak longestStreak checkedInToday }
    alreadyCheckedIn freezeEarned badgesEarned { code } errors
  }
}`;

export const ADD_EVENT = `mutation E($goalId: String!, $value: Float!, $note: String,
  $occurredAt: String) {
  addGoalEvent(goalId: $goalId, value: $value, note: $note, occurredAt: $occurredAt) {
    event { id value note occurredAt } goal { id status currentValue percentComplete }
    goalCompleted badgesEarned { code } errors
  }
}`;

/** Adds a goal as `as` (default the setup's user) and returns it (fails on errors). */
export async function addGoal(
  s: TestSetup,
  vars: Record<string, unknown>,
  as?: string,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = (await s.data(ADD_GOAL, vars, as)).addGoal;
  if (res.errors.length) throw new Error(`addGoal failed: ${res.errors.join("; ")}`);
  return res.goal;
}

export const DAY_MS = 86_400_000;
