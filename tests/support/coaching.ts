/**
 * Coaching operations and fixtures. Coaching tests run the shared setup with {@link COACHING}: a
 * fake LLM proxy behind `LLM_BASE_URL` and `root` as the service admin; alice is the default user.
 */
import type { SetupOptions, TestSetup } from "./setup.ts";
import { USER_ERRORS } from "./graphql.ts";

export const COACHING: SetupOptions = { llm: true, admins: ["root"] };

/** Adds a goal as `as` (default the setup's user) and returns its public id. */
export async function goalId(
  s: TestSetup,
  vars: Record<string, unknown>,
  as?: string,
): Promise<string> {
  const res = await s.data(
    `mutation($title: String!, $kind: GoalKind!, $targetValue: Float, $unit: String,
      $dueDate: Date) {
      addGoal(title: $title, kind: $kind, targetValue: $targetValue, unit: $unit,
        dueDate: $dueDate) { goal { id } ${USER_ERRORS} } }`,
    vars,
    as,
  );
  if (res.addGoal.errors.length) throw new Error(JSON.stringify(res.addGoal.errors));
  return res.addGoal.goal.id;
}

export const INSIGHT = `mutation($id: String!) {
  getInsight(goalId: $id) { insight { goalId summary highlights generatedAt } ${USER_ERRORS} } }`;
export const ADVICE = `mutation($id: String!, $q: String!) {
  getAdvice(goalId: $id, question: $q) {
    advice { goalId question answer steps generatedAt } ${USER_ERRORS} } }`;
export const MILESTONES = `mutation($id: String!) {
  generateMilestones(goalId: $id) {
    suggestionId milestones { title targetValue dueDate } ${USER_ERRORS} } }`;
export const ACCEPT = `mutation($id: String!, $indexes: [Int!]) {
  acceptMilestones(suggestionId: $id, indexes: $indexes) {
    goals { id title targetValue dueDate unit parent { id } } ${USER_ERRORS} } }`;

export const insight = { summary: "Steady progress.", highlights: ["3 runs this week"] };
