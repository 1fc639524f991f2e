import assert from "node:assert/strict";
import { buildApp } from "../../../src/app.ts";
import { memoryLogger } from "../../../src/platform/log.ts";
import { logged } from "../../support/app.ts";
import { secondPool, TEST_DATABASE_URL } from "../../support/db.ts";
import { createTestJobs, killable } from "../../support/jobs.ts";
import { chatAlertJob } from "../../../src/features/workforce/jobs.ts";
import { sendChat } from "../../../src/features/workforce/use-cases/schedule.ts";
import { SYSTEM } from "../../../src/features/workforce/use-cases/shared.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  secondWorkforceService,
  sqlOf,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

async function runsOf(ctx: WorkforceCtx, employeeId: string) {
  return (await asAdmin(
    ctx,
    `query($id: String!) { aiEmployee(id: $id) { runs { nodes { id status trigger } } } }`,
    { id: employeeId },
  )).aiEmployee.runs.nodes;
}

Deno.test("scheduler: a due slot fires once across two instances; paused and off-slot employees do not run", () =>
  withWorkforce(async (ctx) => {
    const due = await createEmployee(ctx, { scheduleCron: "0 9 * * 1" });
    const later = await createEmployee(ctx, { scheduleCron: "0 10 * * 1" });
    const paused = await createEmployee(ctx, { scheduleCron: "0 9 * * *" });
    await asAdmin(
      ctx,
      `mutation($id: String!) { pauseAiEmployee(employeeId: $id, active: false) { errors { code message field } } }`,
      { id: paused.id },
    );
    // A second instance: its own app, job system and workforce registration on the same database.
    const pool = TEST_DATABASE_URL ? secondPool(ctx.t.deps.db) : undefined;
    const other = buildApp({
      ...ctx.t.deps,
      db: pool ? { ...ctx.t.deps.db, sql: pool } : ctx.t.deps.db,
      log: memoryLogger(),
    });
    try {
      const slot = new Date("2026-01-05T09:00:00Z");
      ctx.clock.set(slot);
      const fired = await Promise.all([
        ctx.t.app.jobs.fireSchedule("ai_workforce.scheduler_tick", slot),
        other.jobs.fireSchedule("ai_workforce.scheduler_tick", slot),
      ]);
      assert.equal(fired.filter(Boolean).length, 1);
      await Promise.all([ctx.t.app.jobs.runUntilIdle(), other.jobs.runUntilIdle()]);
      const runs = await runsOf(ctx, due.id);
      assert.equal(runs.length, 1);
      assert.equal(runs[0].trigger, "schedule");
      assert.equal(runs[0].status, "running");
      assert.deepEqual(await runsOf(ctx, later.id), []);
      assert.deepEqual(await runsOf(ctx, paused.id), []);
      assert.equal(ctx.runner.runs().length, 1);
    } finally {
      await other.stop();
      await pool?.end();
    }
  }, { start: "2026-01-05T08:00:00Z" }));

Deno.test("scheduler: an employee slot is claimed once even if a tick runs again", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { scheduleCron: "*/5 * * * *" });
    const instance = secondWorkforceService(ctx);
    const slot = new Date("2026-01-05T12:00:00Z");
    assert.equal(await instance.schedulerTick(slot), 1);
    await ctx.t.app.jobs.runUntilIdle();
    const [run] = await runsOf(ctx, employee.id);
    const res = await postResult(ctx, resultBody(run.id));
    await res.body?.cancel();
    // The run is over, so only the slot claim stops a second run for the same slot.
    assert.equal(await instance.schedulerTick(slot), 0);
    assert.equal((await runsOf(ctx, employee.id)).length, 1);
    assert.equal(await instance.schedulerTick(new Date(slot.getTime() + 5 * 60_000)), 1);
    assert.equal((await runsOf(ctx, employee.id)).length, 2);
  }));

Deno.test("budget alerts: warning at 80% and critical at 100%, once per month per employee and workforce", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { monthlyBudgetCents: 100 });
    const tick = async () => {
      ctx.clock.advance(3_600_000);
      const hour = new Date(Math.floor(ctx.clock.now().getTime() / 3_600_000) * 3_600_000);
      await ctx.t.app.jobs.fireSchedule("ai_workforce.budget_alerts", hour);
      await ctx.t.app.jobs.runUntilIdle();
      return ctx.chat.requests.map((r) => JSON.parse(r.body).text as string);
    };
    const usage = (cost: number) => ({
      usage: { input_tokens: 1, output_tokens: 1, cost_usd: cost, num_turns: 1 },
    });
    await completeRun(ctx, employee.id, usage(0.79));
    assert.deepEqual(await tick(), []);
    await completeRun(ctx, employee.id, usage(0.01));
    let texts = await tick();
    assert.equal(texts.length, 1);
    assert.match(texts[0], /:warning: AI employee Reporter .* 0\.80 of 1\.00 USD/);
    assert.equal((await tick()).length, 1, "the warning is sent once");
    await completeRun(ctx, employee.id, usage(0.15));
    await completeRun(ctx, employee.id, usage(0.05));
    texts = await tick();
    assert.equal(texts.length, 3);
    assert.match(texts[1], /:rotating_light: AI employee Reporter .* 1\.00 of 1\.00 USD/);
    assert.match(texts[2], /:warning: The AI workforce has spent 1\.00 of 1\.20 USD/);
    assert.equal((await tick()).length, 3, "each level once a month");
    // A new month starts over.
    ctx.clock.set("2026-02-01T00:30:00Z");
    await completeRun(ctx, employee.id, usage(1.0));
    texts = await tick();
    assert.equal(texts.length, 5);
    assert.match(texts[3], /:rotating_light: AI employee/);
    assert.match(texts[4], /:warning: The AI workforce/);
    const [{ rows }] = await sqlOf(ctx)`select count(*)::int as rows from ai_budget_alerts`;
    assert.ok(rows >= 5);
  }, { env: { AI_MONTHLY_BUDGET_USD: "1.2" } }));

Deno.test("budget alerts: a chat URL outside the allowed host is refused and logged", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { monthlyBudgetCents: 100 });
    await completeRun(ctx, employee.id, {
      usage: { input_tokens: 1, output_tokens: 1, cost_usd: 2, num_turns: 1 },
    });
    await ctx.t.app.jobs.fireSchedule("ai_workforce.budget_alerts", ctx.clock.now());
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, 0);
    const refused = logged(ctx.t.log, "chat alert refused: URL not allowed");
    assert.equal(refused.length, 2);
    assert.equal(
      refused[0].reason,
      "chat host 127.0.0.1 refused: only CHAT_WEBHOOK_ALLOWED_HOST (hooks.slack.com) is allowed",
    );
  }, { env: { CHAT_WEBHOOK_ALLOWED_HOST: "hooks.slack.com", AI_MONTHLY_BUDGET_USD: "1" } }));

Deno.test("chat alerts: an alert whose worker is killed right after the post is not posted again", () =>
  withWorkforce(async (ctx) => {
    const sql = sqlOf(ctx);
    const alert = { subject: "workforce", level: "warning" as const, text: "spent 80%" };
    await ctx.t.app.jobs.enqueue(sql, chatAlertJob, alert);
    const victim = killable(ctx.t.deps.db);
    const { jobs, log } = createTestJobs(victim.db, { clock: ctx.clock, concurrency: 1 });
    const deps = { config: ctx.t.deps.config, log, fetch: ctx.t.deps.fetch };
    jobs.handle(chatAlertJob, async (payload, job) => {
      await sendChat(deps, SYSTEM, payload, job);
      victim.kill();
    });
    // The worker's batched completion is never written, as after a kill -9.
    await assert.rejects(jobs.runUntilIdle(), /killed/);
    assert.equal(ctx.chat.requests.length, 1);
    ctx.clock.advance(2 * 60_000);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, 1, "posted once");
    const [{ left }] = await sql`select count(*)::int as left from jobs`;
    assert.equal(left, 0);
  }));
