/** The jobs admin GraphQL (src/features/jobs/schema.ts): dead jobs listed, retried, discarded. */
import assert from "node:assert/strict";
import { dataOf, gql } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

/** The shared setup with an admin (`admin-1`) and a user who is not one (`user-1`). */
async function setupAdmin() {
  const s = await setup({ admins: ["admin-1"] });
  return Object.assign(s, { admin: await s.token("admin-1"), user: await s.token("user-1") });
}

const DEAD = `{ deadJobs { id queue name payload attempts lastError failedAt createdAt } }`;
const RETRY = `mutation($id: ID!) { retryDeadJob(id: $id) { ok errors } }`;
const DISCARD = `mutation($id: ID!) { discardDeadJob(id: $id) { ok errors } }`;

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
    const dead = dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs;
    assert.equal(dead.length, 2);
    assert.equal(dead[0].name, "sync");
    assert.equal(dead[0].lastError, "Error: remote down");
    const one = dead.find((d: { payload: string }) => JSON.parse(d.payload).n === 1);
    const two = dead.find((d: { payload: string }) => JSON.parse(d.payload).n === 2);
    healthy = true;
    assert.deepEqual(dataOf(await gql(t, RETRY, { id: one.id }, { token: admin })).retryDeadJob, {
      ok: true,
      errors: [],
    });
    await t.app.jobs.runUntilIdle();
    assert.equal(runs, 3);
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      { ok: true, errors: [] },
    );
    assert.deepEqual(
      dataOf(await gql(t, DISCARD, { id: two.id }, { token: admin })).discardDeadJob,
      { ok: false, errors: ["no dead job with this id"] },
    );
    assert.deepEqual(dataOf(await gql(t, DEAD, {}, { token: admin })).deadJobs, []);
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
