/**
 * The schema under version control: the compatibility rule between a released schema and the
 * current one (breaking changes only for what was deprecated first).
 */
import assert from "node:assert/strict";
import { unapprovedBreakingChanges } from "../../scripts/schema-compat.ts";

const RELEASED = /* GraphQL */ `
  type Query {
    goals: [Goal!]!
    oldGoals: [Goal!]! @deprecated(reason: "Use goals.")
    legacy: Legacy @deprecated(reason: "Gone in 2.0.")
    search(text: String, mode: String @deprecated(reason: "Ignored.")): [Goal!]!
  }
  type Goal { id: ID! title: String! kind: GoalKind! note: String @deprecated(reason: "Use title.") }
  type Legacy { id: ID! }
  enum GoalKind { habit target streak @deprecated(reason: "Use habit.") }
`;

Deno.test("schema compatibility: removing what was deprecated first is allowed", async () => {
  const current = /* GraphQL */ `
    type Query { goals: [Goal!]! search(text: String): [Goal!]! reports: [String!]! }
    type Goal { id: ID! title: String! kind: GoalKind! dueDate: String }
    enum GoalKind { habit target }
  `;
  assert.deepEqual(await unapprovedBreakingChanges(RELEASED, current), []);
});

Deno.test("schema compatibility: removing or retyping anything else is reported", async () => {
  const current = /* GraphQL */ `
    type Query {
      oldGoals: [Goal!]! @deprecated(reason: "Use goals.")
      legacy: Legacy @deprecated(reason: "Gone in 2.0.")
      search(text: String!, mode: String): [Goal!]!
    }
    type Goal { id: ID! title: Int! kind: GoalKind! note: String }
    type Legacy { id: ID! }
    enum GoalKind { target streak }
  `;
  const problems = await unapprovedBreakingChanges(RELEASED, current);
  const paths = problems.map((p) => p.split(":")[0]).sort();
  assert.deepEqual(paths, ["Goal.title", "GoalKind.habit", "Query.goals", "Query.search.text"]);
});
