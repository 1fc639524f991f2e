/** Goal operations and fixtures shared by the tests that need goals, habits and progress. */
import { USER_ERRORS } from "./graphql.ts";
import type { TestSetup } from "./setup.ts";

export const GOAL_FIELDS = `id title description kind status visibility unit startValue
  targetValue dueDate cadence timesPerWeek currentValue percentComplete currentStreak
  longestStreak checkedInToday completedAt createdAt updatedAt`;

export const ADD_GOAL = `mutation Add($title: String!, $kind: GoalKind!, $description: String,
  $unit: String, $startValue: Float, $targetValue: Float, $dueDate: Date,
  $cadence: HabitCadence, $timesPerWeek: Int, $visibility: GoalVisibility,
  $parentGoalId: String) {
  addGoal(title: $title, kind: $kind, description: $description, unit: $unit,
    startValue: $startValue, targetValue: $targetValue, dueDate: $dueDate, cadence: $cadence,
    timesPerWeek: $timesPerWeek, visibility: $visibility, parentGoalId: $parentGoalId) {
    goal { ${GOAL_FIELDS} }
    badgesEarned { code }
    ${USER_ERRORS}
  }
}`;

export const CHECK_IN = `mutation C($goalId: String!, $date: Date) {
  checkInHabit(goalId: $goalId, date: $date) {
    checkIn { id date } goal { id currentStreak longestStreak checkedInToday }
    alreadyCheckedIn freezeEarned badgesEarned { code } ${USER_ERRORS}
  }
}`;

export const ADD_EVENT = `mutation E($goalId: String!, $value: Float!, $note: String,
  $occurredAt: DateTime) {
  addGoalEvent(goalId: $goalId, value: $value, note: $note, occurredAt: $occurredAt) {
    event { id value note occurredAt } goal { id status currentValue percentComplete }
    goalCompleted badgesEarned { code } ${USER_ERRORS}
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
  if (res.errors.length) throw new Error(`addGoal failed: ${messagesOf(res)}`);
  return res.goal;
}

export const DAY_MS = 86_400_000;

/** A payload's user error messages joined with "; " (for matching in tests). */
export function messagesOf(payload: { errors: { message: string }[] }): string {
  return payload.errors.map((e) => e.message).join("; ");
}

/** The nodes of a connection (`{ nodes }` or `{ edges { node } }`). */
// deno-lint-ignore no-explicit-any
export function nodesOf(connection: any): any[] {
  return connection.nodes ?? connection.edges.map((e: { node: unknown }) => e.node);
}
