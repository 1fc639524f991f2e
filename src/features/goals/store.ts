/**
 * SQL for goals, progress events, habit check-ins, streak freezes and progress data: one guarded
 * statement per function, taking a connection or the caller's transaction. The statements live
 * in `store/`; the goals modules import them from here.
 */
export * from "./store/goals.ts";
export * from "./store/activity.ts";
export * from "./store/progress.ts";
export * from "./store/changes.ts";
export * from "./store/reminders.ts";
