/**
 * Pure rules of the AI workforce: field validation, the monthly budget, autonomy and promotion,
 * artifact review (edit ratio, rejection memory), run and artifact status transitions, schedule
 * slots, budget alert levels, the user-error codes and the texts. No I/O: every input (including
 * "now") is an argument. They live in `rules/`:
 *
 * - `levels.ts`: autonomy levels, run and approval statuses;
 * - `employee.ts`: an employee's fields, defaults, tools and kinds;
 * - `promotion.ts`: promotion figures, criteria and the model validation;
 * - `runs.ts`: run transitions, run budget, schedule slots, the texts runs end with;
 * - `review.ts`: review decisions, edits, rejections, weekly counts;
 * - `budget.ts`: monthly caps and budget alerts;
 * - `errors.ts`: the closed set of user-error codes.
 */
export * from "./rules/levels.ts";
export * from "./rules/employee.ts";
export * from "./rules/promotion.ts";
export * from "./rules/runs.ts";
export * from "./rules/review.ts";
export * from "./rules/budget.ts";
export * from "./rules/errors.ts";
export * from "./rules/markdown.ts";
export * from "./rules/schedule-words.ts";
