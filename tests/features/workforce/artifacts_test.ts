/**
 * `aiArtifacts` (the delivery page's list): artifacts newest first, filtered by approval status,
 * delivery status and employee, paged both ways with totalCount, at a constant number of
 * statements; admins only.
 */
import assert from "node:assert/strict";
import { logged } from "../../support/app.ts";
import { runAfterUndoWindow } from "../../support/delivery.ts";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  sqlOf,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

const LIST = `query($approvalStatus: AiApprovalStatus, $deliveryStatus: AiDeliveryStatus,
  $employeeId: String, $first: Int, $after: String, $last: Int, $before: String) {
  aiArtifacts(approvalStatus: $approvalStatus, deliveryStatus: $deliveryStatus,
    employeeId: $employeeId, first: $first, after: $after, last: $last, before: $before) {
    totalCount
    nodes { id kind approvalStatus deliveryStatus deliveryMetadata deliveredAt
      employee { id } run { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

async function list(ctx: WorkforceCtx, vars: Record<string, unknown> = {}) {
  return (await asAdmin(ctx, LIST, vars)).aiArtifacts;
}
const ids = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id);

/** One concluded run of `employeeId` with an artifact of `kind`; its id. */
async function artifactOf(ctx: WorkforceCtx, employeeId: string, kind: string): Promise<string> {
  ctx.clock.advance(60_000);
  const runId = await completeRun(ctx, employeeId, {
    artifact: { kind, title: `A ${kind}`, payload: `The ${kind}.` },
  });
  const data = await asAdmin(ctx, `query($id: String!) { aiRun(id: $id) { artifacts { id } } }`, {
    id: runId,
  });
  return data.aiRun.artifacts[0].id;
}

async function approve(ctx: WorkforceCtx, id: string) {
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code } } }`,
    { id },
  );
  assert.deepEqual(data.approveAiArtifact.errors, []);
  await runAfterUndoWindow(ctx); // the delivery
}

/** Five artifacts: delivered, failed delivery, pending, rejected (employee A); delivered (B). */
async function fixture(ctx: WorkforceCtx) {
  const a = await createEmployee(ctx);
  const b = await createEmployee(ctx);
  const chat = await artifactOf(ctx, a.id, "slack_message");
  await approve(ctx, chat);
  const report = await artifactOf(ctx, a.id, "report");
  await approve(ctx, report); // no GitHub in this harness: the delivery fails
  const pending = await artifactOf(ctx, a.id, "report");
  const rejected = await artifactOf(ctx, a.id, "report");
  const reject = await asAdmin(
    ctx,
    `mutation($id: String!) { rejectAiArtifact(artifactId: $id,
      rejectionReason: "Too vague for the team.") { errors { code } } }`,
    { id: rejected },
  );
  assert.deepEqual(reject.rejectAiArtifact.errors, []);
  const other = await artifactOf(ctx, b.id, "other");
  await approve(ctx, other);
  return { a: a.id, b: b.id, chat, report, pending, rejected, other };
}

Deno.test("aiArtifacts: newest first, filtered by approval status, delivery status and employee", () =>
  withWorkforce(async (ctx) => {
    const f = await fixture(ctx);

    const all = await list(ctx);
    assert.deepEqual(ids(all), [f.other, f.rejected, f.pending, f.report, f.chat]);
    assert.equal(all.totalCount, 5);

    const approved = await list(ctx, { approvalStatus: "approved" });
    assert.deepEqual(ids(approved), [f.other, f.report, f.chat]);
    assert.equal(approved.totalCount, 3);
    const [other, report, chat] = approved.nodes;
    assert.equal(chat.deliveryStatus, "delivered");
    assert.match(chat.deliveredAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(typeof chat.deliveryMetadata, "object");
    assert.notEqual(chat.deliveryMetadata, null);
    assert.equal(report.deliveryStatus, "failed");
    assert.equal(other.deliveryStatus, "delivered");
    assert.equal(other.employee.id, f.b);

    const failed = await list(ctx, { approvalStatus: "approved", deliveryStatus: "failed" });
    assert.deepEqual(ids(failed), [f.report]);
    assert.equal(failed.totalCount, 1);

    const ofA = await list(ctx, { employeeId: f.a });
    assert.deepEqual(ids(ofA), [f.rejected, f.pending, f.report, f.chat]);
    assert.equal(ofA.totalCount, 4);
    const delivered = await list(ctx, { employeeId: f.a, deliveryStatus: "delivered" });
    assert.deepEqual(ids(delivered), [f.chat]);
    assert.deepEqual(ids(await list(ctx, { approvalStatus: "pending" })), [f.pending]);

    // An employeeId that names no employee is an empty list, not an error.
    for (const employeeId of ["AAAAAAAAAAAAAAAAAAAAAA", "not an id", ""]) {
      const none = await list(ctx, { employeeId });
      assert.deepEqual(ids(none), [], employeeId);
      assert.equal(none.totalCount, 0);
    }
  }));

Deno.test("aiArtifacts: pages both ways with stable cursors; bad input is BAD_USER_INPUT", () =>
  withWorkforce(async (ctx) => {
    const f = await fixture(ctx);
    const newest = [f.other, f.rejected, f.pending, f.report, f.chat];
    const first = await list(ctx, { first: 2 });
    assert.deepEqual(ids(first), newest.slice(0, 2));
    assert.equal(first.pageInfo.hasNextPage, true);
    const next = await list(ctx, { first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual(ids(next), newest.slice(2, 4));
    assert.equal(next.pageInfo.hasPreviousPage, true);
    const back = await list(ctx, { last: 2, before: next.pageInfo.startCursor });
    assert.deepEqual(ids(back), newest.slice(0, 2));
    assert.equal(back.pageInfo.hasPreviousPage, false);
    const tail = await list(ctx, { last: 2 });
    assert.deepEqual(ids(tail), newest.slice(3));

    // A newer artifact does not move the second page.
    await artifactOf(ctx, f.b, "report");
    assert.deepEqual(ids(await list(ctx, { first: 2, after: first.pageInfo.endCursor })), [
      ...newest.slice(2, 4),
    ]);

    const bad = [
      { approvalStatus: "approved_ok" },
      { deliveryStatus: "DELIVERED" },
      { after: "not-a-cursor" },
      { first: -1 },
      { first: 1, last: 1 },
    ];
    for (const vars of bad) {
      const res = await gql(ctx.t, LIST, vars, { token: ctx.admin });
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
      assert.equal(res.status < 500, true);
    }
  }));

Deno.test("aiArtifacts: a page costs the same number of statements whatever its size", () =>
  withWorkforce(async (ctx) => {
    const statements = async (vars: Record<string, unknown>) => {
      await list(ctx, vars);
      return logged(ctx.t.log, "request").at(-1)!.statements as number;
    };
    const employee = await createEmployee(ctx);
    await approve(ctx, await artifactOf(ctx, employee.id, "other"));
    await list(ctx); // warm up (the admin's user row)
    const small = await statements({ approvalStatus: "approved" });
    for (let i = 0; i < 4; i++) {
      const other = await createEmployee(ctx);
      await approve(ctx, await artifactOf(ctx, other.id, "other"));
    }
    assert.equal((await list(ctx, { approvalStatus: "approved" })).nodes.length, 5);
    assert.equal(await statements({ approvalStatus: "approved" }), small);
    assert.ok(small <= 6, `aiArtifacts used ${small} statements`);
  }));

Deno.test("aiArtifacts: FORBIDDEN to a user who is not an admin, UNAUTHENTICATED without a session", () =>
  withWorkforce(async (ctx) => {
    const user = await gql(ctx.t, LIST, {}, { token: ctx.user });
    assert.equal(codeOf(user), "FORBIDDEN");
    assert.equal(user.body.data, null);
    assert.equal(codeOf(await gql(ctx.t, LIST, {})), "UNAUTHENTICATED");
  }));

Deno.test("pendingArtifacts answers the oldest 100; the connection pages and counts the backlog", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const sql = sqlOf(ctx);
    const [{ id }] = await sql`select id from ai_employees where public_id = ${employee.id}`;
    await sql`
      with runs as (
        insert into ai_runs (public_id, employee_id, status, trigger, created_at)
        select 'run' || lpad(n::text, 19, '0'), ${id}, 'succeeded', 'manual',
          timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
        from generate_series(1, 102) n
        returning id, public_id, created_at)
      insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
        approval_status, created_at)
      select 'a' || public_id, id, ${id}, 'report', 'Report ' || public_id, 'text', 'pending',
        created_at
      from runs`;
    const { pendingArtifacts, pendingArtifactsConnection } = await asAdmin(
      ctx,
      `{ pendingArtifacts { id } pendingArtifactsConnection(first: 1) { totalCount } }`,
    );
    assert.equal(pendingArtifacts.length, 100);
    assert.equal(pendingArtifacts[0].id, `arun${"1".padStart(19, "0")}`);
    assert.equal(pendingArtifacts[99].id, `arun${"100".padStart(19, "0")}`);
    assert.equal(pendingArtifactsConnection.totalCount, 102);
  }));
