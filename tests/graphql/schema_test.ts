/**
 * The schema under version control: `schema.graphql` is what the code builds, and the current
 * schema breaks nothing the newest release offered unless it was deprecated first.
 */
import assert from "node:assert/strict";
import { unapprovedBreakingChanges } from "../../scripts/schema-compat.ts";
import { buildASTSchema, concatAST, parse } from "graphql";
import { RESOLVER_TYPES_FILE, resolverTypes } from "../../scripts/resolver-types.ts";
import {
  currentSchema,
  currentTypeDefs,
  releasedSchemas,
  SCHEMA_FILE,
} from "../../scripts/schema.ts";

Deno.test("schema: the committed schema.graphql is the schema the code builds", async () => {
  const committed = await Deno.readTextFile(SCHEMA_FILE);
  assert.ok(
    committed === currentSchema(),
    "schema.graphql is out of date: run `deno task schema` and commit the result",
  );
});

Deno.test("schema: the committed resolver types are generated from the committed schema", async () => {
  const committed = await Deno.readTextFile(RESOLVER_TYPES_FILE);
  assert.ok(
    committed === await resolverTypes(await Deno.readTextFile(SCHEMA_FILE)),
    "src/graphql/resolvers.gen.ts is stale: run `deno task resolvers` and commit the result",
  );
});

Deno.test("schema: the type definitions pass graphql-js's SDL validation", () => {
  // The service builds them with `assumeValidSDL`: a field defined twice would not be refused.
  const document = concatAST(currentTypeDefs().map((sdl) => parse(sdl)));
  assert.doesNotThrow(() => buildASTSchema(document));
  const twice = concatAST(
    [...currentTypeDefs(), "extend type Query { goals: Int }"].map((sdl) => parse(sdl)),
  );
  assert.throws(() => buildASTSchema(twice), /Field "Query.goals" can only be defined once/);
});

Deno.test("schema: no unapproved breaking change since the newest release", async () => {
  const releases = await releasedSchemas();
  assert.ok(releases.length > 0, "schema/releases/ holds no released schema");
  const newest = releases.at(-1)!;
  assert.deepEqual(
    await unapprovedBreakingChanges(newest.sdl, currentSchema()),
    [],
    `breaking changes against ${newest.version}: deprecate first (docs/graphql.md)`,
  );
});

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
