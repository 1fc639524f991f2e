/**
 * AI run traces kept `AI_RUN_LOG_RETENTION_DAYS` (docs/runbook.md "Retention"): older traces are
 * removed in bounded batches; the run, its figures and its artifacts stay, and the API says when
 * the trace went.
 */
import assert from "node:assert/strict";
import { removeOldRunLogs, SYSTEM } from "../../../src/features/workforce/service.ts";
import { logged } from "../../support/app.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  triggerRun,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

const DAY_MS = 86_400_000;

const RUN = `query($id: String!) { aiRun(id: $id) {
  id status trigger finishedAt inputTokens outputTokens numTurns costUsd errorMessage
  runLog executionLog { at type data } runLogRemovedAt
  artifacts { id title approvalStatus } } }`;

const runOf = async (ctx: WorkforceCtx, id: string) => (await asAdmin(ctx, RUN, { id })).aiRun;

const LOG = [
  { at: "2026-01-05T12:00:01.000Z", type: "start", model: "gpt-4o-mini" },
  { at: "2026-01-05T12:00:02.000Z", type: "tool_call", tool: "activation_funnel" },
];

/** The schedule's use case over the test app, with a small batch. */
const removeOld = (ctx: WorkforceCtx, batchSize = 2) =>
  removeOldRunLogs(
    {
      config: ctx.t.deps.config,
      db: ctx.t.deps.db,
      clock: ctx.clock,
      log: ctx.t.log,
    },
    SYSTEM,
    { batchSize },
  );

Deno.test("run log retention: traces of runs that ended before the window go in batches; the runs stay", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { postFilterSkill: null });
    const old: string[] = [];
    for (let i = 0; i < 3; i++) {
      old.push(await completeRun(ctx, employee.id, { run_log: LOG }));
      ctx.clock.advance(60_000);
    }
    // A run that ended without a result has no trace: retention leaves it alone.
    const { run: swept } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    ctx.clock.advance(16 * 60_000);
    assert.ok(await ctx.t.app.jobs.fireSchedule("ai_workforce.stale_sweep", ctx.clock.now()));
    await ctx.t.app.jobs.runUntilIdle();
    const before = await Promise.all([...old, swept!.id].map((id) => runOf(ctx, id)));
    assert.equal(before[3].status, "failed");
    assert.equal(before[3].runLog, null);
    ctx.clock.advance(40 * DAY_MS);
    const recent = await completeRun(ctx, employee.id, { run_log: LOG });
    const recentBefore = await runOf(ctx, recent);

    // 90 days after the first run ended, nothing is due yet.
    ctx.clock.set(new Date(Date.parse(before[0].finishedAt) + 90 * DAY_MS));
    assert.deepEqual(await removeOld(ctx), { rows: 0, more: false });

    // Past the last old run's 90 days: its three traces go, in batches of 2.
    ctx.clock.set(new Date(Date.parse(before[2].finishedAt) + 90 * DAY_MS + 1));
    const removedAt = ctx.clock.now().toISOString();
    assert.deepEqual(await removeOld(ctx), { rows: 3, more: false });
    const [line] = logged(ctx.t.log, "run logs removed");
    assert.equal(line.removed, 3);
    for (const [i, id] of old.entries()) {
      const run = await runOf(ctx, id);
      assert.deepEqual(run, {
        ...before[i],
        runLog: null,
        executionLog: [],
        runLogRemovedAt: removedAt,
      });
      assert.equal(run.status, "succeeded");
      assert.equal(run.artifacts.length, 1, "the artifact stays");
      assert.equal(run.costUsd, 0.0123);
    }
    assert.deepEqual(await runOf(ctx, swept!.id), { ...before[3], runLogRemovedAt: null });
    const kept = await runOf(ctx, recent);
    assert.deepEqual(kept, recentBefore);
    assert.equal(kept.runLog.length, 2);
    assert.equal(kept.executionLog[1].type, "tool_call");

    // The employee's run list and spend still answer; a repeat changes nothing.
    const listed = (await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { runs(first: 10) { nodes { id status costUsd } } } }`,
      { id: employee.id },
    )).aiEmployee.runs.nodes;
    assert.equal(listed.length, 5);
    ctx.clock.advance(DAY_MS);
    assert.deepEqual(await removeOld(ctx), { rows: 0, more: false });
    assert.deepEqual(await removeOld(ctx, 1), { rows: 0, more: false });
    assert.equal(logged(ctx.t.log, "run logs removed").length, 1);
    assert.equal((await runOf(ctx, old[0])).runLogRemovedAt, removedAt, "removed once");
    assert.deepEqual(await runOf(ctx, recent), recentBefore);
  }));

Deno.test("run log retention: the hourly schedule reads AI_RUN_LOG_RETENTION_DAYS; 0 keeps every trace", async () => {
  for (const [days, removed] of [["7", true], ["0", false]] as const) {
    await withWorkforce(async (ctx) => {
      const employee = await createEmployee(ctx, { postFilterSkill: null });
      const id = await completeRun(ctx, employee.id, { run_log: LOG });
      const schedule = ctx.t.app.features.workforce.schedules!.find((x) =>
        x.name === "ai_workforce.remove_old_run_logs"
      )!;
      assert.equal(schedule.cron, "53 * * * *");
      ctx.clock.advance(390 * DAY_MS);
      await schedule.run(ctx.clock.now());
      const run = await runOf(ctx, id);
      assert.equal(run.runLog === null, removed, `AI_RUN_LOG_RETENTION_DAYS=${days}`);
      assert.equal(run.runLogRemovedAt !== null, removed);
      assert.equal(run.executionLog.length, removed ? 0 : 2);
    }, { env: { AI_RUN_LOG_RETENTION_DAYS: days } });
  }
});
