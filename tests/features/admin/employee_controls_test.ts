/**
 * The console's controls in Chromium: pausing, archiving and an AI flag ask first in the page
 * (Escape and Cancel change nothing, confirming applies); budgets shown and edited in dollars,
 * bad amounts refused at the field; saved schedules in words with their next runs; a run page links
 * its artifact's page and says who reviewed it and when; cancelling a run asks first.
 */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { waitFor } from "../../support/wait.ts";
import type { Page } from "playwright-core";
import { assertAccessible, shootWidths, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee, triggerRun } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim());
/** Focus moves in an effect after the render: wait for it to land on `text`. */
const focusOn = (page: Page, text: string) =>
  waitFor(async () => (await focused(page)) === text, { what: `focus on ${text}` });
/** A time as the console writes it. */
const shown = (iso: string) => iso.replace("T", " ").slice(0, 16) + " UTC";

test("admin console: pause, archive and AI flags confirm in the page; dollars; schedules", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const ada = await createEmployee(ctx, {
      name: "Ada Reporter",
      monthlyBudgetCents: 1250,
      scheduleCron: "0 9 * * *",
    });
    const stored = async () =>
      (await asAdmin(
        ctx,
        `query($id: String!) { aiEmployee(id: $id) { active archivedAt monthlyBudgetCents
          scheduleCron nextRuns } }`,
        { id: ada.id },
      )).aiEmployee;
    const next = ((await stored()).nextRuns as string[]).map(shown);
    assert.equal(next.length, 3);

    await ctx.open("/admin/ai_employees");
    await signIn(ctx, ctx.admin);
    const row = page.locator("tbody tr", { hasText: "Ada Reporter" });
    await row.waitFor();
    const listed = await row.innerText();
    assert.match(listed, /\$0\.00 of \$12\.50 \(0%\)/);
    assert.ok(listed.includes(`every day at 09:00 UTC 0 9 * * *\nnext: ${next[0]}`), listed);
    await shootWidths(ctx, "lists-employees");

    await row.getByRole("link", { name: "Ada Reporter" }).click();
    const schedule = page.locator(".facts .schedule");
    await schedule.waitFor();
    assert.equal(
      await schedule.innerText(),
      `every day at 09:00 UTC 0 9 * * *\nnext: ${next.join(", ")}`,
    );
    assert.match(await page.locator(".facts").first().innerText(), /\$0\.00 of \$12\.50/);

    // Pause: Escape, then Cancel, change nothing; confirming pauses.
    const pause = page.getByRole("button", { name: "Pause…" });
    const question = page.getByRole("alert").filter({
      hasText: "Pause Ada Reporter? No run starts",
    });
    await pause.click();
    await question.waitFor();
    await focusOn(page, "Cancel");
    await shootWidths(ctx, "lists-employee-confirm");
    await page.keyboard.press("Escape");
    await question.waitFor({ state: "detached" });
    await focusOn(page, "Pause…");
    assert.equal((await stored()).active, true);
    await pause.click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await question.waitFor({ state: "detached" });
    assert.equal((await stored()).active, true);
    await pause.click();
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is paused." }).waitFor();
    assert.equal((await stored()).active, false);
    assert.deepEqual((await stored()).nextRuns, []);
    await schedule.filter({ hasText: "no run while paused" }).waitFor();
    await focusOn(page, "Resume…");

    // Archive and back, each confirmed.
    await page.getByRole("button", { name: "Archive…" }).click();
    await page.getByRole("alert").filter({ hasText: "Archive Ada Reporter?" }).waitFor();
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is archived." }).waitFor();
    assert.ok((await stored()).archivedAt);
    assert.equal(await page.getByRole("button", { name: "Resume…" }).count(), 0);
    await page.getByRole("button", { name: "Unarchive…" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    assert.ok((await stored()).archivedAt, "cancelled: still archived");
    await page.getByRole("button", { name: "Unarchive…" }).click();
    await page.getByRole("button", { name: "Unarchive", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is back, paused." }).waitFor();
    await page.getByRole("button", { name: "Resume…" }).click();
    await page.getByRole("button", { name: "Resume", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Ada Reporter is active again." }).waitFor();
    assert.deepEqual(await stored(), {
      active: true,
      archivedAt: null,
      monthlyBudgetCents: 1250,
      scheduleCron: "0 9 * * *",
      nextRuns: (await stored()).nextRuns,
    });

    // The budget in dollars: bad amounts refused at the field, nothing sent; then saved in cents.
    const budget = page.getByLabel("Monthly budget (USD)");
    const budgetErrors = page.locator("#setting-monthlyBudgetCents-errors");
    const save = page.getByRole("button", { name: "Save settings" });
    assert.equal(await budget.inputValue(), "12.50");
    for (
      const [typed, message] of [
        ["12,5", "Enter an amount in dollars, such as 12.50."],
        ["-3", "Enter an amount in dollars, such as 12.50."],
        ["12.345", "Enter an amount in dollars, such as 12.50."],
        ["twelve", "Enter an amount in dollars, such as 12.50."],
        ["100000.01", "Enter at most $100000.00."],
      ]
    ) {
      await budget.fill(typed);
      await save.click();
      await budgetErrors.filter({ hasText: message }).waitFor();
      assert.equal(await budget.getAttribute("aria-invalid"), "true");
    }
    await assertAccessible(page, "employee, a budget refused");
    assert.equal((await stored()).monthlyBudgetCents, 1250);
    await budget.fill("$20.5");
    await save.click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor();
    assert.equal((await stored()).monthlyBudgetCents, 2050);
    assert.equal(await budget.inputValue(), "20.50");
    await page.locator(".facts").first().filter({ hasText: "$0.00 of $20.50" }).waitFor();
    assert.equal(await budgetErrors.count(), 0);

    // Saved, the schedule shows in words (the service's) with its next runs.
    const cron = page.getByLabel(/^Schedule/);
    await cron.fill("30 8 * * 1-5");
    await save.click();
    await schedule.filter({ hasText: "every Monday to Friday at 08:30 UTC" }).waitFor();
    const weekdays = ((await stored()).nextRuns as string[]).map(shown);
    assert.equal(weekdays.length, 3);
    for (const when of weekdays) assert.match(when, / 08:30 UTC$/);
    assert.ok((await schedule.innerText()).endsWith(`next: ${weekdays.join(", ")}`));
    await shootWidths(ctx, "lists-employee");

    // An AI flag: Escape and Cancel change nothing; confirming sets the override.
    const flags = async () =>
      (await asAdmin(ctx, `{ aiFlags { name configured source } }`)).aiFlags
        .find((f: { name: string }) => f.name === "coaching");
    const before = await flags();
    const to = before.configured ? "off" : "on";
    await page.getByRole("link", { name: "AI flags" }).click();
    const coaching = page.locator("tbody tr", { hasText: "coaching" });
    const turn = coaching.getByRole("button", { name: `Turn coaching ${to}…` });
    const ask = coaching.getByRole("alert").filter({
      hasText: `Turn coaching ${to} for every user?`,
    });
    await turn.click();
    await ask.waitFor();
    await shootWidths(ctx, "lists-flags-confirm");
    await page.keyboard.press("Escape");
    await ask.waitFor({ state: "detached" });
    await turn.click();
    await coaching.getByRole("button", { name: "Cancel" }).click();
    await ask.waitFor({ state: "detached" });
    assert.deepEqual(await flags(), before);
    await turn.click();
    await coaching.getByRole("button", { name: `Turn ${to}`, exact: true }).click();
    await page.getByRole("status").filter({ hasText: `coaching is now set ${to}` }).waitFor();
    assert.deepEqual(await flags(), {
      name: "coaching",
      configured: to === "on",
      source: "database",
    });
  });
});

test("admin console: a run links its artifact, with who reviewed it and when", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const adminName = (await ctx.as("admin-1").data(`{ me { username } }`)).me.username;
    const ada = await createEmployee(ctx, { name: "Ada Reporter" });
    const title = "تقرير الأسبوع: sign-ups grew";
    const approvedRun = await completeRun(ctx, ada.id, {
      artifact: { kind: "report", title, payload: "Sign-ups grew 20% this week." },
    });
    const artifactOf = async (runId: string) =>
      (await asAdmin(ctx, `query($id: String!) { aiRun(id: $id) { artifacts { id } } }`, {
        id: runId,
      })).aiRun.artifacts[0].id;
    const approvedId = await artifactOf(approvedRun);
    const approved = (await asAdmin(
      ctx,
      `mutation($id: String!) { approveAiArtifact(artifactId: $id) {
        artifact { reviewedAt } errors { code } } }`,
      { id: approvedId },
    )).approveAiArtifact;
    assert.deepEqual(approved.errors, []);
    const rejectedRun = await completeRun(ctx, ada.id);
    const rejectedId = await artifactOf(rejectedRun);
    const rejected = (await asAdmin(
      ctx,
      `mutation($id: String!) { rejectAiArtifact(artifactId: $id, rejectionReason: "Figures are not sourced.") {
        artifact { reviewedAt } errors { code } } }`,
      { id: rejectedId },
    )).rejectAiArtifact;
    assert.deepEqual(rejected.errors, []);

    await ctx.open(`/admin/ai_runs/${approvedRun}`);
    await signIn(ctx, ctx.admin);
    const row = page.locator(`tr[data-artifact="${approvedId}"]`);
    await row.waitFor();
    const link = row.getByRole("link", { name: title });
    assert.equal(await link.getAttribute("href"), `/admin/artifacts/${approvedId}`);
    assert.equal(await link.locator("span").getAttribute("dir"), "auto");
    assert.equal(
      await row.locator(".review").innerText(),
      `approved by ${adminName} at ${shown(approved.artifact.reviewedAt)}`,
    );
    await shootWidths(ctx, "lists-run");

    await ctx.open(`/admin/ai_runs/${rejectedRun}`);
    const other = page.locator(`tr[data-artifact="${rejectedId}"]`);
    await other.waitFor();
    assert.match(
      await other.locator("td").nth(2).innerText(),
      new RegExp(
        `^rejected by ${adminName} at ${shown(rejected.artifact.reviewedAt)}: ` +
          "Figures are not sourced\\.",
      ),
    );

    // Cancelling a run asks first; keeping it changes nothing.
    const { run } = await triggerRun(ctx, ada.id);
    await ctx.open(`/admin/ai_runs/${run!.id}`);
    const status = async () =>
      (await asAdmin(ctx, `query($id: String!) { aiRun(id: $id) { status errorMessage } }`, {
        id: run!.id,
      })).aiRun;
    await page.getByRole("button", { name: "Cancel the run…" }).click();
    await page.getByRole("alert").filter({ hasText: "Cancel this run?" }).waitFor();
    await page.getByRole("button", { name: "Keep it running" }).click();
    assert.equal((await status()).status, "queued");
    await page.getByRole("button", { name: "Cancel the run…" }).click();
    await page.getByRole("button", { name: "Cancel the run", exact: true }).click();
    await page.getByRole("button", { name: "Cancel the run…" }).waitFor({ state: "detached" });
    assert.deepEqual(await status(), {
      status: "failed",
      errorMessage: "cancelled: by an admin before the runner started it",
    });
  });
});
