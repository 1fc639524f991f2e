/** Feedback triage, dead jobs and AI flags in Chromium: the export's `admin_url` opens the post,
 * status changes and filters, retry and discard of dead jobs (one, or in bulk by kind; discarding
 * and retrying several confirmed), the flag override. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertTokensNotInUrls,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { signedPost } from "../../support/signed.ts";
import { asAdmin, WORKFORCE_SECRET } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("admin console: feedback admin_url, triage, dead jobs and AI flags in Chromium", async () => {
  await withConsole(async (ctx) => {
    const { page, t } = ctx;
    const created = await ctx.as("user-1").data(
      `mutation { createFeedbackPost(title: "Dark mode please", category: feature,
        description: "The app is **too bright** at night.") { post { id } errors { code message } } }`,
    );
    assert.deepEqual(created.createFeedbackPost.errors, []);
    const postId = created.createFeedbackPost.post.id;
    const exported = await signedPost(t, "/integrations/feedback/export", {}, {
      secret: WORKFORCE_SECRET,
    });
    assert.equal(exported.status, 200);
    const adminUrl = new URL(exported.body.feedback_posts[0].admin_url);
    assert.equal(adminUrl.pathname, `/admin/feedback_posts/${postId}`);

    // The exported link, opened on the served app, lands on the post after sign-in.
    await ctx.open(adminUrl.pathname);
    await page.waitForURL(/\/admin\/sign-in$/);
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Dark mode please" }).waitFor();
    assert.equal(new URL(page.url()).pathname, adminUrl.pathname);
    assert.equal(await page.locator(".markdown strong").innerText(), "too bright");
    assert.equal(await page.locator(".post-status").innerText(), "open");
    await page.getByLabel("New status").selectOption("planned");
    await page.getByRole("button", { name: "Change status" }).click();
    await page.getByRole("status").filter({ hasText: "The status is now planned." }).waitFor();
    assert.equal(await page.locator(".post-status").innerText(), "planned");
    const stored = await asAdmin(ctx, `query($id: String!) { feedbackPost(id: $id) { status } }`, {
      id: postId,
    });
    assert.equal(stored.feedbackPost.status, "planned");
    await assertAccessible(page, "feedback post");
    await ctx.shoot("admin-feedback-post");

    // The board with its filters.
    await page.getByRole("link", { name: "Feedback" }).first().click();
    await page.getByRole("heading", { name: "Feedback triage" }).waitFor();
    await page.getByRole("link", { name: "Dark mode please" }).waitFor();
    await page.getByLabel("Status").selectOption("declined");
    await page.getByText("0 posts").waitFor();
    await page.getByLabel("Status").selectOption("planned");
    await page.getByLabel("Category").selectOption("feature");
    await page.getByRole("link", { name: "Dark mode please" }).waitFor();
    await assertAccessible(page, "feedback");
    await ctx.shoot("admin-feedback");

    // Dead jobs: the error shown, retry runs it again, discard removes it.
    let healthy = false;
    let runs = 0;
    t.app.jobs.handle("sync", (payload) => {
      runs++;
      const { n } = payload as { n: number };
      if (!healthy || n === 2) throw new Error(`remote down for ${n}`);
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 1 }, { maxAttempts: 1 });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 2 }, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    const [one, two] = (await t.app.jobs.listDeadJobs()).sort((a, b) =>
      (a.payload as { n: number }).n - (b.payload as { n: number }).n
    );
    await page.getByRole("link", { name: "Jobs" }).click();
    await page.getByRole("heading", { name: "Dead set" }).waitFor();
    const row = (id: string) => page.locator(`tr[data-job="${id}"]`);
    await row(one.id).waitFor();
    assert.match(await row(one.id).innerText(), /sync[\s\S]*remote down for 1/);
    // The overview: counts as the queue reports them and every schedule with its next run.
    const figures = await page.locator("dl.figures").innerText();
    assert.match(figures, /Failed\s+2/);
    assert.match(figures, /Dead\s+2/);
    const prune = page.locator('tr[data-schedule="jobs.prune_schedule_slots"]');
    assert.match(
      await prune.innerText(),
      /17 3 \* \* \*[\s\S]*—[\s\S]*\d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    await assertAccessible(page, "jobs");
    await ctx.shoot("admin-jobs");
    healthy = true;
    await row(one.id).getByRole("button", { name: "Retry" }).click();
    await page.getByRole("status").filter({ hasText: "Retried sync." }).waitFor();
    await t.app.jobs.runUntilIdle();
    assert.equal(runs, 3);
    await row(one.id).waitFor({ state: "detached" });
    await row(two.id).getByRole("button", { name: "Discard" }).click();
    await row(two.id).getByRole("button", { name: "Discard for good" }).click();
    await page.getByText("No dead job.").waitFor();
    assert.equal((await t.app.jobs.listDeadJobs()).length, 0);

    // In bulk: every dead job of one kind retried, then every one left discarded (confirmed).
    healthy = false;
    let mails = 0;
    t.app.jobs.handle("mail", () => {
      mails++;
      throw new Error("smtp down");
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 3 }, { maxAttempts: 1 });
    await t.app.jobs.enqueue(t.deps.db.sql, "sync", { n: 4 }, { maxAttempts: 1 });
    await t.app.jobs.enqueue(t.deps.db.sql, "mail", { n: 5 }, { maxAttempts: 1 });
    await t.app.jobs.runUntilIdle();
    await ctx.open("/admin/jobs");
    const kind = page.getByLabel("Kind");
    await kind.waitFor();
    assert.deepEqual(await kind.locator("option").allInnerTexts(), [
      "every kind (3)",
      "sync (2)",
      "mail (1)",
    ]);
    await kind.selectOption("sync");
    healthy = true;
    await page.getByRole("button", { name: "Retry 2 dead jobs of sync" }).click();
    await page.getByRole("button", { name: "Retry", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Retried 2 dead jobs of sync." }).waitFor();
    await t.app.jobs.runUntilIdle();
    assert.equal(runs, 7, "3 before, 2 that died, 2 retried");
    assert.deepEqual((await t.app.jobs.listDeadJobs()).map((j) => j.name), ["mail"]);
    await page.getByRole("button", { name: "Discard 1 dead job…" }).click();
    await page.getByRole("alert").filter({ hasText: "Discard 1 dead job for good?" }).waitFor();
    assert.equal((await t.app.jobs.listDeadJobs()).length, 1, "nothing before the confirmation");
    await assertAccessible(page, "jobs, bulk discard");
    await ctx.shoot("admin-jobs-bulk");
    await page.getByRole("button", { name: "Discard for good" }).click();
    await page.getByRole("status").filter({ hasText: "Discarded 1 dead job." }).waitFor();
    await page.getByText("No dead job.").waitFor();
    assert.equal((await t.app.jobs.listDeadJobs()).length, 0);
    assert.equal(mails, 1);

    // AI flags: the state and the override.
    await page.getByRole("link", { name: "AI flags" }).click();
    const coaching = page.locator("tbody tr", { hasText: "coaching" });
    await coaching.waitFor();
    const before = await coaching.locator(".flag-setting").innerText();
    await assertAccessible(page, "AI flags");
    await ctx.shoot("admin-flags");
    const after = before === "on" ? "off" : "on";
    await coaching.getByRole("button", { name: `Turn coaching ${after}…` }).click();
    await coaching.getByRole("button", { name: `Turn ${after}`, exact: true }).click();
    await page.getByRole("status").filter({ hasText: `coaching is now set ${after}` }).waitFor();
    assert.equal(await coaching.locator(".flag-setting").innerText(), after);
    // No LLM in this setup: the setting is on, calls still see the feature off.
    assert.match(await coaching.locator(".flag-state").innerText(), /^off/);
    assert.match(await coaching.innerText(), /admin override/);
    const flags = (await asAdmin(ctx, `{ aiFlags { name configured source } }`)).aiFlags;
    assert.deepEqual(flags.find((f: { name: string }) => f.name === "coaching"), {
      name: "coaching",
      configured: after === "on",
      source: "database",
    });

    await assertTokensNotInUrls(ctx, [ctx.admin]);
  });
});
