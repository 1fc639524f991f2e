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

const RETRYING = `query($search: String, $first: Int, $after: String) {
  retryingJobs(search: $search, first: $first, after: $after) { totalCount
    nodes { id queue name payload attempts maxAttempts lastError nextAttemptAt createdAt }
    pageInfo { hasNextPage endCursor } } }`;
const FAILED_JOB = `query($id: String!) { failedJob(id: $id) {
  id state queue name payload attempts maxAttempts lastError failedAt nextAttemptAt createdAt } }`;
const RETRY_NOW = `mutation($id: String!) {
  retryJobNow(id: $id) { retryingJob { id nextAttemptAt } ${USER_ERRORS} } }`;
const DELETE_RETRYING = `mutation($id: String!) {
  deleteRetryingJob(id: $id) { retryingJob { id payload } ${USER_ERRORS} } }`;
const RETRY_ALL_NOW = `mutation($name: String) {
  retryJobsNow(name: $name) { count ${USER_ERRORS} } }`;
const DELETE_ALL_RETRYING = `mutation($name: String) {
  deleteRetryingJobs(name: $name) { count ${USER_ERRORS} } }`;

/** A "sync" handler that fails ("remote down") until `healthy` is set, counting its runs. */
function flakySync(t: Awaited<ReturnType<typeof setupAdmin>>["t"]) {
  const remote = { healthy: false, runs: 0 };
  t.app.jobs.handle("sync", () => {
    remote.runs++;
    if (!remote.healthy) throw new Error("remote down");
  });
  return remote;
}

Deno.test("admin GraphQL: the retry set is listed with next attempts, run now, deleted, and keeps its ids until dead", async () => {
  const ctx = await setupAdmin();
  const { t, admin, clock } = ctx;
  try {
    const remote = flakySync(t);
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 1 }, { maxAttempts: 3 });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 2 }, { maxAttempts: 2 });
    await t.app.jobs.runUntilIdle();
    const now = clock.now().getTime();
    const list = async (vars: Record<string, unknown> = {}) =>
      dataOf(await gql(t, RETRYING, vars, { token: admin })).retryingJobs;
    const first = await list();
    assert.equal(first.totalCount, 2);
    const byN = (n: number) =>
      first.nodes.find((j: { payload: { n: number } }) => j.payload.n === n);
    const [one, two] = [byN(1), byN(2)];
    assert.deepEqual(
      { ...one, id: undefined, nextAttemptAt: undefined, createdAt: undefined },
      {
        id: undefined,
        queue: "default",
        name: "sync",
        payload: { n: 1 },
        attempts: 1,
        maxAttempts: 3,
        lastError: "Error: remote down",
        nextAttemptAt: undefined,
        createdAt: undefined,
      },
    );
    assert.match(one.id, /^[A-Za-z0-9_-]{22,}$/);
    // The first backoff is 2 s with ±25% jitter.
    for (const job of [one, two]) {
      const wait = Date.parse(job.nextAttemptAt) - now;
      assert.ok(wait >= 1_500 && wait <= 2_500, `next attempt in ${wait} ms`);
    }
    const overview = dataOf(
      await gql(t, `{ jobsOverview { retrying dead retryingKinds { name count } } }`, {}, {
        token: admin,
      }),
    ).jobsOverview;
    assert.deepEqual(overview, {
      retrying: 2,
      dead: 0,
      retryingKinds: [{ name: "sync", count: 2 }],
    });

    // One job looked up: everything, its next attempt, no failedAt.
    const detail = dataOf(await gql(t, FAILED_JOB, { id: one.id }, { token: admin })).failedJob;
    assert.deepEqual(detail, {
      ...one,
      state: "retrying",
      failedAt: null,
    });

    // Run now: due at once, out of the retry set, and the worker runs it.
    remote.healthy = true;
    const moved = dataOf(await gql(t, RETRY_NOW, { id: one.id }, { token: admin })).retryJobNow;
    assert.deepEqual(moved, {
      retryingJob: { id: one.id, nextAttemptAt: clock.now().toISOString() },
      errors: [],
    });
    assert.deepEqual((await list()).nodes.map((j: { id: string }) => j.id), [two.id]);
    assert.equal(await t.app.jobs.runUntilIdle(), 1);
    assert.equal(remote.runs, 3);
    assert.equal(
      dataOf(await gql(t, FAILED_JOB, { id: one.id }, { token: admin })).failedJob,
      null,
    );
    const again = dataOf(await gql(t, RETRY_NOW, { id: one.id }, { token: admin })).retryJobNow;
    assert.deepEqual(again, {
      retryingJob: null,
      errors: [{
        code: "not_found",
        message: "There is no job waiting for a retry with this id.",
        field: "id",
      }],
    });

    // The other fails its last attempt: dead under the same id, which the lookup follows.
    remote.healthy = false;
    clock.advance(3_000);
    await t.app.jobs.runUntilIdle();
    const dead = dataOf(await gql(t, FAILED_JOB, { id: two.id }, { token: admin })).failedJob;
    assert.equal(dead.state, "dead");
    assert.equal(dead.attempts, 2);
    assert.equal(dead.nextAttemptAt, null);
    assert.equal(dead.failedAt, clock.now().toISOString());
    assert.equal((await list()).totalCount, 0);
    // Retried from the dead set and failing again: back in the retry set, still the same id.
    assert.deepEqual(
      dataOf(await gql(t, RETRY, { id: two.id }, { token: admin })).retryDeadJob.errors,
      [],
    );
    await t.app.jobs.runUntilIdle();
    assert.deepEqual((await list()).nodes.map((j: { id: string }) => j.id), [two.id]);

    // Delete: gone for good, once.
    const deleted = dataOf(await gql(t, DELETE_RETRYING, { id: two.id }, { token: admin }));
    assert.deepEqual(deleted.deleteRetryingJob, {
      retryingJob: { id: two.id, payload: { n: 2 } },
      errors: [],
    });
    const twice = dataOf(await gql(t, DELETE_RETRYING, { id: two.id }, { token: admin }));
    assert.deepEqual(twice.deleteRetryingJob.errors.map((e: { code: string }) => e.code), [
      "not_found",
    ]);
    const [{ count }] = await t.deps.db.sql`select count(*)::int as count from jobs
      where name = 'sync'`;
    assert.equal(count, 0);
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: every retrying job, or every one of a kind, run now or deleted", async () => {
  const ctx = await setupAdmin();
  const { t, admin, user } = ctx;
  try {
    const runs: Record<string, number> = { sync: 0, mail: 0 };
    for (const name of ["sync", "mail"]) {
      t.app.jobs.handle(name, () => {
        runs[name]++;
        throw new Error(`${name} down`);
      });
    }
    for (const [name, n] of [["sync", 3], ["mail", 2]] as const) {
      for (let i = 0; i < n; i++) {
        await t.app.jobs.enqueue(t.deps.db.sql, name, { i }, { maxAttempts: 5 });
      }
    }
    await t.app.jobs.runUntilIdle();
    const kinds = async () =>
      dataOf(
        await gql(t, `{ jobsOverview { retrying retryingKinds { name count } } }`, {}, {
          token: admin,
        }),
      ).jobsOverview;
    assert.deepEqual(await kinds(), {
      retrying: 5,
      retryingKinds: [{ name: "sync", count: 3 }, { name: "mail", count: 2 }],
    });
    const unknown = dataOf(await gql(t, RETRY_ALL_NOW, { name: "sink" }, { token: admin }));
    assert.deepEqual(unknown.retryJobsNow, {
      count: 0,
      errors: [{
        code: "unknown_kind",
        message: 'There is no job kind named "sink": no handler has that name and no job ' +
          "waiting for a retry has it.",
        field: "name",
      }],
    });
    const empty = dataOf(await gql(t, DELETE_ALL_RETRYING, { name: "" }, { token: admin }));
    assert.deepEqual(empty.deleteRetryingJobs.errors.map((e: { code: string }) => e.code), [
      "invalid",
    ]);
    for (const query of [RETRY_ALL_NOW, DELETE_ALL_RETRYING, RETRY_NOW, DELETE_RETRYING]) {
      const res = await gql(t, query, { id: "x".repeat(22) }, { token: user });
      assert.equal(codeOf(res), "FORBIDDEN");
    }
    assert.equal((await kinds()).retrying, 5, "nothing moved");

    const now = dataOf(await gql(t, RETRY_ALL_NOW, { name: "sync" }, { token: admin }));
    assert.deepEqual(now.retryJobsNow, { count: 3, errors: [] });
    assert.equal(await t.app.jobs.runUntilIdle(), 3, "the three run at once");
    assert.deepEqual(runs, { sync: 6, mail: 2 });
    const gone = dataOf(await gql(t, DELETE_ALL_RETRYING, {}, { token: admin }));
    assert.deepEqual(gone.deleteRetryingJobs, { count: 5, errors: [] });
    assert.deepEqual(await kinds(), { retrying: 0, retryingKinds: [] });
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: search narrows the dead and retry sets by name or error, wildcards literal", async () => {
  const ctx = await setupAdmin();
  const { t, admin } = ctx;
  try {
    const errors: Record<string, string> = {
      "mail.send": "SMTP refused: 100% of the quota used",
      "sync.pull": "timeout after 1000 ms",
      "sync.push": "Timeout_Error: upstream",
    };
    for (const name of Object.keys(errors)) {
      t.app.jobs.handle(name, () => {
        throw new Error(errors[name]);
      });
      await t.app.jobs.enqueue(t.deps.db.sql, name, {}, { maxAttempts: 1 });
      await t.app.jobs.enqueue(t.deps.db.sql, name, {}, { maxAttempts: 9 });
    }
    await t.app.jobs.runUntilIdle();
    const names = async (field: "deadJobs" | "retryingJobs", search: string | null) => {
      const data = dataOf(
        await gql(
          t,
          `query($s: String) { ${field}(search: $s) { totalCount nodes { name } } }`,
          { s: search },
          { token: admin },
        ),
      )[field];
      const found = data.nodes.map((j: { name: string }) => j.name).sort();
      assert.equal(data.totalCount, found.length);
      return found;
    };
    for (const field of ["deadJobs", "retryingJobs"] as const) {
      assert.deepEqual(await names(field, null), ["mail.send", "sync.pull", "sync.push"]);
      assert.deepEqual(await names(field, "  "), ["mail.send", "sync.pull", "sync.push"]);
      assert.deepEqual(await names(field, "SYNC."), ["sync.pull", "sync.push"]);
      assert.deepEqual(await names(field, "timeout"), ["sync.pull", "sync.push"]);
      // % and _ are the characters themselves, not wildcards; so is a backslash.
      assert.deepEqual(await names(field, "0%"), ["mail.send"]);
      assert.deepEqual(await names(field, "t_e"), ["sync.push"]);
      assert.deepEqual(await names(field, "%"), ["mail.send"]);
      assert.deepEqual(await names(field, "\\"), []);
      assert.deepEqual(await names(field, "nothing like it"), []);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("admin GraphQL: bad input to the failed-job queries is a clear error, never a 5xx", async () => {
  const ctx = await setupAdmin();
  const { t, admin, user } = ctx;
  try {
    t.app.jobs.handle("sync", () => {
      throw new Error("down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", {}, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const [{ id }] = await t.app.jobs.listDeadJobs();
    const LIST = (field: string) =>
      `query($s: String) { ${field}(search: $s) { totalCount nodes { id } } }`;
    for (const field of ["deadJobs", "retryingJobs"]) {
      const long = await gql(t, LIST(field), { s: "x".repeat(201) }, { token: admin });
      assert.equal(long.status, 200);
      assert.equal(codeOf(long), "BAD_USER_INPUT");
      assert.equal(long.body.errors[0].message, 'Argument "search" is longer than 200 characters');
      const atLimit = await gql(t, LIST(field), { s: "x".repeat(200) }, { token: admin });
      assert.equal(dataOf(atLimit)[field].totalCount, 0);
      const nul = await gql(t, LIST(field), { s: "down\u0000" }, { token: admin });
      assert.ok(nul.status < 500);
      assert.equal(codeOf(nul), "BAD_USER_INPUT");
      assert.match(nul.body.errors[0].message, /control character \(U\+0000\)/);
      const literal = await gql(t, `{ ${field}(search: "a\\u0000b") { totalCount } }`, {}, {
        token: admin,
      });
      assert.equal(codeOf(literal), "BAD_USER_INPUT");
      const wrongType = await gql(t, `{ ${field}(search: 5) { totalCount } }`, {}, {
        token: admin,
      });
      assert.ok(wrongType.status < 500);
      // A literal of the wrong type fails validation of the document itself.
      assert.equal(codeOf(wrongType), "GRAPHQL_VALIDATION_FAILED");
      assert.equal(codeOf(await gql(t, LIST(field), {}, { token: user })), "FORBIDDEN");
      assert.equal(codeOf(await gql(t, LIST(field), {})), "UNAUTHENTICATED");
    }

    // An id that names no failed job, or cannot be one, is null: never an error.
    const lookup = (value: string) => gql(t, FAILED_JOB, { id: value }, { token: admin });
    for (const value of ["", "x", "../../etc", "%_%", "x".repeat(5_000), "A".repeat(22)]) {
      const res = await lookup(value);
      assert.equal(res.status, 200);
      assert.equal(dataOf(res).failedJob, null, value.slice(0, 20));
    }
    assert.equal(dataOf(await lookup(id)).failedJob.id, id);
    assert.equal(codeOf(await lookup("a\u0000b")), "BAD_USER_INPUT");
    const wrongType = await gql(t, `{ failedJob(id: 5) { id } }`, {}, { token: admin });
    assert.equal(codeOf(wrongType), "GRAPHQL_VALIDATION_FAILED");
    assert.equal(codeOf(await gql(t, FAILED_JOB, { id }, { token: user })), "FORBIDDEN");
    assert.equal(codeOf(await gql(t, FAILED_JOB, { id })), "UNAUTHENTICATED");
    // The mutations answer a malformed id as not_found, like a vanished one.
    const bad = dataOf(await gql(t, RETRY_NOW, { id: "../x" }, { token: admin }));
    assert.deepEqual(bad.retryJobNow.errors.map((e: { code: string }) => e.code), ["not_found"]);
    const badDead = dataOf(await gql(t, DISCARD, { id: "x".repeat(5_000) }, { token: admin }));
    assert.deepEqual(badDead.discardDeadJob.errors.map((e: { code: string }) => e.code), [
      "not_found",
    ]);
    assert.equal((await t.app.jobs.listDeadJobs()).length, 1);
  } finally {
    await ctx.close();
  }
});
