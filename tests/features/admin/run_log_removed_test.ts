/** The run page of a run whose trace retention removed (AI_RUN_LOG_RETENTION_DAYS), in Chromium. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("admin console: a run whose trace was removed still shows its figures, and says why", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Old Reporter", postFilterSkill: null });
    const runId = await completeRun(ctx, employee.id);
    ctx.clock.advance(91 * 86_400_000);
    const schedule = ctx.t.app.features.workforce.schedules!.find((x) =>
      x.name === "ai_workforce.remove_old_run_logs"
    )!;
    await schedule.run(ctx.clock.now());

    await ctx.open("/admin/sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    await ctx.open(`/admin/ai_runs/${runId}`);
    await page.getByRole("heading", { name: "Trace" }).waitFor();
    const main = await page.locator("main").innerText();
    assert.match(main, /Tokens in \/ out\s*1200 \/ 300/);
    assert.match(main, /Weekly report/, "the artifact is listed");
    const notes = await page.getByRole("note").filter({ hasText: "Removed" }).allInnerTexts();
    assert.equal(notes.length, 2, "under the trace and the execution log");
    assert.match(notes[0], /traces are kept\s+for AI_RUN_LOG_RETENTION_DAYS days/);
    assert.equal(await page.locator("ol.timeline").count(), 0);
    await assertAccessible(page, "run with its trace removed");
  });
});
