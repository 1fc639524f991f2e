/**
 * Compiled queries (src/graphql/jit.ts): a query's second run over HTTP is compiled, and a
 * compiled run answers exactly what graphql-js's executor answers: figures, connections whose
 * `totalCount` is a method, nested pages, fragments, aliases, directives, unions, errors and
 * masking, variables of the wrong type.
 */
import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN } from "../support/goals.ts";
import { gqlRaw } from "../support/graphql.ts";
import { setup } from "../support/setup.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";

/** A body with each error's request id (one per request) left out. */
// deno-lint-ignore no-explicit-any
function withoutRequestIds(body: any) {
  return JSON.parse(JSON.stringify(body, (key, value) => key === "request_id" ? undefined : value));
}

const LIST = `query List($first: Int!, $events: Int, $withSubs: Boolean!) {
  goals(first: $first) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { ...Figures } }
    nodes {
      id title kind __typename
      subGoals @include(if: $withSubs) { id title }
      events(first: $events) { totalCount nodes { value note occurredAt } pageInfo { hasNextPage } }
      streak: currentStreak
    }
  }
  me { id username timeZone }
}
fragment Figures on Goal { currentValue percentComplete currentStreak longestStreak checkedInToday }`;

/** A module whose fields fail: a thrown error (masked) and a non-null field resolving to null. */
const failing: SchemaModule = {
  typeDefs: `
    type Probe { ok: Int! broken: Int! missing: Int! method: Int! later: [Int!]! }
    extend type Query { probe: Probe probes: [Probe!]! }`,
  resolvers: {
    Query: {
      probe: () => ({ ok: 1, method: () => 7, later: Promise.resolve([1, 2]) }),
      probes: () => [{ ok: 2, method: () => 8, later: Promise.resolve([3]) }],
    },
    Probe: {
      broken: () => {
        throw new Error("postgres://secret@db refused");
      },
    },
  },
};

Deno.test("compiled queries: the second run of a query is compiled and answers the same", async () => {
  const s = await setup({ app: { extraModules: [failing] } });
  try {
    const target = await addGoal(s, { title: "Run", kind: "target", targetValue: 10, unit: "km" });
    const habit = await addGoal(s, { title: "Read", kind: "habit" });
    await addGoal(s, { title: "Chapter 1", kind: "habit", parentGoalId: habit.id });
    for (const value of [2, 3]) await s.data(ADD_EVENT, { goalId: target.id, value });
    await s.data(CHECK_IN, { goalId: habit.id });
    const compiled = s.t.app.graphql.compiledQueries;
    const variables = { first: 10, events: 1, withSubs: true };

    const first = await s.run(LIST, variables);
    const firstStatements = s.lastStatements();
    await compiled.ready();
    const before = compiled.count();
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await s.run(LIST, variables));
    assert.equal(compiled.count(), before + 1, "compiled once, on its second run");
    // The list reads ahead what its selection asks for (src/graphql/selection.ts reads `info`),
    // compiled or not: no statement per goal.
    assert.ok(s.lastStatements() <= firstStatements, `${s.lastStatements()} statements`);
    assert.equal(first.status, 200);
    assert.equal(first.body.errors, undefined);
    for (const run of runs) assert.deepEqual(run.body, first.body);
    const goals = first.body.data.goals;
    // deno-lint-ignore no-explicit-any
    const named = (title: string) => goals.nodes.find((g: any) => g.title === title);
    assert.equal(goals.totalCount, 2);
    assert.equal(named("Read").events.totalCount, 0);
    assert.equal(named("Run").events.totalCount, 2);
    assert.equal(named("Run").events.pageInfo.hasNextPage, true);
    assert.equal(named("Read").subGoals[0].title, "Chapter 1");
    assert.deepEqual(
      goals.edges.map((e: { node: { currentValue: number } }) => e.node.currentValue).sort(),
      [1, 5],
    );

    const without = await s.run(LIST, { ...variables, withSubs: false });
    assert.ok(without.body.data.goals.nodes.every((g: object) => !("subGoals" in g)));

    // Errors: a thrown one masked, a non-null field without a value; a method and a promise
    // under a field's name (no resolver) called and awaited as graphql-js does.
    const probe = `{ probe { ok method later } p1: probe { broken } p2: probe { missing } }`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(withoutRequestIds((await s.run(probe)).body));
    for (const answer of answers.slice(1)) assert.deepEqual(answer, answers[0]);
    assert.deepEqual(answers[0].data, {
      probe: { ok: 1, method: 7, later: [1, 2] },
      p1: null,
      p2: null,
    });
    assert.deepEqual(
      answers[0].errors.map((e: { path: string[]; locations: unknown[] }) => [
        e.path.join("."),
        e.locations.length,
      ]),
      [["p1.broken", 1], ["p2.missing", 1]],
    );
    assert.ok(!JSON.stringify(answers[0]).includes("secret"));
    // A non-null root field that fails: data is null either way (graphql-js lists every error
    // met on the way, a compiled run the one that nulled the root).
    for (let i = 0; i < 3; i++) {
      const { body } = await s.run("{ probes { ok broken } }");
      assert.equal(body.data, null);
      assert.equal(body.errors[0].extensions.code, "INTERNAL");
    }
  } finally {
    await s.close();
  }
});

Deno.test("compiled queries: a variable of the wrong type is still a request error, 400 to graphql-response+json", async () => {
  const s = await setup();
  try {
    const query = "query($id: String!) { publicGoal(id: $id) { id } }";
    await s.run(query, { id: "none" });
    await s.t.app.graphql.compiledQueries.ready();
    for (let i = 0; i < 3; i++) await s.run(query, { id: "none" });
    assert.equal(s.t.app.graphql.compiledQueries.count(), 1);
    for (
      const [accept, status] of [
        ["application/json", 200],
        ["application/graphql-response+json", 400],
      ] as const
    ) {
      const res = await gqlRaw(s.t, { query, variables: { id: 5 } }, { headers: { accept } });
      assert.equal(res.status, status, accept);
      assert.equal(res.body.data, undefined);
      assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT");
      assert.match(res.body.errors[0].message, /\$id/);
    }
  } finally {
    await s.close();
  }
});

Deno.test("compiled queries: mutations and one-off queries are never compiled", async () => {
  const s = await setup();
  try {
    await s.run("{ me { id } }");
    await s.t.app.graphql.compiledQueries.ready();
    for (let i = 0; i < 3; i++) await addGoal(s, { title: `Goal ${i}`, kind: "habit" });
    for (let i = 0; i < 5; i++) await s.run(`{ goals(first: ${i + 1}) { totalCount } }`);
    assert.equal(s.t.app.graphql.compiledQueries.count(), 0);
  } finally {
    await s.close();
  }
});
