/** The jobs admin GraphQL (src/features/jobs/schema.ts): dead jobs listed, retried, discarded. */
import assert from "node:assert/strict";
import { codeOf, dataOf, gql, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

/** The shared setup with an admin (`admin-1`) and a user who is not one (`user-1`). */
async function setupAdmin() {
  const s = await setup({ admins: ["admin-1"] });
  return Object.assign(s, { admin: await s.token("admin-1"), user: await s.token("user-1") });
}

const DEAD = `{ deadJobs { totalCount
  nodes { id queue name payload attempts lastError failedAt createdAt } } }`;
const RETRY = `mutation($id: String!) {
  retryDeadJob(id: $id) { deadJob { id payload } ${USER_ERRORS} } }`;
const DISCARD = `mutation($id: String!) {
  discardDeadJob(id: $id) { deadJob { id payload } ${USER_ERRORS} } }`;

Deno.test("admin GraphQL: list, retry and discard dead jobs", async () => {
  const ctx = await setupAdmin();
  const { t, admin } = ctx;
  try {
    let healthy = false;
    let runs = 0;
    t.app.jobs.handle("sync", () => {
      runs++;
      if (!healthy) throw new Error("remote down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 1 }, { maxAttempts: 1 });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 2 }, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const { totalCount, nodes: dead } = dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs;
    assert.equal(totalCount, 2);
    assert.equal(dead.length, 2);
    assert.equal(dead[0].name, "sync");
    assert.equal(dead[0].lastError, "Error: remote down");
    assert.match(dead[0].failedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const one = dead.find((d: { payload: { n: number } }) => d.payload.n === 1);
    const two = dead.find((d: { payload: { n: number } }) => d.payload.n === 2);
    healthy = true;
    assert.deepEqual(dataOf(await gql(t, RETRY, { id: one.id }, { token: admin })).retryDeadJob, {
      deadJob: { id: one.id, payload: { n: 1 } },
      errors: [],
    });
    await t.app.jobs.runUntilIdle();
    assert.equal(runs, 3);
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      { deadJob: { id: two.id, payload: { n: 2 } }, errors: [] },
    );
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      {
        deadJob: null,
        errors: [{ code: "not_found", message: "There is no dead job with this id.", field: "id" }],
      },
    );
    assert.deepEqual(dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs, {
      totalCount: 0,
      nodes: [],
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: dead-job operations are FORBIDDEN to other users and change nothing", async () => {
  const ctx = await setupAdmin();
  const { t, user } = ctx;
  try {
    t.app.jobs.handle("sync", () => {
      throw new Error("down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", {}, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const [{ id }] = await t.app.jobs.listDeadJobs();
    for (const [query, vars] of [[DEAD, {}], [RETRY, { id }], [DISCARD, { id }]] as const) {
      const res = await gql(t, query, vars, { token: user });
      assert.equal(res.body.errors[0].extensions.code, "FORBIDDEN");
    }
    const anonymous = await gql(t, DEAD, {});
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
    assert.equal((await t.app.jobs.listDeadJobs()).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: dead jobs page forward and backward with stable cursors", async () => {
  const ctx = await setupAdmin();
  const { t, admin } = ctx;
  try {
    t.app.jobs.handle("sync", () => {
      throw new Error("down");
    });
    for (let n = 0; n < 5; n++) {
      await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n }, { maxAttempts: 1 });
      await t.app.jobs.runUntilIdle();
      ctx.clock.advance(1_000);
    }
    const PAGE = `query($first: Int, $after: String, $last: Int, $before: String) {
      deadJobs(first: $first, after: $after, last: $last, before: $before) {
        totalCount nodes { payload }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const page = async (vars: Record<string, unknown>) =>
      dataOf(await gql(t, PAGE, vars, { token: admin })).deadJobs;
    const ns = (p: { nodes: { payload: { n: number } }[] }) => p.nodes.map((j) => j.payload.n);
    const first = await page({ first: 2 });
    assert.deepEqual(ns(first), [4, 3]);
    assert.equal(first.totalCount, 5);
    assert.equal(first.pageInfo.hasNextPage, true);
    const second = await page({ first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual(ns(second), [2, 1]);
    const back = await page({ last: 2, before: second.pageInfo.startCursor });
    assert.deepEqual(ns(back), [4, 3]);
    assert.equal(back.pageInfo.hasPreviousPage, false);
    const tail = await page({ last: 2 });
    assert.deepEqual(ns(tail), [1, 0]);
    assert.equal(tail.pageInfo.hasPreviousPage, true);

    const bad = await gql(t, PAGE, { first: 1, after: "not-a-cursor" }, { token: admin });
    assert.equal(codeOf(bad), "BAD_USER_INPUT");
    const wrongType = await gql(t, `mutation { retryDeadJob(id: 5) { deadJob { id } } }`, {}, {
      token: admin,
    });
    assert.equal(codeOf(wrongType), "BAD_USER_INPUT");
    assert.equal((await t.app.jobs.listDeadJobs()).length, 5);
  } finally {
    await ctx.close();
  }
});
