/** AI employees in Chromium: the list with spend against the cap, an employee's page (chart,
 * promotion criteria, memories, runs), trigger a run (already running, budget exceeded), pause
 * and resume, settings errors at their field, a refused promotion, and a run's trace. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertTokensNotInUrls,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("admin console: AI employees, trigger a run, settings and promotion in Chromium", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const ada = await createEmployee(ctx, { name: "Ada Reporter", monthlyBudgetCents: 5000 });
    const runId = await completeRun(ctx, ada.id, {
      run_log: [
        { at: new Date().toISOString(), type: "start", model: "gpt-4o-mini" },
        { at: new Date().toISOString(), type: "tool_call", tool: "sql" },
      ],
    });
    const pending = (await asAdmin(ctx, `{ pendingArtifacts { id } }`)).pendingArtifacts;
    await asAdmin(
      ctx,
      `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code } } }`,
      {
        id: pending[0].id,
      },
    );
    const broke = await createEmployee(ctx, { name: "Bob Broke", monthlyBudgetCents: 1 });
    await completeRun(ctx, broke.id);

    // A deep link survives sign-in.
    await ctx.open("/admin/ai_employees");
    await page.waitForURL(/\/admin\/sign-in$/);
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "AI employees" }).waitFor();
    assert.match(page.url(), /\/admin\/ai_employees$/);
    const row = (name: string) => page.locator("tbody tr", { hasText: name });
    assert.match(
      await row("Ada Reporter").innerText(),
      /active\s+shadow\s+\$0\.0123 of \$50\.00 \(0%\)[\s\S]*succeeded/,
    );
    assert.match(await row("Bob Broke").innerText(), /\$0\.0123 of \$0\.01 \(123%\)\s*cap reached/);
    await assertAccessible(page, "employees");
    await ctx.shoot("admin-employees");

    await row("Ada Reporter").getByRole("link", { name: "Ada Reporter" }).click();
    await page.getByRole("heading", { name: /Ada Reporter/ }).waitFor();
    assert.equal(await page.locator("figure.chart svg rect").count(), 1, "one approved week");
    assert.match(
      await page.locator("figure.chart svg").getAttribute("aria-label") ?? "",
      /1 approved, 0 auto-approved, 0 rejected/,
    );
    assert.match(await page.locator(".memories").innerText(), /last_signups[\s\S]*120/);
    assert.ok((await page.locator("ul.missing li").count()) > 0, "what promotion still misses");
    assert.equal(await page.locator("table tbody tr").count(), 1);

    // Trigger: queued, then already running.
    await page.getByRole("button", { name: "Trigger a run" }).click();
    await page.getByRole("status").filter({ hasText: /is queued/ }).waitFor();
    await page.getByRole("button", { name: "Trigger a run" }).click();
    await page.getByRole("alert").filter({ hasText: "Already running" }).waitFor();
    assert.equal(await page.locator("[data-code=already_running]").count(), 1);
    assert.equal(await page.locator("table tbody tr").count(), 2);

    // Pause and resume, each confirmed in the page.
    await page.getByRole("button", { name: "Pause…" }).click();
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is paused." }).waitFor();
    await page.getByRole("button", { name: "Resume…" }).click();
    await page.getByRole("button", { name: "Resume", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is active again." }).waitFor();

    // Settings: every error at its field; then a valid change.
    await page.getByLabel("Monthly budget (USD)").fill("-5");
    await page.getByLabel(/^Schedule/).fill("every tuesday");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.locator("#setting-monthlyBudgetCents-errors").waitFor();
    assert.match(
      await page.locator("#setting-monthlyBudgetCents-errors").innerText(),
      /Enter an amount in dollars, such as 12\.50\./,
    );
    // Refused in the page: the cron is checked by the service once the budget is fixed.
    await page.getByLabel("Monthly budget (USD)").fill("70");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.locator("#setting-scheduleCron-errors").waitFor();
    assert.match(
      await page.locator("#setting-scheduleCron-errors").innerText(),
      /not a valid cron/,
    );
    assert.equal(
      await page.getByLabel(/^Schedule/).getAttribute("aria-invalid"),
      "true",
    );
    await assertAccessible(page, "employee settings with errors");
    await page.getByLabel("Monthly budget (USD)").fill("70");
    await page.getByLabel(/^Schedule/).fill("0 9 * * 1");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor();
    const saved = (await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { monthlyBudgetCents scheduleCron name } }`,
      {
        id: ada.id,
      },
    )).aiEmployee;
    assert.deepEqual(saved, {
      monthlyBudgetCents: 7000,
      scheduleCron: "0 9 * * 1",
      name: "Ada Reporter",
    });

    // Promotion refused, with the reason shown at the level.
    await page.getByLabel("Autonomy level").selectOption("semi_autonomous");
    await page.getByLabel("I confirm this promotion").check();
    await page.getByRole("button", { name: "Change level" }).click();
    const refusal = page.locator("form.level .errors");
    await refusal.waitFor();
    assert.ok((await refusal.innerText()).length > 10);
    assert.equal(
      (await asAdmin(ctx, `query($id: String!) { aiEmployee(id: $id) { autonomyLevel } }`, {
        id: ada.id,
      })).aiEmployee.autonomyLevel,
      "shadow",
    );
    await assertAccessible(page, "employee");
    await ctx.shoot("admin-employee");

    // The run page: trace as a timeline, execution log, the delivered artifact.
    await page.getByRole("link", { name: runId.slice(0, 8) }).click();
    await page.getByRole("heading", { name: "Trace" }).waitFor();
    const trace = page.locator("ol.timeline").first();
    assert.match(await trace.innerText(), /start[\s\S]*gpt-4o-mini[\s\S]*tool_call[\s\S]*sql/);
    assert.match(await page.locator("main").innerText(), /Execution log/);
    await assertAccessible(page, "run");
    await ctx.shoot("admin-run");

    // Over its cap: the run is refused as such.
    await ctx.open(`/admin/ai_employees/${broke.id}`);
    await page.getByRole("button", { name: "Trigger a run" }).click();
    await page.getByRole("alert").filter({ hasText: "Monthly budget exceeded" }).waitFor();
    assert.equal(await page.locator("[data-code=monthly_budget_exceeded]").count(), 1);

    await assertTokensNotInUrls(ctx, [ctx.admin]);
  });
});
