/**
 * The workforce's cursor connections (docs/graphql.md): an employee's runs (newest first),
 * aiEmployeesConnection and pendingArtifactsConnection (oldest first), both directions, lazy
 * totalCount, and runs nested in a list of employees at a constant number of statements.
 */
import assert from "node:assert/strict";
import { logged } from "../../support/app.ts";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

const PAGE = `pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;

const RUNS = `query($id: String!, $first: Int, $after: String, $last: Int, $before: String) {
  aiEmployee(id: $id) {
    runs(first: $first, after: $after, last: $last, before: $before) {
      totalCount nodes { id } edges { cursor node { id } } ${PAGE} } } }`;

async function runsPage(ctx: WorkforceCtx, id: string, args: Record<string, unknown>) {
  return (await asAdmin(ctx, RUNS, { id, ...args })).aiEmployee.runs;
}

const ids = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id);

/** An employee with `n` concluded runs, one minute apart; their ids oldest first. */
async function employeeWithRuns(ctx: WorkforceCtx, n: number) {
  const employee = await createEmployee(ctx);
  const runs: string[] = [];
  for (let i = 0; i < n; i++) {
    ctx.clock.advance(60_000);
    runs.push(await completeRun(ctx, employee.id));
  }
  return { employeeId: employee.id, runs };
}

Deno.test("connections: an employee's runs page newest first, both ways, with totalCount", () =>
  withWorkforce(async (ctx) => {
    const { employeeId, runs } = await employeeWithRuns(ctx, 3);
    const newest = [...runs].reverse();

    const first = await runsPage(ctx, employeeId, { first: 2 });
    assert.deepEqual(ids(first), newest.slice(0, 2));
    assert.equal(first.totalCount, 3);
    assert.equal(first.pageInfo.hasNextPage, true);
    assert.equal(first.pageInfo.hasPreviousPage, false);
    assert.equal(first.edges[1].cursor, first.pageInfo.endCursor);

    const rest = await runsPage(ctx, employeeId, { first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual(ids(rest), newest.slice(2));
    assert.equal(rest.pageInfo.hasNextPage, false);
    assert.equal(rest.pageInfo.hasPreviousPage, true);

    // Backward: the last two (the oldest), still in list order, then the page before them.
    const last = await runsPage(ctx, employeeId, { last: 2 });
    assert.deepEqual(ids(last), newest.slice(1));
    assert.equal(last.pageInfo.hasPreviousPage, true);
    assert.equal(last.pageInfo.hasNextPage, false);
    const before = await runsPage(ctx, employeeId, {
      last: 2,
      before: last.pageInfo.startCursor,
    });
    assert.deepEqual(ids(before), newest.slice(0, 1));
    assert.equal(before.pageInfo.hasPreviousPage, false);
    assert.equal(before.pageInfo.hasNextPage, true);

    // A page stays stable while a newer run is added.
    ctx.clock.advance(60_000);
    await completeRun(ctx, employeeId);
    const stable = await runsPage(ctx, employeeId, { first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual(ids(stable), newest.slice(2));
    assert.equal((await runsPage(ctx, employeeId, {})).totalCount, 4);
  }));

Deno.test("connections: bad paging input is BAD_USER_INPUT naming the argument", () =>
  withWorkforce(async (ctx) => {
    const { employeeId } = await employeeWithRuns(ctx, 1);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ after: "not-a-cursor" }, /"after"/],
      [{ first: -1 }, /"first"/],
      [{ first: 1, last: 1 }, /"first" and "last"/],
      [{ first: "two" }, /\$first/],
    ];
    for (const [args, message] of cases) {
      const res = await gql(ctx.t, RUNS, { id: employeeId, ...args }, { token: ctx.admin });
      assert.equal(res.status, 200);
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(args));
      assert.match(res.body.errors[0].message, message);
    }
  }));

Deno.test("connections: aiEmployeesConnection and pendingArtifactsConnection page oldest first", () =>
  withWorkforce(async (ctx) => {
    const employees: string[] = [];
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(60_000);
      employees.push((await createEmployee(ctx)).id);
    }
    const EMPLOYEES = `query($first: Int, $after: String, $last: Int, $before: String) {
      aiEmployeesConnection(first: $first, after: $after, last: $last, before: $before) {
        totalCount nodes { id } ${PAGE} } }`;
    const page = async (args: Record<string, unknown>) =>
      (await asAdmin(ctx, EMPLOYEES, args)).aiEmployeesConnection;
    const first = await page({ first: 2 });
    assert.deepEqual(ids(first), employees.slice(0, 2));
    assert.equal(first.totalCount, 3);
    assert.deepEqual(ids(await page({ after: first.pageInfo.endCursor })), employees.slice(2));
    const last = await page({ last: 1 });
    assert.deepEqual(ids(last), employees.slice(2));
    assert.deepEqual(ids(await page({ last: 5, before: last.pageInfo.startCursor })), [
      ...employees.slice(0, 2),
    ]);
    // The spec's list is the same set.
    assert.deepEqual(
      (await asAdmin(ctx, `{ aiEmployees { id } }`)).aiEmployees.map((e: { id: string }) => e.id),
      employees,
    );

    const artifacts: string[] = [];
    for (const id of employees) {
      ctx.clock.advance(60_000);
      const runId = await completeRun(ctx, id);
      const run = await asAdmin(
        ctx,
        `query($id: String!) { aiRun(id: $id) { artifacts { id } } }`,
        {
          id: runId,
        },
      );
      artifacts.push(run.aiRun.artifacts[0].id);
    }
    const PENDING = `query($first: Int, $after: String, $last: Int, $before: String) {
      pendingArtifactsConnection(first: $first, after: $after, last: $last, before: $before) {
        totalCount nodes { id approvalStatus } ${PAGE} } }`;
    const pending = async (args: Record<string, unknown>) =>
      (await asAdmin(ctx, PENDING, args)).pendingArtifactsConnection;
    const head = await pending({ first: 1 });
    assert.deepEqual(ids(head), artifacts.slice(0, 1));
    assert.equal(head.nodes[0].approvalStatus, "pending");
    assert.equal(head.totalCount, 3);
    assert.deepEqual(ids(await pending({ after: head.pageInfo.endCursor })), artifacts.slice(1));
    const tail = await pending({ last: 2 });
    assert.deepEqual(ids(tail), artifacts.slice(1));
    assert.equal(tail.pageInfo.hasPreviousPage, true);
    assert.deepEqual(
      (await asAdmin(ctx, `{ pendingArtifacts { id } }`)).pendingArtifacts.map((
        a: { id: string },
      ) => a.id),
      artifacts,
    );
  }));

Deno.test("connections: runs nested in employee lists cost a constant number of statements", () =>
  withWorkforce(async (ctx) => {
    const LIST = `{ aiEmployees { id runs(first: 1) { totalCount nodes { id status } ${PAGE} } } }`;
    const PAGED = `{ aiEmployeesConnection(first: 50) { totalCount nodes { id
      runs(last: 2) { totalCount nodes { id artifacts { id } } } } } }`;
    const statements = async (query: string) => {
      await asAdmin(ctx, query);
      return logged(ctx.t.log, "request").at(-1)!.statements as number;
    };
    await employeeWithRuns(ctx, 2);
    await asAdmin(ctx, `{ aiEmployees { id } }`); // warm up (user row)
    const smallList = await statements(LIST);
    const smallPaged = await statements(PAGED);
    for (let i = 0; i < 4; i++) await employeeWithRuns(ctx, 2);
    const large = await asAdmin(ctx, LIST);
    assert.equal(large.aiEmployees.length, 5);
    for (const e of large.aiEmployees) {
      assert.equal(e.runs.nodes.length, 1);
      assert.equal(e.runs.totalCount, 2);
      assert.equal(e.runs.pageInfo.hasNextPage, true);
    }
    const paged = await asAdmin(ctx, PAGED);
    assert.equal(paged.aiEmployeesConnection.totalCount, 5);
    assert.ok(
      paged.aiEmployeesConnection.nodes.every((e: { runs: { nodes: unknown[] } }) =>
        e.runs.nodes.length === 2
      ),
    );
    assert.equal(await statements(LIST), smallList);
    assert.equal(await statements(PAGED), smallPaged);
    assert.ok(smallList <= 6, `aiEmployees with runs used ${smallList} statements`);
  }));
