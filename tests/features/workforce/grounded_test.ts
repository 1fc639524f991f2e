/**
 * The service's side of grounded work (issue 38): an employee's tools and allowed kinds, what the
 * run request carries (tools, kinds, context, the budget left), and how a result is concluded: a
 * kind outside the list is auto_rejected, unsupported figures are stored and keep an artifact out
 * of auto-approval, a skipped run succeeds without an artifact, and the tool cursor in memory
 * advances only with a success.
 */
import assert from "node:assert/strict";
import {
  asAdmin,
  completeRun,
  createEmployee,
  EMPLOYEE_FIELDS,
  postResult,
  resultBody,
  secondWorkforceService,
  sqlOf,
  triggerRun,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";
import { FEEDBACK_CURSOR_KEY } from "../../../src/platform/contract/mod.ts";
import { gql } from "../../support/graphql.ts";

const FIELDS = `${EMPLOYEE_FIELDS} tools allowedKinds`;

function update(ctx: WorkforceCtx, id: string, vars: Record<string, unknown>) {
  return asAdmin(
    ctx,
    `mutation($id: String!, $tools: [String!], $kinds: [AiArtifactKind!]) {
      updateAiEmployee(employeeId: $id, tools: $tools, allowedKinds: $kinds) {
        employee { ${FIELDS} } errors { code message field } } }`,
    { id, ...vars },
  ).then((d) => d.updateAiEmployee);
}

async function artifactOf(ctx: WorkforceCtx, runId: string) {
  const data = await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { status skippedReason scheduledFor
      artifacts { approvalStatus rejectionReason unsupportedFigures reviewedBy } } }`,
    { id: runId },
  );
  return data.aiRun;
}

Deno.test("grounded: tools and kinds are given, listed and checked; refusals change nothing", () =>
  withWorkforce(async (ctx) => {
    const tools = await asAdmin(ctx, `{ aiEmployeeTools { name description } }`);
    assert.deepEqual(tools.aiEmployeeTools.map((t: { name: string }) => t.name), [
      "activation_funnel",
      "new_feedback",
      "repo",
    ]);
    const created = await asAdmin(
      ctx,
      `mutation { createAiEmployee(name: "Growth", role: "growth_reporter", taskPrompt: "Report",
        tools: ["activation_funnel"], allowedKinds: [report, recommendation]) {
        employee { ${FIELDS} } errors { code } } }`,
    );
    const growth = created.createAiEmployee.employee;
    assert.deepEqual([growth.tools, growth.allowedKinds], [
      ["activation_funnel"],
      ["report", "recommendation"],
    ]);
    const plain = await createEmployee(ctx);
    const row = await asAdmin(ctx, `query($id: String!) { aiEmployee(id: $id) { ${FIELDS} } }`, {
      id: plain.id,
    });
    assert.deepEqual(row.aiEmployee.tools, [], "no tools beyond the built-in ones by default");
    assert.equal(row.aiEmployee.allowedKinds.length, 7, "every kind by default");

    const refusals: [Record<string, unknown>, string][] = [
      [{ tools: ["shell"] }, "tools"],
      [{ tools: ["x".repeat(10_000)] }, "tools"],
      [{ tools: ["new_feedback", "new_feedback"] }, "tools"],
      [{ kinds: [] }, "allowedKinds"],
    ];
    for (const [vars, field] of refusals) {
      const answer = await update(ctx, growth.id, vars);
      assert.equal(answer.employee, null, JSON.stringify(vars).slice(0, 80));
      assert.equal(answer.errors[0].field, field);
    }
    const nul = await gql(
      ctx.t,
      `mutation($id: String!, $tools: [String!]) {
        updateAiEmployee(employeeId: $id, tools: $tools) { errors { code } } }`,
      { id: growth.id, tools: ["new_feedback\u0000"] },
      { token: ctx.admin },
    );
    assert.equal(nul.body.errors[0].extensions.code, "BAD_USER_INPUT");
    const wrongType = await gql(
      ctx.t,
      `mutation { updateAiEmployee(employeeId: "${growth.id}", allowedKinds: [poem]) { errors { code } } }`,
      {},
      { token: ctx.admin },
    );
    assert.match(wrongType.body.errors[0].message, /poem/, "an unknown kind is not an enum value");
    const unchanged = await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { ${FIELDS} } }`,
      {
        id: growth.id,
      },
    );
    assert.deepEqual(unchanged.aiEmployee.tools, ["activation_funnel"]);
    assert.deepEqual(unchanged.aiEmployee.allowedKinds, ["report", "recommendation"]);

    const changed = await update(ctx, growth.id, {
      tools: ["activation_funnel", "new_feedback"],
      kinds: ["report"],
    });
    assert.deepEqual(changed.errors, []);
    assert.deepEqual(changed.employee.tools, ["activation_funnel", "new_feedback"]);
    assert.deepEqual(changed.employee.allowedKinds, ["report"]);

    // The customer support drafter drafts emails and nothing else, however it is written.
    const drafter = await asAdmin(
      ctx,
      `mutation { createAiEmployee(name: "Drafter", role: "customer_support_drafter",
        taskPrompt: "Draft") { employee { ${FIELDS} } errors { code } } }`,
    );
    const drafterRow = drafter.createAiEmployee.employee;
    assert.deepEqual(drafterRow.allowedKinds, ["email_template"]);
    const widened = await update(ctx, drafterRow.id, {
      kinds: ["email_template", "slack_message"],
    });
    assert.equal(widened.employee, null);
    assert.deepEqual(widened.errors.map((e: { field: string }) => e.field), ["allowedKinds"]);
    await assert.rejects(
      sqlOf(ctx)`update ai_employees set allowed_kinds = '{email_template,report}'
        where public_id = ${drafterRow.id}`,
      "the database refuses it too",
    );
  }));

Deno.test("grounded: the run request carries tools, kinds, the moment and the budget left", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { monthlyBudgetCents: 150 });
    await update(ctx, employee.id, { tools: ["new_feedback"], kinds: ["report"] });
    const first = await completeRun(ctx, employee.id, {
      usage: { input_tokens: 10, output_tokens: 10, cost_usd: 0.75, num_turns: 1 },
    });
    const [request] = ctx.runner.runs() as {
      run_id: string;
      employee: Record<string, unknown>;
      context: Record<string, unknown>;
      budget_usd: number;
    }[];
    assert.equal(request.run_id, first);
    assert.deepEqual(request.employee.tools, ["new_feedback"]);
    assert.deepEqual(request.employee.allowed_kinds, ["report"]);
    assert.deepEqual(request.context, {
      now: ctx.clock.now().toISOString(),
      trigger: "manual",
      scheduled_for: null,
      last_succeeded_at: null,
    });
    assert.equal(request.budget_usd, 1, "the per-run cap, when more than that is left");

    ctx.clock.advance(60_000);
    const [{ finished }] = await sqlOf(ctx)<{ finished: Date }[]>`
      select finished_at as finished from ai_runs where public_id = ${first}`;
    await completeRun(ctx, employee.id);
    const second = ctx.runner.runs()[1] as typeof request;
    assert.equal(second.context.last_succeeded_at, finished.toISOString());
    assert.equal(second.budget_usd, 0.75, "1.50 USD cap, 0.75 spent this month");
  }));

Deno.test("grounded: a scheduled run says which slot it is for", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { scheduleCron: "0 9 * * 1" });
    const service = secondWorkforceService(ctx);
    assert.equal(await service.schedulerTick(new Date("2026-01-05T09:02:00Z")), 1);
    await ctx.t.app.jobs.runUntilIdle();
    const [request] = ctx.runner.runs() as { run_id: string; context: Record<string, unknown> }[];
    assert.equal(request.context.trigger, "schedule");
    assert.equal(request.context.scheduled_for, "2026-01-05T09:00:00.000Z");
    assert.equal((await artifactOf(ctx, request.run_id)).scheduledFor, "2026-01-05T09:00:00.000Z");
    assert.equal(employee.scheduleCron, "0 9 * * 1");
  }, { start: "2026-01-05T09:01:00Z" }));

Deno.test("grounded: a kind outside the list is auto_rejected, whatever the autonomy level", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    await update(ctx, employee.id, { kinds: ["report"] });
    await sqlOf(ctx)`
      update ai_employees set autonomy_level = 'autonomous' where public_id = ${employee.id}`;
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "slack_message", title: "To everyone", payload: "Posted by a post." },
    });
    const run = await artifactOf(ctx, runId);
    assert.equal(run.status, "succeeded");
    assert.equal(run.artifacts[0].approvalStatus, "auto_rejected");
    assert.match(run.artifacts[0].rejectionReason, /kind slack_message is not one .*\(report\)/);
    assert.equal(run.artifacts[0].reviewedBy, null, "nobody approved it");
    const pending = await asAdmin(ctx, `{ pendingArtifacts { id } }`);
    assert.deepEqual(pending.pendingArtifacts, []);
    const [{ count }] = await sqlOf(ctx)<{ count: number }[]>`
      select count(*)::int as count from jobs where name like '%deliver%'`;
    assert.equal(count, 0, "nothing is delivered");
  }));

Deno.test("grounded: unsupported figures are stored and keep an artifact from auto-approval", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    await sqlOf(ctx)`
      update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${employee.id}`;
    const invented = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "report",
        title: "Growth",
        payload: "signed_in: 1,240 (+12.5%)",
        metadata: { unsupported_figures: ["1,240", "+12.5%"] },
      },
    });
    const held = await artifactOf(ctx, invented);
    assert.equal(held.artifacts[0].approvalStatus, "pending");
    assert.deepEqual(held.artifacts[0].unsupportedFigures, ["1,240", "+12.5%"]);

    ctx.clock.advance(60_000);
    const grounded = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "report",
        title: "Growth",
        payload: "signed_in: 1",
        metadata: { unsupported_figures: [] },
      },
    });
    const approved = await artifactOf(ctx, grounded);
    assert.equal(approved.artifacts[0].approvalStatus, "approved");
    assert.equal(approved.artifacts[0].reviewedBy, "system");
    assert.deepEqual(approved.artifacts[0].unsupportedFigures, []);
  }));

Deno.test("grounded: a skipped run succeeds without an artifact; the cursor moves only with a success", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const cursorOf = async () => {
      const [row] = await sqlOf(ctx)<{ value: unknown }[]>`
        select m.value from ai_employee_memories m join ai_employees e on e.id = m.employee_id
        where e.public_id = ${employee.id} and m.key = ${FEEDBACK_CURSOR_KEY}`;
      return row?.value ?? null;
    };
    const skipped = await completeRun(ctx, employee.id, {
      artifact: null,
      memory: {},
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, num_turns: 0 },
      run_log: [
        { at: "2026-01-05T12:00:00.000Z", type: "start" },
        { at: "2026-01-05T12:00:00.100Z", type: "skipped", reason: "no sign-ins this week" },
      ],
    });
    const run = await artifactOf(ctx, skipped);
    assert.deepEqual([run.status, run.skippedReason, run.artifacts], [
      "succeeded",
      "no sign-ins this week",
      [],
    ]);

    // A succeeded result without an artifact and without a skip is malformed.
    const { run: bad } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    const malformed = await postResult(ctx, resultBody(bad!.id, { artifact: null }));
    assert.equal(malformed.status, 400);
    await malformed.body?.cancel();

    const failed = await postResult(
      ctx,
      resultBody(bad!.id, {
        status: "failed",
        artifact: null,
        memory: { [FEEDBACK_CURSOR_KEY]: "2026-01-05T11:00:00.000001Z" },
        error: { subtype: "error_during_execution", message: "proxy down" },
      }),
    );
    assert.equal(failed.status, 200);
    await failed.body?.cancel();
    assert.equal(await cursorOf(), null, "a failed run does not move the cursor");

    ctx.clock.advance(60_000);
    await completeRun(ctx, employee.id, {
      memory: { [FEEDBACK_CURSOR_KEY]: "2026-01-05T11:00:00.000001Z" },
    });
    assert.equal(await cursorOf(), "2026-01-05T11:00:00.000001Z");
  }));
