/** Grounded work in Chromium: unsupported figures beside an artifact on the review board and the
 * run page, a skipped run, and an employee's tools and kinds edited on its page. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { waitFor } from "../../support/wait.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("admin console: unsupported figures beside the artifact, a skipped run, tools and kinds", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Grace Growth" });
    const invented = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "report",
        title: "Growth this week",
        payload: "# Growth\n\nsigned_in: 1,240 (+12.5%)",
        metadata: { unsupported_figures: ["1,240", "+12.5%"] },
      },
    });
    ctx.clock.advance(60_000);
    await completeRun(ctx, employee.id, {
      artifact: {
        kind: "report",
        title: "Growth, grounded",
        payload: "signed_in: 1",
        metadata: { unsupported_figures: [] },
      },
    });
    ctx.clock.advance(60_000);
    const skipped = await completeRun(ctx, employee.id, {
      artifact: null,
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, num_turns: 0 },
      run_log: [{ at: ctx.clock.now().toISOString(), type: "skipped", reason: "nobody signed in" }],
    });

    await ctx.open("/admin/sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    const card = (title: string) =>
      page.locator("article.card", { has: page.getByRole("heading", { name: title }) });
    await card("Growth this week").waitFor();
    const warning = card("Growth this week").getByRole("note", { name: "unsupported figures" });
    assert.match(await warning.innerText(), /2 figures found in none of the run's sources/);
    assert.deepEqual(await warning.locator("li").allInnerTexts(), ["1,240", "+12.5%"]);
    assert.match(
      await card("Growth, grounded").locator(".grounding").innerText(),
      /Every figure in it was found/,
    );
    await assertAccessible(page, "review board with unsupported figures");
    await ctx.shoot("admin-review-unsupported-figures");

    await warning.getByRole("link", { name: "run's trace" }).click();
    await page.getByRole("heading", { name: /^Run / }).waitFor();
    assert.match(
      await page.getByRole("note", { name: "unsupported figures" }).innerText(),
      /1,240/,
    );
    assert.ok(page.url().endsWith(`/ai_runs/${invented}`));

    await ctx.open(`/admin/ai_runs/${skipped}`);
    const note = page.locator("p.skipped");
    await note.waitFor();
    assert.match(await note.innerText(), /Skipped before any model call: nobody signed in/);
    assert.match(await page.locator("#run-title").innerText(), /skipped/);

    await ctx.open(`/admin/ai_employees/${employee.id}`);
    await page.getByRole("heading", { name: "Tools and kinds" }).waitFor();
    await page.getByRole("checkbox", { name: /activation_funnel/ }).check();
    await page.getByRole("checkbox", { name: /^repo / }).check();
    await page.getByLabel("MCP tools").fill("mcp__docs__search, mcp__tracker");
    await page.getByRole("checkbox", { name: "slack_message" }).uncheck();
    await page.getByRole("button", { name: "Save tools and kinds" }).click();
    await page.getByText("Tools and kinds saved.").waitFor();
    const saved = await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { tools allowedKinds } }`,
      {
        id: employee.id,
      },
    );
    assert.deepEqual(saved.aiEmployee.tools, [
      "activation_funnel",
      "repo",
      "mcp__docs__search",
      "mcp__tracker",
    ]);
    assert.ok(!saved.aiEmployee.allowedKinds.includes("slack_message"));
    assert.equal(saved.aiEmployee.allowedKinds.length, 6);

    for (const kind of saved.aiEmployee.allowedKinds) {
      await page.getByRole("checkbox", { name: kind, exact: true }).uncheck();
    }
    await page.getByRole("button", { name: "Save tools and kinds" }).click();
    const refusal = page.locator("form.tools .errors, form.tools .field-error").first();
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /at least one kind/);
    await waitFor(async () =>
      (await asAdmin(ctx, `query($id: String!) { aiEmployee(id: $id) { allowedKinds } }`, {
        id: employee.id,
      })).aiEmployee.allowedKinds.length === 6
    );
    await assertAccessible(page, "employee page with tools and kinds");
    await ctx.shoot("admin-employee-tools-kinds");
  });
});
