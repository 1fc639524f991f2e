/** The console at phone width (390 px) and desktop width (1440 px) in Chromium: no page scrolls
 * sideways, the navigation folds into a menu button that opens and closes it (mouse and keyboard),
 * and keyboard-shortcut hints are hidden on a touch screen. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - globalThis.innerWidth);

test("admin console: every page fits 390 px and 1440 px; the menu folds the navigation", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const ada = await createEmployee(ctx, {
      name: "Ada Reporter with a rather long name for a phone",
      monthlyBudgetCents: 5000,
    });
    const runId = await completeRun(ctx, ada.id, {
      artifact: {
        kind: "report",
        title: "Weekly report",
        payload: `Sign-ups grew 20% this week. ${
          "x".repeat(300)
        }\n\n| a | b | c | d |\n|---|---|---|---|\n| ${"wide ".repeat(30)} | 2 | 3 | 4 |`,
      },
    });
    const created = await ctx.as("user-1").data(
      `mutation { createFeedbackPost(title: "Dark mode please", category: feature,
        description: "The app is **too bright** at night.") { post { id } errors { code } } }`,
    );
    const postId = created.createFeedbackPost.post.id;
    ctx.t.app.jobs.handle("sync", () => {
      throw new Error(`remote down: ${"a long error message ".repeat(20)}`);
    });
    await ctx.t.app.jobs.enqueue(ctx.t.deps.db.sql, "sync", { n: 1 }, { maxAttempts: 1 });
    await ctx.t.app.jobs.runUntilIdle();
    const [artifact] = (await asAdmin(ctx, `{ pendingArtifacts { id } }`)).pendingArtifacts;
    assert.ok(artifact);

    const pages: [string, string, string][] = [
      ["review", "/admin/", "Review board"],
      ["artifact", `/admin/artifacts/${artifact.id}`, "Weekly report"],
      ["employees", "/admin/ai_employees", "AI employees"],
      ["employee", `/admin/ai_employees/${ada.id}`, ada.name as string],
      ["run", `/admin/ai_runs/${runId}`, "Run"],
      ["feedback", "/admin/feedback_posts", "Feedback triage"],
      ["feedback-post", `/admin/feedback_posts/${postId}`, "Dark mode please"],
      ["deliveries", "/admin/deliveries", "Deliver"],
      ["jobs", "/admin/jobs", "Dead set"],
      ["flags", "/admin/ai_flags", "AI flags"],
      ["reports", "/admin/reports", "Report"],
      ["backups", "/admin/backups", "Backup"],
    ];

    await page.setViewportSize({ width: 390, height: 844 });
    await ctx.open("/admin/sign-in");
    assert.ok((await overflow(page)) <= 0, "sign-in fits 390 px");
    await ctx.shoot("phone-sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();

    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const [name, path, heading] of pages) {
        await ctx.open(path);
        await page.getByRole("heading", { name: heading }).first().waitFor();
        await page.locator("main").getByText("Loading…").waitFor({ state: "detached" });
        assert.ok((await overflow(page)) <= 0, `${name} scrolls sideways at ${width} px`);
        if (width === 390) {
          await assertAccessible(page, `${name} at 390 px`);
          await ctx.shoot(`phone-${name}`);
        }
      }
    }

    // Phone width: the links sit behind the menu button, which opens and closes them.
    await page.setViewportSize({ width: 390, height: 844 });
    await ctx.open("/admin/ai_employees");
    const menu = page.getByRole("button", { name: "Menu" });
    const jobs = page.getByRole("navigation", { name: "Console" }).getByRole("link", {
      name: "Jobs",
    });
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    assert.equal(await jobs.isVisible(), false);
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await jobs.waitFor();
    assert.ok((await overflow(page)) <= 0, "the open menu fits 390 px");
    await assertAccessible(page, "open menu at 390 px");
    await ctx.shoot("phone-menu-open");
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    await jobs.waitFor({ state: "hidden" });

    // By keyboard: Enter opens, Tab reaches a link, Escape closes and returns to the button.
    await menu.focus();
    await page.keyboard.press("Enter");
    await jobs.waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Review");
    await page.keyboard.press("Escape");
    await jobs.waitFor({ state: "hidden" });
    assert.equal(await menu.evaluate((el) => el === document.activeElement), true);
    // Following a link closes the menu on the new page.
    await menu.click();
    await jobs.click();
    await page.getByRole("heading", { name: "Dead set" }).waitFor();
    assert.equal(await menu.getAttribute("aria-expanded"), "false");

    // Desktop width: no menu button, the links in the header.
    await page.setViewportSize({ width: 1440, height: 900 });
    assert.equal(await menu.isVisible(), false);
    assert.equal(await jobs.isVisible(), true);

    // Shortcut hints: shown with a mouse, hidden on a touch screen.
    await ctx.open("/admin/");
    const hints = page.getByText("Keyboard shortcuts");
    await hints.waitFor();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 5 });
    await cdp.send("Emulation.setEmitTouchEventsForMouse", { enabled: true });
    assert.equal(await page.evaluate(() => matchMedia("(pointer: coarse)").matches), true);
    await hints.waitFor({ state: "hidden" });
  });
});
