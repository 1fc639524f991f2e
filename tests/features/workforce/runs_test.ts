import assert from "node:assert/strict";
import { gql, USER_ERRORS, type UserErrorResult } from "../../support/graphql.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  sqlOf,
  triggerRun,
  withWorkforce,
  WORKFORCE_SECRET,
  type WorkforceCtx,
} from "../../support/workforce.ts";
import { verifyHmacSignature } from "../../../src/platform/hmac.ts";
import { setup } from "../../support/setup.ts";
import { closedPort } from "../../support/http.ts";

const RUN = `query($id: String!) { aiRun(id: $id) {
  id status trigger startedAt finishedAt inputTokens outputTokens numTurns costUsd errorMessage
  runLog executionLog { at type data } employee { id }
  artifacts { id kind title approvalStatus payload postFilterReason } } }`;

async function runOf(ctx: WorkforceCtx, id: string) {
  return (await asAdmin(ctx, RUN, { id })).aiRun;
}

Deno.test("workforce: trigger -> signed dispatch -> running -> signed result -> pending artifact", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { postFilterSkill: null });
    const { run, errors } = await triggerRun(ctx, employee.id);
    assert.deepEqual(errors, []);
    assert.equal(run!.status, "queued");
    assert.equal((await runOf(ctx, run!.id)).trigger, "manual");

    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.requests.length, 1);
    const sent = ctx.runner.requests[0];
    assert.equal(sent.method, "POST");
    // DESIGN 3.3: signed over timestamp, method, path and body, at the service's clock.
    const timestamp = sent.headers.get("x-workforce-timestamp");
    assert.equal(timestamp, String(ctx.clock.now().getTime() / 1000));
    assert.ok(
      await verifyHmacSignature(
        WORKFORCE_SECRET,
        `${timestamp}.POST./runs.${sent.body}`,
        sent.headers.get("x-workforce-signature"),
      ),
    );
    const body = JSON.parse(sent.body);
    assert.equal(body.run_id, run!.id);
    assert.equal(body.employee.id, employee.id);
    assert.equal(body.employee.role, employee.role);
    assert.equal(body.employee.task_prompt, "Write the weekly report.");
    assert.deepEqual(body.employee.skills, ["weekly-report"]);
    assert.deepEqual(body.memory, { recent_rejections: [] });
    assert.equal(body.budget_usd, 1);
    assert.equal(body.max_turns, 20);
    const running = await runOf(ctx, run!.id);
    assert.equal(running.status, "running");
    assert.equal(running.startedAt, ctx.clock.now().toISOString());

    ctx.clock.advance(60_000);
    const res = await postResult(ctx, resultBody(run!.id));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const done = await runOf(ctx, run!.id);
    assert.equal(done.status, "succeeded");
    assert.equal(done.inputTokens, 1200);
    assert.equal(done.outputTokens, 300);
    assert.equal(done.numTurns, 2);
    assert.equal(done.costUsd, 0.0123);
    assert.equal(done.finishedAt, ctx.clock.now().toISOString());
    assert.equal(done.executionLog[0].type, "start");
    assert.equal(done.runLog[0].model, "gpt-4o-mini");
    assert.equal(done.artifacts.length, 1);
    assert.equal(done.artifacts[0].approvalStatus, "pending");
    assert.equal(done.artifacts[0].kind, "report");
    const pending = await asAdmin(ctx, `{ pendingArtifacts { id title run { id } } }`);
    assert.deepEqual(pending.pendingArtifacts.map((a: { id: string }) => a.id), [
      done.artifacts[0].id,
    ]);
    const detail = await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { memories { key value } runs { nodes { id status } } } }`,
      { id: employee.id },
    );
    assert.deepEqual(detail.aiEmployee.memories, [{ key: "last_signups", value: 120 }]);
    assert.deepEqual(detail.aiEmployee.runs.nodes, [{ id: run!.id, status: "succeeded" }]);

    // The runner retries: a repeat answers 200 and creates nothing twice.
    const again = await postResult(
      ctx,
      resultBody(run!.id, {
        usage: { input_tokens: 9, output_tokens: 9, cost_usd: 9, num_turns: 9 },
      }),
    );
    assert.equal(again.status, 200);
    assert.equal((await again.json()).duplicate, true);
    const [{ count }] = await sqlOf(ctx)`select count(*)::int as count from ai_artifacts`;
    assert.equal(count, 1);
    assert.equal((await runOf(ctx, run!.id)).costUsd, 0.0123);
  }));

Deno.test("workforce: a failed result stores run_log and the error; max turns is an ordinary failure", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    for (const subtype of ["error_max_turns", "error_max_budget_usd"]) {
      const { run } = await triggerRun(ctx, employee.id);
      await ctx.t.app.jobs.runUntilIdle();
      const res = await postResult(
        ctx,
        resultBody(run!.id, {
          status: "failed",
          artifact: null,
          error: { subtype, message: "limit reached" },
          run_log: [{ at: "2026-01-05T12:00:02.000Z", type: "error", subtype }],
        }),
      );
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const failed = await runOf(ctx, run!.id);
      assert.equal(failed.status, "failed");
      assert.equal(failed.errorMessage, `${subtype}: limit reached`);
      assert.equal(failed.executionLog[0].type, "error");
      assert.deepEqual(failed.artifacts, []);
    }
  }));

Deno.test("workforce: the post-filter's veto creates an auto_rejected artifact", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { postFilterSkill: "brand-voice" });
    const runId = await completeRun(ctx, employee.id, {
      post_filter: { passed: false, reason: "too salesy" },
    });
    const run = await runOf(ctx, runId);
    assert.equal(run.status, "succeeded");
    assert.equal(run.artifacts[0].approvalStatus, "auto_rejected");
    assert.equal(run.artifacts[0].postFilterReason, "too salesy");
    assert.deepEqual((await asAdmin(ctx, `{ pendingArtifacts { id } }`)).pendingArtifacts, []);
    assert.equal(
      ctx.runner.runs()[0].employee &&
        (ctx.runner.runs()[0].employee as { post_filter_skill: string }).post_filter_skill,
      "brand-voice",
    );
  }));

Deno.test("workforce webhook: bad signatures are 401 and leave the run unchanged", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    const body = resultBody(run!.id);
    for (
      const options of [
        { signature: null },
        { signature: "" },
        { signature: "0".repeat(64) },
        { signature: "not-hex" },
        { secret: "another-secret" },
      ]
    ) {
      const res = await postResult(ctx, body, options);
      assert.equal(res.status, 401, JSON.stringify(options));
      await res.body?.cancel();
    }
    // A signature over a different body does not carry over.
    const raw = JSON.stringify(body);
    const { hmacSha256Hex } = await import("../../../src/platform/hmac.ts");
    const res = await postResult(ctx, raw + " ", {
      signature: await hmacSha256Hex(WORKFORCE_SECRET, raw),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
    const current = await runOf(ctx, run!.id);
    assert.equal(current.status, "running");
    assert.deepEqual(current.artifacts, []);
  }));

Deno.test("workforce webhook: an unset secret answers 401 even to a 'signed' body", async () => {
  const s = await setup();
  try {
    const res = await postResult(s, resultBody("a".repeat(22)), { secret: "anything" });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("workforce webhook: malformed is 400, invalid is 400, unknown run_id is 422", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    const cases: [unknown, number][] = [
      ["{not json", 400],
      [[], 400],
      [{ ...resultBody(run!.id), status: "done" }, 400],
      [{ ...resultBody(run!.id), artifact: null }, 400],
      [{ ...resultBody(run!.id), artifact: { kind: "poem", title: "t", payload: "p" } }, 400],
      [{ ...resultBody(run!.id), usage: { input_tokens: "many" } }, 400],
      [{ ...resultBody(run!.id), run_id: 42 }, 400],
      [resultBody("x".repeat(22)), 422],
      [resultBody("1"), 422],
    ];
    for (const [body, status] of cases) {
      const res = await postResult(ctx, body);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
      await res.body?.cancel();
    }
    assert.equal((await runOf(ctx, run!.id)).status, "running");
  }));

Deno.test("workforce: already_running while a run is queued or running; paused employees do not run", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const first = await triggerRun(ctx, employee.id);
    assert.ok(first.run);
    const second = await triggerRun(ctx, employee.id);
    assert.equal(second.run, null);
    assert.equal(second.errors[0].code, "already_running");
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal((await triggerRun(ctx, employee.id)).errors[0].code, "already_running");
    // The index, not only the read, enforces it.
    await assert.rejects(
      sqlOf(ctx)`insert into ai_runs (public_id, employee_id, status, trigger)
        select 'p' || md5(random()::text), id, 'queued', 'manual' from ai_employees`,
      /ai_runs_one_in_flight/,
    );
    const res = await postResult(ctx, resultBody(first.run!.id));
    await res.body?.cancel();
    assert.deepEqual((await triggerRun(ctx, employee.id)).errors, []);

    const other = await createEmployee(ctx);
    const paused = await asAdmin(
      ctx,
      `mutation($id: String!) { pauseAiEmployee(employeeId: $id, active: false) { employee { active } errors { code message field } } }`,
      { id: other.id },
    );
    assert.deepEqual(paused.pauseAiEmployee, { employee: { active: false }, errors: [] });
    const refused = await triggerRun(ctx, other.id);
    assert.equal(refused.run, null);
    assert.equal(refused.errors[0].code, "paused");
    const [{ count }] = await sqlOf(ctx)`
      select count(*)::int as count from ai_runs r join ai_employees e on e.id = r.employee_id
      where e.public_id = ${other.id}`;
    assert.equal(count, 0);
  }));

Deno.test("workforce: monthly_budget_exceeded at the cap, with one chat alert; next month runs again", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { monthlyBudgetCents: 100 });
    await completeRun(ctx, employee.id, {
      usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0.99, num_turns: 1 },
    });
    const under = await triggerRun(ctx, employee.id);
    assert.deepEqual(under.errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    const res = await postResult(
      ctx,
      resultBody(under.run!.id, {
        usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0.01, num_turns: 1 },
      }),
    );
    await res.body?.cancel();
    const before = ctx.chat.requests.length;
    for (let i = 0; i < 2; i++) {
      const over = await triggerRun(ctx, employee.id);
      assert.equal(over.run, null);
      assert.equal(over.errors[0].code, "monthly_budget_exceeded");
    }
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, before + 1);
    assert.match(JSON.parse(ctx.chat.requests.at(-1)!.body).text, /monthly budget/);
    ctx.clock.set("2026-02-01T00:00:00Z");
    assert.deepEqual((await triggerRun(ctx, employee.id)).errors, []);
  }));

Deno.test("workforce: dispatch retries with backoff; three failures fail the run as unreachable", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    ctx.runner.status = 503;
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.runs().length, 1);
    assert.equal((await runOf(ctx, run!.id)).status, "queued");
    ctx.clock.advance(60_000);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.runs().length, 2);
    ctx.clock.advance(60_000);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.runs().length, 3);
    const failed = await runOf(ctx, run!.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.errorMessage, /unreachable after 3 attempts/);
    ctx.clock.advance(3_600_000);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.runner.runs().length, 3);
    const [{ dead }] = await sqlOf(
      ctx,
    )`select count(*)::int as dead from jobs where dead_at is not null`;
    assert.equal(dead, 0);
  }));

Deno.test("workforce: a runner that recovers on the second attempt gets the run", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    ctx.runner.status = 500;
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    ctx.runner.status = 202;
    ctx.clock.advance(60_000);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal((await runOf(ctx, run!.id)).status, "running");
  }));

Deno.test("workforce: a closed runner port fails the run after three attempts", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    for (let i = 0; i < 3; i++) {
      await ctx.t.app.jobs.runUntilIdle();
      ctx.clock.advance(120_000);
    }
    const failed = await runOf(ctx, run!.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.errorMessage, /unreachable/);
  }, { env: { RUNNER_URL: `http://127.0.0.1:${closedPort()}` } }));

Deno.test("workforce: the 15-minute sweep fails runs running for more than 15 minutes", () =>
  withWorkforce(async (ctx) => {
    const a = await createEmployee(ctx);
    const b = await createEmployee(ctx);
    const old = await triggerRun(ctx, a.id);
    await ctx.t.app.jobs.runUntilIdle();
    ctx.clock.advance(10 * 60_000);
    const recent = await triggerRun(ctx, b.id);
    await ctx.t.app.jobs.runUntilIdle();
    ctx.clock.advance(5 * 60_000 + 1);
    assert.ok(await ctx.t.app.jobs.fireSchedule("ai_workforce.stale_sweep", ctx.clock.now()));
    await ctx.t.app.jobs.runUntilIdle();
    const stale = await runOf(ctx, old.run!.id);
    assert.equal(stale.status, "failed");
    assert.match(stale.errorMessage, /^stale/);
    assert.equal((await runOf(ctx, recent.run!.id)).status, "running");
    // A late result for the swept run keeps the run failed but records its usage, once: the
    // month's spend counts what the run cost.
    const spend = async () =>
      (await asAdmin(ctx, `query($id: String!) { aiEmployee(id: $id) { monthSpendUsd } }`, {
        id: a.id,
      })).aiEmployee.monthSpendUsd;
    assert.equal(await spend(), 0);
    const res = await postResult(ctx, resultBody(old.run!.id));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      run_id: old.run!.id,
      status: "failed",
      duplicate: false,
      late: true,
    });
    const late = await runOf(ctx, old.run!.id);
    assert.equal(late.status, "failed");
    assert.match(late.errorMessage, /^stale/);
    assert.equal(late.costUsd, 0.0123);
    assert.deepEqual(late.artifacts, []);
    assert.equal(await spend(), 0.0123);
    const again = await postResult(ctx, resultBody(old.run!.id));
    assert.equal((await again.json()).duplicate, true);
    assert.equal(await spend(), 0.0123);
  }));

Deno.test("workforce: the sweep fails runs queued for more than 15 minutes (dispatch never ran)", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id); // its dispatch job is never run
    ctx.clock.advance(15 * 60_000 + 1);
    assert.ok(await ctx.t.app.jobs.fireSchedule("ai_workforce.stale_sweep", ctx.clock.now()));
    // Only the sweep's own job runs: the dispatch job stays queued behind it for this check.
    const [{ id }] = await sqlOf(
      ctx,
    )`select id from jobs where name = 'schedule:ai_workforce.stale_sweep'`;
    await sqlOf(ctx)`update jobs set run_at = now() + interval '1 day' where id <> ${id}`;
    await ctx.t.app.jobs.runUntilIdle();
    const swept = await runOf(ctx, run!.id);
    assert.equal(swept.status, "failed");
    assert.match(swept.errorMessage, /not dispatched within 15 minutes/);
    // The employee can run again.
    const next = await triggerRun(ctx, employee.id);
    assert.deepEqual(next.errors, []);
  }));

Deno.test("workforce: admin only; non-admins get FORBIDDEN and change nothing", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const ops = [
      `{ aiEmployees { id } }`,
      `{ pendingArtifacts { id } }`,
      `{ aiEmployee(id: "${employee.id}") { id } }`,
      `{ aiRun(id: "${employee.id}") { id } }`,
      `mutation { triggerAiRun(employeeId: "${employee.id}") { errors { code message field } } }`,
      `mutation { cancelAiRun(runId: "${employee.id}") { errors { code message field } } }`,
      `mutation { pauseAiEmployee(employeeId: "${employee.id}", active: false) { errors { code message field } } }`,
      `mutation { updateAiEmployee(employeeId: "${employee.id}", name: "X") { errors { code message field } } }`,
      `mutation { approveAiArtifact(artifactId: "${employee.id}") { errors { code message field } } }`,
      `mutation { rejectAiArtifact(artifactId: "${employee.id}", rejectionReason: "long enough reason") { errors { code message field } } }`,
      `mutation { createAiEmployee(name: "n", role: "r_x", taskPrompt: "p") { errors { code message field } } }`,
    ];
    for (const op of ops) {
      const res = await gql(ctx.t, op, {}, { token: ctx.user });
      assert.equal(res.body.errors?.[0]?.extensions?.code, "FORBIDDEN", op);
    }
    const [{ runs }] = await sqlOf(ctx)`select count(*)::int as runs from ai_runs`;
    assert.equal(runs, 0);
    const list = await asAdmin(ctx, `{ aiEmployees { name active } }`);
    assert.deepEqual(list.aiEmployees, [{ name: "Reporter", active: true }]);
    // Unknown or malformed ids are null lookups and not_found user errors for the admin.
    for (const id of ["nope", "A".repeat(22), "1"]) {
      assert.deepEqual(
        await asAdmin(
          ctx,
          `query($id: String!) { aiEmployee(id: $id) { id } aiRun(id: $id) { id } }`,
          {
            id,
          },
        ),
        { aiEmployee: null, aiRun: null },
      );
      const trigger = await triggerRun(ctx, id);
      assert.deepEqual(trigger, {
        run: null,
        errors: [{
          code: "not_found",
          message: "no AI employee with this id",
          field: "employeeId",
        }],
      });
      const update = await asAdmin(
        ctx,
        `mutation($id: String!) { updateAiEmployee(employeeId: $id, name: "X") { employee { id } ${USER_ERRORS} } }`,
        { id },
      );
      assert.deepEqual(update.updateAiEmployee.errors.map((e: UserErrorResult) => e.field), [
        "employeeId",
      ]);
      assert.equal(update.updateAiEmployee.employee, null);
    }
    assert.deepEqual(
      (await asAdmin(ctx, `{ aiEmployees { name } }`)).aiEmployees,
      [{ name: "Reporter" }],
    );
    const [{ none }] = await sqlOf(ctx)`select count(*)::int as none from ai_runs`;
    assert.equal(none, 0);
  }));
