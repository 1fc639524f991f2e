/**
 * A stale or malformed cursor fails only its own field: an error with the field's path and
 * `BAD_USER_INPUT`, the field answering the list's first page with no items, and every other field
 * of the response (and of the batch) keeping its data.
 */
import assert from "node:assert/strict";
import { ADD_EVENT, addGoal } from "../support/goals.ts";
import { gqlRaw } from "../support/graphql.ts";
import { setup } from "../support/setup.ts";
import { encodeCursor } from "../../src/graphql/pagination.ts";

const PAGE = `totalCount nodes { id } pageInfo { hasNextPage hasPreviousPage endCursor }`;

Deno.test("cursors: a bad cursor fails its own field, with its path; the rest is kept", async () => {
  const s = await setup();
  try {
    const goal = await addGoal(s, { title: "Run", kind: "target", targetValue: 10 });
    await addGoal(s, { title: "Swim", kind: "habit" });
    await s.data(ADD_EVENT, { goalId: goal.id, value: 2 });
    const stale = encodeCursor([5, "a number where the list keeps a time"]);
    for (const after of ["garbage", "%%%", "\u00e9", stale, "x".repeat(5000)]) {
      const res = await s.run(
        `query Q($after: String) { me { username } goals(first: 1, after: $after) { ${PAGE} } }`,
        { after },
      );
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, {
        me: { username: res.body.data.me.username },
        goals: {
          totalCount: 2,
          nodes: [],
          pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: null },
        },
      }, after.slice(0, 20));
      assert.equal(typeof res.body.data.me.username, "string");
      assert.deepEqual(res.body.errors, [{
        message: 'Argument "after": not a cursor of this list',
        locations: [{ line: 1, column: 43 }],
        path: ["goals"],
        extensions: { code: "BAD_USER_INPUT" },
      }]);
    }

    // Nested: only the goal's events field fails; `before` too; a good page beside it stays.
    const nested = await s.run(
      `query Q($id: String!) {
      goal(id: $id) { title events(last: 5, before: "nope") { ${PAGE} } }
      goals(first: 5) { nodes { title events(first: 1, after: "nope") { totalCount } } } }`,
      {
        id: goal.id,
      },
    );
    assert.equal(nested.status, 200);
    assert.deepEqual(nested.body.data.goal, {
      title: "Run",
      events: {
        totalCount: 1,
        nodes: [],
        pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: null },
      },
    });
    assert.deepEqual(
      nested.body.data.goals.nodes.map((g: { title: string }) => g.title).sort(),
      ["Run", "Swim"],
    );
    assert.deepEqual(
      nested.body.errors.map((e: { path: unknown[] }) => e.path).sort(),
      [["goal", "events"], ["goals", "nodes", 0, "events"], ["goals", "nodes", 1, "events"]],
    );
    assert.ok(
      nested.body.errors.every((e: { extensions: { code: string } }) =>
        e.extensions.code === "BAD_USER_INPUT"
      ),
    );

    // A batch: the other operation is untouched.
    const batch = await gqlRaw(s.t, [
      { query: `{ goals(after: "garbage") { totalCount } }` },
      { query: `{ goals(first: 1) { totalCount nodes { id } } }` },
    ], { token: await s.token() });
    assert.equal(batch.status, 200);
    assert.equal(batch.body[0].errors[0].extensions.code, "BAD_USER_INPUT");
    assert.deepEqual(batch.body[0].data, { goals: { totalCount: 2 } });
    assert.equal(batch.body[1].errors, undefined);
    assert.equal(batch.body[1].data.goals.nodes.length, 1);

    // Other bad page arguments still refuse the operation as before.
    const tooMany = await s.run(
      `{ me { username } goals(first: 101, after: "garbage") { totalCount } }`,
    );
    assert.equal(tooMany.body.data, null);
    assert.match(tooMany.body.errors[0].message, /at most 100/);
  } finally {
    await s.close();
  }
});
