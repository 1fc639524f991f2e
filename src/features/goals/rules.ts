/**
 * Pure rules for goals, habits and progress: input validation, status transitions, percent
 * complete, streaks (in the user's time zone), streak freezes, pace, changes and reminders. No
 * database here; see docs/domain.md for the reasoning behind each rule. Other features and the
 * goals modules import them from here; they live in `rules/`.
 */
export * from "./rules/errors.ts";
export * from "./rules/goal.ts";
export * from "./rules/progress.ts";
export * from "./rules/changes.ts";
export * from "./rules/reminders.ts";
