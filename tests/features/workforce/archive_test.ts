/**
 * Archiving an AI employee: not scheduled, not triggerable, not editable; its history stays; a
 * queued run fails at once, a running one finishes and its artifact waits for a person.
 */
import assert from "node:assert/strict";
import { gql } from "../../support/graphql.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  sqlOf,
  triggerRun,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

const ARCHIVE = `mutation($id: String!) { archiveAiEmployee(employeeId: $id) {
  employee { id active archivedAt } errors { code message field } } }`;
const UNARCHIVE = `mutation($id: String!) { unarchiveAiEmployee(employeeId: $id) {
  employee { id active archivedAt } alreadyUnarchived errors { code message field } } }`;
const PAUSE =
  `mutation($id: String!, $active: Boolean!) { pauseAiEmployee(employeeId: $id, active: $active) {
  employee { id active } errors { code message field } } }`;
const UPDATE = `mutation($id: String!) { updateAiEmployee(employeeId: $id, name: "Renamed") {
  employee { id name } errors { code message field } } }`;
const RUNS = `query($id: String!) { aiEmployee(id: $id) {
  archivedAt runs { nodes { id status errorMessage artifacts { approvalStatus } } } } }`;

const archive = async (ctx: WorkforceCtx, id: string) =>
  (await asAdmin(ctx, ARCHIVE, { id })).archiveAiEmployee;

Deno.test("archive: keeps history, refuses triggers, edits and resuming; unarchive brings it back paused", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { autonomyLevel: undefined });
    const done = await completeRun(ctx, employee.id);

    // Not an admin, unknown and malformed ids: refused, nothing changes.
    const asUser = await gql(ctx.t, ARCHIVE, { id: employee.id }, { token: ctx.user });
    assert.equal(asUser.body?.errors?.[0]?.extensions?.code, "FORBIDDEN");
    for (const id of ["x".repeat(22), "nope"]) {
      assert.deepEqual((await archive(ctx, id)).errors, [
        { code: "not_found", message: "no AI employee with this id", field: "employeeId" },
      ]);
    }
    assert.equal((await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee.archivedAt, null);

    const archived = await archive(ctx, employee.id);
    assert.deepEqual(archived.errors, []);
    assert.equal(archived.employee.active, false);
    assert.equal(archived.employee.archivedAt, ctx.clock.now().toISOString());
    // A retry answers the archived employee as it is, with the flag.
    const again = (await asAdmin(ctx, ARCHIVE.replace("errors", "alreadyArchived errors"), {
      id: employee.id,
    })).archiveAiEmployee;
    assert.deepEqual(again, { ...archived, alreadyArchived: true });

    const refusal = { code: "archived", field: "employeeId" };
    const pick = (e: { code: string; field: string | null }) => ({ code: e.code, field: e.field });
    assert.deepEqual((await triggerRun(ctx, employee.id)).errors.map(pick), [refusal]);
    for (const active of [true, false]) {
      const out = (await asAdmin(ctx, PAUSE, { id: employee.id, active })).pauseAiEmployee;
      assert.deepEqual(out.errors.map(pick), [refusal]);
    }
    assert.deepEqual(
      (await asAdmin(ctx, UPDATE, { id: employee.id })).updateAiEmployee.errors.map(pick),
      [refusal],
    );
    // History stays: the run and its artifact.
    const history = (await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee;
    assert.equal(history.runs.nodes.length, 1);
    assert.equal(history.runs.nodes[0].id, done);
    assert.equal(history.runs.nodes[0].artifacts.length, 1);

    // The database refuses an archived employee that is active, whatever writes it.
    await assert.rejects(
      sqlOf(ctx)`update ai_employees set active = true where public_id = ${employee.id}`,
    );

    const back = (await asAdmin(ctx, UNARCHIVE, { id: employee.id })).unarchiveAiEmployee;
    assert.deepEqual(back.errors, []);
    assert.deepEqual({ active: back.employee.active, archivedAt: back.employee.archivedAt }, {
      active: false,
      archivedAt: null,
    });
    // Again: the employee as it is, nothing changed.
    assert.deepEqual((await asAdmin(ctx, UNARCHIVE, { id: employee.id })).unarchiveAiEmployee, {
      ...back,
      alreadyUnarchived: true,
    });
    assert.deepEqual(
      (await asAdmin(ctx, PAUSE, { id: employee.id, active: true })).pauseAiEmployee.errors,
      [],
    );
    assert.deepEqual((await triggerRun(ctx, employee.id)).errors, []);
  }));

Deno.test("archive: a queued run fails at once and is never sent; the scheduler skips the employee", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { scheduleCron: "*/5 * * * *" });
    const { run } = await triggerRun(ctx, employee.id);
    assert.deepEqual((await archive(ctx, employee.id)).errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(ctx.runner.runs(), []);
    const [failed] = (await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee.runs.nodes;
    assert.equal(failed.id, run!.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.errorMessage, /^archived: /);

    const slot = new Date(ctx.clock.now().getTime() + 10 * 60_000);
    ctx.clock.set(slot);
    await ctx.t.app.jobs.fireSchedule("ai_workforce.scheduler_tick", slot);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal((await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee.runs.nodes.length, 1);
  }));

Deno.test("archive: a running run finishes; its artifact waits for review even when autonomous", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    // Autonomous employees approve their reports without review (set directly: the criteria
    // need weeks of history).
    await sqlOf(ctx)`
      update ai_employees set autonomy_level = 'autonomous' where public_id = ${employee.id}`;
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.runs().length, 1);
    assert.deepEqual((await archive(ctx, employee.id)).errors, []);
    const res = await postResult(ctx, resultBody(run!.id));
    await res.body?.cancel();
    assert.equal(res.status, 200);
    await ctx.t.app.jobs.runUntilIdle();
    const [finished] = (await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee.runs.nodes;
    assert.equal(finished.status, "succeeded");
    assert.deepEqual(finished.artifacts, [{ approvalStatus: "pending" }]);
  }));

Deno.test("archive: a trigger racing the archive either queues a run first or is refused", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const [triggered, archived] = await Promise.all([
      triggerRun(ctx, employee.id),
      archive(ctx, employee.id),
    ]);
    assert.deepEqual(archived.errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    const runs = (await asAdmin(ctx, RUNS, { id: employee.id })).aiEmployee.runs.nodes;
    if (triggered.run) {
      // Queued before the archive: failed by it, or (a worker was quicker) already with the
      // runner, which then finishes it.
      const sent = ctx.runner.runs().length;
      assert.deepEqual(runs.map((r: { status: string }) => r.status), [
        sent ? "running" : "failed",
      ]);
    } else {
      assert.equal(triggered.errors[0].code, "archived");
      assert.deepEqual(runs, []);
    }
  }));
