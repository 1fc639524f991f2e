/**
 * The jobs admin GraphQL (src/features/jobs/schema.ts): dead jobs listed, retried, discarded, one
 * by one or in bulk (all, or all of a kind).
 */
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
    assert.equal(codeOf(wrongType), "GRAPHQL_VALIDATION_FAILED");
    assert.equal((await t.app.jobs.listDeadJobs()).length, 5);
  } finally {
    await ctx.close();
  }
});

const RETRY_ALL = `mutation($name: String) { retryDeadJobs(name: $name) { count ${USER_ERRORS} } }`;
const DISCARD_ALL = `mutation($name: String) {
  discardDeadJobs(name: $name) { count ${USER_ERRORS} } }`;
const KINDS = `{ jobsOverview { dead deadKinds { name count } } }`;

Deno.test("admin GraphQL: retry or discard every dead job, or every one of a kind", async () => {
  const ctx = await setupAdmin();
  const { t, admin, user } = ctx;
  try {
    let healthy = false;
    const runs: Record<string, number> = { sync: 0, mail: 0 };
    t.app.jobs.handle("sync", () => {
      runs.sync++;
      if (!healthy) throw new Error("remote down");
    });
    t.app.jobs.handle("mail", () => {
      runs.mail++;
      throw new Error("smtp down");
    });
    const enqueue = async (name: string, n: number) => {
      for (let i = 0; i < n; i++) {
        await t.app.jobs.enqueue(t.deps.db.sql, name, { i }, { maxAttempts: 1 });
      }
    };
    // "gone": a kind whose handler no release has any more; it can still be discarded.
    await enqueue("sync", 3);
    await enqueue("mail", 2);
    await enqueue("gone", 1);
    await t.app.jobs.runUntilIdle();
    const kinds = async () => dataOf(await gql(t, KINDS, {}, { token: admin })).jobsOverview;
    assert.deepEqual(await kinds(), {
      dead: 6,
      deadKinds: [{ name: "sync", count: 3 }, { name: "mail", count: 2 }, {
        name: "gone",
        count: 1,
      }],
    });

    // An unknown kind, or an empty name, is a user error and changes nothing.
    const unknown = dataOf(await gql(t, DISCARD_ALL, { name: "sink" }, { token: admin }));
    assert.deepEqual(unknown.discardDeadJobs, {
      count: 0,
      errors: [{
        code: "unknown_kind",
        message:
          'There is no job kind named "sink": no handler has that name and no dead job has it.',
        field: "name",
      }],
    });
    const empty = dataOf(await gql(t, RETRY_ALL, { name: " " }, { token: admin }));
    assert.deepEqual(empty.retryDeadJobs.errors.map((e: { code: string }) => e.code), ["invalid"]);
    // Not an admin: refused before anything runs.
    for (const query of [RETRY_ALL, DISCARD_ALL]) {
      const res = await gql(t, query, {}, { token: user });
      assert.equal(res.body.errors[0].extensions.code, "FORBIDDEN");
    }
    assert.equal((await gql(t, RETRY_ALL, {})).body.errors[0].extensions.code, "UNAUTHENTICATED");
    assert.equal((await kinds()).dead, 6, "nothing was retried or discarded");
    assert.deepEqual(runs, { sync: 3, mail: 2 });

    // One kind: only its dead jobs go back to the queue, with fresh attempts.
    healthy = true;
    const retried = dataOf(await gql(t, RETRY_ALL, { name: "sync" }, { token: admin }));
    assert.deepEqual(retried.retryDeadJobs, { count: 3, errors: [] });
    await t.app.jobs.runUntilIdle();
    assert.deepEqual(runs, { sync: 6, mail: 2 });
    assert.deepEqual((await kinds()).deadKinds.map((k: { name: string }) => k.name), [
      "mail",
      "gone",
    ]);
    const gone = dataOf(await gql(t, DISCARD_ALL, { name: "gone" }, { token: admin }));
    assert.deepEqual(gone.discardDeadJobs, { count: 1, errors: [] });

    // All of them: two admins at once move each dead job once.
    healthy = false;
    await enqueue("sync", 2);
    await t.app.jobs.runUntilIdle();
    const both = await Promise.all(
      [1, 2].map(async () => dataOf(await gql(t, RETRY_ALL, {}, { token: admin })).retryDeadJobs),
    );
    assert.equal(both[0].count + both[1].count, 4, JSON.stringify(both));
    assert.equal((await kinds()).dead, 0);
    await t.app.jobs.runUntilIdle();
    assert.deepEqual(runs, { sync: 10, mail: 4 });
    const all = dataOf(await gql(t, DISCARD_ALL, {}, { token: admin }));
    assert.deepEqual(all.discardDeadJobs, { count: 4, errors: [] });
    assert.deepEqual(await kinds(), { dead: 0, deadKinds: [] });
    assert.deepEqual(dataOf(await gql(t, DISCARD_ALL, {}, { token: admin })).discardDeadJobs, {
      count: 0,
      errors: [],
    });
  } finally {
    await ctx.close();
  }
});
