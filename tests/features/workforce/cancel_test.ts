/**
 * Cancelling a run (spec 4.8, cooperative): `cancelAiRun` fails a queued run at once, asks the
 * runner to cancel a running one and records the outcome the runner reports; what the runner
 * answers (accepted, unknown run, already finished, unreachable) decides the payload.
 */
import assert from "node:assert/strict";
import { gql } from "../../support/graphql.ts";
import { logged } from "../../support/app.ts";
import { reply } from "../../support/fake-llm.ts";
import { waitFor } from "../../support/wait.ts";
import type { UserErrorResult } from "../../support/graphql.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  setupWithRealRunner,
  sqlOf,
  triggerRun,
  withWorkforce,
  WORKFORCE_SECRET,
  type WorkforceCtx,
} from "../../support/workforce.ts";
import { verifyHmacSignature } from "../../../src/platform/hmac.ts";

const CANCEL = `mutation($id: String!) { cancelAiRun(runId: $id) {
  run { id status errorMessage cancelRequestedAt finishedAt costUsd } errors { code message field } } }`;

async function cancel(ctx: WorkforceCtx, id: string) {
  return (await asAdmin(ctx, CANCEL, { id })).cancelAiRun as {
    run: {
      id: string;
      status: string;
      errorMessage: string | null;
      cancelRequestedAt: string | null;
      finishedAt: string | null;
      costUsd: number;
    };
    errors: UserErrorResult[];
  };
}

async function runStatus(ctx: WorkforceCtx, id: string) {
  return (await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { status errorMessage cancelRequestedAt } }`,
    { id },
  )).aiRun;
}

/** A run the fake runner has accepted (status running). */
async function runningRun(ctx: WorkforceCtx): Promise<{ runId: string; employeeId: string }> {
  const employee = await createEmployee(ctx);
  const { run } = await triggerRun(ctx, employee.id);
  await ctx.t.app.jobs.runUntilIdle();
  assert.equal((await runStatus(ctx, run!.id)).status, "running");
  return { runId: run!.id, employeeId: employee.id };
}

Deno.test("cancel: a queued run fails at once as cancelled and is never sent to the runner", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    const out = await cancel(ctx, run!.id);
    assert.deepEqual(out.errors, []);
    assert.equal(out.run.status, "failed");
    assert.match(out.run.errorMessage!, /^cancelled: /);
    assert.ok(out.run.cancelRequestedAt && out.run.finishedAt);

    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(ctx.runner.runs(), []);
    assert.deepEqual(ctx.runner.cancels(), []);
    // The employee may run again.
    assert.deepEqual((await triggerRun(ctx, employee.id)).errors, []);
  }));

Deno.test("cancel: a run cancelled while its dispatch is in flight is cancelled on the runner too", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    let during: Awaited<ReturnType<typeof cancel>> | null = null;
    ctx.runner.beforeStart = async (runId) => {
      during = await cancel(ctx, runId);
    };
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(during!.errors, []);
    assert.equal(during!.run.status, "failed");
    assert.deepEqual(ctx.runner.cancels(), [run!.id]);
    assert.equal((await runStatus(ctx, run!.id)).status, "failed");
  }));

Deno.test("cancel: the runner accepts; the run stays running until its cancelled result, cost kept", () =>
  withWorkforce(async (ctx) => {
    const { runId, employeeId } = await runningRun(ctx);
    const out = await cancel(ctx, runId);
    assert.deepEqual(out.errors, []);
    assert.equal(out.run.status, "running");
    assert.ok(out.run.cancelRequestedAt);
    assert.deepEqual(ctx.runner.cancels(), [runId]);
    const sent = ctx.runner.requests.find((r) => r.path.endsWith("/cancel"))!;
    assert.match(sent.headers.get("x-workforce-signature") ?? "", /^[0-9a-f]{64}$/);

    // Asking again is harmless: the same request time.
    const again = await cancel(ctx, runId);
    assert.deepEqual(again.errors, []);
    assert.equal(again.run.cancelRequestedAt, out.run.cancelRequestedAt);
    // Each cancel is signed for its run and moment (DESIGN 3.3): asked again within the same
    // second, the copy carries the next second, so the runner does not take it for a replay.
    const cancels = ctx.runner.requests.filter((r) => r.path.endsWith("/cancel"));
    const stamps = cancels.map((r) => Number(r.headers.get("x-workforce-timestamp")));
    const second = Math.floor(ctx.clock.now().getTime() / 1000);
    assert.deepEqual(stamps, [second, second + 1]);
    for (const [i, request] of cancels.entries()) {
      assert.ok(
        await verifyHmacSignature(
          WORKFORCE_SECRET,
          `${stamps[i]}.POST./runs/${runId}/cancel.`,
          request.headers.get("x-workforce-signature"),
        ),
      );
    }

    // The employee stays busy until the runner reports.
    assert.equal((await triggerRun(ctx, employeeId)).errors[0].code, "already_running");
    await completeRunResult(ctx, runId);
    const after = await runStatus(ctx, runId);
    assert.equal(after.status, "failed");
    assert.equal(after.errorMessage, "cancelled: cancelled on request");
    const [row] = await sqlOf(ctx)`
      select cost_usd::float8 as cost from ai_runs where public_id = ${runId}`;
    assert.equal(row.cost, 0.004);
    assert.deepEqual(
      (await asAdmin(ctx, `query($id: String!) { aiRun(id: $id) { artifacts { id } } }`, {
        id: runId,
      })).aiRun.artifacts,
      [],
    );
  }));

/** Posts the runner's result for a cancelled run (DESIGN 3.4 shape). */
async function completeRunResult(ctx: WorkforceCtx, runId: string) {
  const res = await postResult(
    ctx,
    resultBody(runId, {
      status: "failed",
      artifact: null,
      error: { subtype: "cancelled", message: "cancelled on request" },
      usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.004, num_turns: 1 },
    }),
  );
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

Deno.test("cancel: a run the runner no longer has (404) fails here as cancelled", () =>
  withWorkforce(async (ctx) => {
    const { runId } = await runningRun(ctx);
    ctx.runner.cancelStatus = 404;
    const out = await cancel(ctx, runId);
    assert.deepEqual(out.errors, []);
    assert.equal(out.run.status, "failed");
    assert.match(out.run.errorMessage!, /^cancelled: .*no longer had the run/);
    assert.ok(out.run.cancelRequestedAt);
    assert.equal(logged(ctx.t.log, "run cancelled: the runner no longer has it").length, 1);
  }));

Deno.test("cancel: a run the runner already finished (409) is refused; its result still lands", () =>
  withWorkforce(async (ctx) => {
    const { runId } = await runningRun(ctx);
    ctx.runner.cancelStatus = 409;
    const out = await cancel(ctx, runId);
    assert.equal(out.errors.length, 1);
    assert.equal(out.errors[0].code, "already_finished");
    assert.equal(out.errors[0].field, "runId");
    assert.equal(out.run, null);
    const during = await runStatus(ctx, runId);
    assert.equal(during.status, "running");
    assert.equal(during.cancelRequestedAt, null);
    const res = await postResult(ctx, resultBody(runId));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const after = await runStatus(ctx, runId);
    assert.equal(after.status, "succeeded");
    assert.equal(after.errorMessage, null);
  }));

Deno.test("cancel: an unreachable or failing runner leaves the run running with an error", async () => {
  for (const fault of ["gone", "503"]) {
    await withWorkforce(async (ctx) => {
      const { runId } = await runningRun(ctx);
      if (fault === "503") ctx.runner.cancelStatus = 503;
      else await ctx.runner.close();
      const out = await cancel(ctx, runId);
      assert.equal(out.errors.length, 1);
      assert.equal(out.errors[0].code, "runner_unreachable");
      assert.match(out.errors[0].message, /the run continues$/);
      assert.equal(out.run, null);
      const after = await runStatus(ctx, runId);
      assert.equal(after.status, "running");
      assert.equal(after.cancelRequestedAt, null);
    });
  }
});

Deno.test("cancel: finished runs, unknown ids and non-admins change nothing", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const runId = await completeRun(ctx, employee.id);
    const out = await cancel(ctx, runId);
    assert.deepEqual(out.errors, [
      { code: "not_cancellable", message: "the run has already succeeded", field: "runId" },
    ]);
    assert.equal(out.run, null);
    assert.equal((await runStatus(ctx, runId)).status, "succeeded");
    assert.deepEqual(ctx.runner.cancels(), []);

    const nul = await gql(ctx.t, CANCEL, { id: "\u0000" }, { token: ctx.admin });
    assert.equal(nul.body.errors[0].extensions.code, "BAD_USER_INPUT", "the text rule refuses it");
    for (const id of ["nope", "A".repeat(22), ""]) {
      const unknown = await cancel(ctx, id);
      assert.deepEqual(unknown, {
        run: null,
        errors: [{ code: "not_found", message: "no AI run with this id", field: "runId" }],
      }, JSON.stringify(id));
    }
    const { run } = await triggerRun(ctx, employee.id);
    const res = await gql(ctx.t, CANCEL, { id: run!.id }, { token: ctx.user });
    assert.equal(res.body.errors[0].extensions.code, "FORBIDDEN");
    assert.equal((await runStatus(ctx, run!.id)).status, "queued");
  }));

Deno.test("cancel: end to end with the real runner, a model call in flight is stopped and the cancelled result recorded", async () => {
  const ctx = await setupWithRealRunner();
  const tr = ctx.tr;
  try {
    const employee = await createEmployee(ctx, { skills: ["weekly-report"] });
    tr.llm.script(
      reply.toolCall("remember", { key: "k", value: 1 }, { costUsd: 0.01 }),
      reply.submit({ kind: "report", title: "never", payload: "never" }, { delayMs: 60_000 }),
    );
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    await waitFor(() => tr.llm.calls.length === 2, { what: "the second, slow model call" });

    const out = await cancel(ctx, run!.id);
    assert.deepEqual(out.errors, []);
    assert.equal(out.run.status, "running");
    // Asked again at the same moment: the runner takes the second, signed a second later, as a
    // new request, not a replay.
    assert.deepEqual((await cancel(ctx, run!.id)).errors, []);
    await tr.runner.idle();
    assert.ok(!tr.log.entries.some((e) => e.msg === "signed request refused"));

    const after = await runStatus(ctx, run!.id);
    assert.equal(after.status, "failed");
    assert.match(after.errorMessage, /^cancelled: /);
    assert.ok(after.cancelRequestedAt);
    const [row] = await sqlOf(ctx)`
      select cost_usd::float8 as cost, num_turns as turns from ai_runs where public_id = ${
      run!.id
    }`;
    assert.ok(row.cost >= 0.01, `cost of the first turn kept: ${row.cost}`);
    const [{ n }] = await sqlOf(ctx)`select count(*)::int as n from ai_artifacts`;
    assert.equal(n, 0);
  } finally {
    await ctx.close();
  }
});
