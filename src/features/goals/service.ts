/**
 * The goals use cases, each `(deps, actor, input) => Promise<payload>`: the only goals code that
 * opens transactions, publishes events and calls other features (badges, feed, funnel, points,
 * notifications). The rules decide, the store runs the statements, the schema modules adapt
 * GraphQL to these functions. They live in `use-cases/`:
 *
 * - `goals.ts`: `addGoal`, `updateGoal`, AI coaching's `addSubGoals`;
 * - `progress.ts`: `addGoalEvent`, `checkInHabit`, `useStreakFreeze`;
 * - `imports.ts`: `importCheckIns`, `importGoalEvents` (recorded history in one call);
 * - `changes.ts`: `undoCheckIn`, `updateGoalEvent`, `deleteGoalEvent`, `deleteGoal`;
 * - `reminders.ts`: `remindStreaksAtRisk` (the hourly schedule) and its batches, `remindBatch`;
 * - `reads.ts`: what the GraphQL modules and the `goals` API read (lists, progress data,
 *   snapshots, per-goal figures the schema batches);
 * - `shared.ts`: the deps, the actor, the own-goal lookup.
 */
export * from "./use-cases/shared.ts";
export * from "./use-cases/goals.ts";
export * from "./use-cases/progress.ts";
export * from "./use-cases/imports.ts";
export * from "./use-cases/changes.ts";
export * from "./use-cases/reminders.ts";
export * from "./use-cases/reads.ts";
export type { BucketRow, GoalEventRow, GoalFigures, GoalRow, ListedGoalRow } from "./store.ts";
