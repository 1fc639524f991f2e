/** The review board in Chromium: sign in, every artifact kind rendered as what it is, approve,
 * edit then approve, reject (refused inline under 10 characters), keyboard shortcuts, delivery
 * shown on the run page, and an expired session that keeps what the admin was typing. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertTokensNotInUrls,
  type ConsoleCtx,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { runAfterUndoWindow } from "../../support/delivery.ts";
import { waitFor } from "../../support/wait.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const ARTIFACTS = [
  {
    kind: "code_patch",
    title: "Fix the streak off-by-one",
    payload:
      "--- a/src/streak.ts\n+++ b/src/streak.ts\n@@ -1,3 +1,3 @@\n export function streak(days) {\n-  return days - 1;\n+  return days;\n }\n",
  },
  {
    kind: "report",
    title: "Weekly report",
    payload:
      '# Sign-ups\n\nSign-ups grew **20%**.\n\n<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">',
  },
  { kind: "draft_post", title: "Launch post", payload: "We launched *streak freezes* today." },
  { kind: "recommendation", title: "Cut the onboarding", payload: "- Drop step 3\n- Keep step 1" },
  {
    kind: "email_template",
    title: "Welcome email",
    payload: JSON.stringify({
      subject: "Welcome aboard",
      body: "Hello **friend**, glad you came.",
    }),
  },
  { kind: "slack_message", title: "Daily digest", payload: "Good morning: 12 new goals today." },
];

const STATUS = `query($id: String!) { aiRun(id: $id) { artifacts { id kind approvalStatus payload
  heavyEdit rejectionReason deliveryStatus } } }`;

async function artifactOf(ctx: ConsoleCtx, runId: string) {
  return (await asAdmin(ctx, STATUS, { id: runId })).aiRun.artifacts[0];
}

/** The card of the artifact titled `title`. */
const card = (ctx: ConsoleCtx, title: string) =>
  ctx.page.locator("article.card", { has: ctx.page.getByRole("heading", { name: title }) });

test("admin console: review one artifact of each kind in Chromium", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Reporter" });
    const runs: Record<string, string> = {};
    for (const artifact of ARTIFACTS) {
      runs[artifact.kind] = await completeRun(ctx, employee.id, { artifact });
      ctx.clock.advance(60_000);
    }

    // Anonymous: the board sends to sign-in; the token is pasted, never put in a URL.
    await ctx.open("/admin");
    await page.waitForURL(/\/admin\/sign-in$/);
    await assertAccessible(page, "sign-in");
    await ctx.shoot("admin-sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    await page.waitForURL(/\/admin\/?$/);
    const cards = page.locator("article.card");
    await waitFor(async () => (await cards.count()) === ARTIFACTS.length);
    assert.deepEqual(
      await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind)),
      ARTIFACTS.map((a) => a.kind),
      "oldest first",
    );

    // Each kind as what it is.
    const patch = card(ctx, "Fix the streak off-by-one");
    assert.equal(await patch.locator(".diff .line.add").innerText(), "+  return days;");
    assert.equal(await patch.locator(".diff .line.del").innerText(), "-  return days - 1;");
    const report = card(ctx, "Weekly report");
    assert.equal(await report.locator(".markdown h1").innerText(), "Sign-ups");
    assert.equal(await report.locator(".markdown strong").innerText(), "20%");
    assert.equal(await report.locator("script, [onerror]").count(), 0, "sanitised");
    assert.equal(await page.evaluate("window.__xss"), undefined);
    assert.equal(await card(ctx, "Cut the onboarding").locator(".markdown li").count(), 2);
    const email = card(ctx, "Welcome email");
    assert.equal(await email.locator(".email .subject").innerText(), "Welcome aboard");
    assert.equal(await email.locator(".email-body strong").innerText(), "friend");
    assert.match(
      await card(ctx, "Daily digest").locator(".chat .text").innerText(),
      /12 new goals/,
    );
    for (
      const text of [/Kind:?\s*code_patch/, /Employee:?\s*Ada Reporter/, /Run cost:?\s*\$0\.0123/]
    ) {
      assert.match(await patch.locator(".facts").innerText(), text);
    }
    assert.match(
      await page.locator(".shortcuts").innerText(),
      /j\s*next artifact[\s\S]*r\s*reject/,
    );
    await assertAccessible(page, "review board");
    await ctx.shoot("admin-review");

    // Approve.
    await report.getByRole("button", { name: "Approve", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Approved “Weekly report”." }).waitFor();
    assert.equal((await artifactOf(ctx, runs.report)).approvalStatus, "approved");

    // Edit, then approve: the changes and the ratio, warned above 0.3.
    const draft = card(ctx, "Launch post");
    await draft.getByRole("button", { name: "Edit, then approve" }).click();
    const editor = draft.getByLabel("Edited payload");
    await editor.fill("We launched *streak freezes* today!");
    // The page's worker measures the edit once typing pauses.
    await draft.locator('.ratio[aria-busy="false"] [data-ratio="0.029"]').waitFor();
    assert.equal(await draft.locator(".ratio .warning").count(), 0);
    await editor.fill("Streak freezes are here.");
    await draft.locator('.ratio[aria-busy="false"] .warning').waitFor();
    assert.match(await draft.locator(".ratio .warning").innerText(), /above 0\.3/);
    assert.equal(await draft.locator(".diff .line.add").innerText(), "+Streak freezes are here.");
    assert.equal(
      await draft.locator(".diff .line.del").innerText(),
      "-We launched *streak freezes* today.",
    );
    await assertAccessible(page, "edit form");
    await ctx.shoot("admin-review-edit");
    await draft.getByRole("button", { name: "Approve with edits" }).click();
    await page.getByRole("status").filter({ hasText: "with edits" }).waitFor();
    const edited = await artifactOf(ctx, runs.draft_post);
    assert.deepEqual([edited.approvalStatus, edited.payload, edited.heavyEdit], [
      "approved",
      "Streak freezes are here.",
      true,
    ]);

    // Reject: refused inline under 10 characters, nothing changes; then a valid reason.
    const rec = card(ctx, "Cut the onboarding");
    await rec.getByRole("button", { name: "Reject" }).click();
    const reason = rec.getByLabel(/Rejection reason/);
    await reason.fill("too short");
    await rec.getByRole("button", { name: "Reject" }).click();
    assert.match(await rec.getByRole("alert").innerText(), /at least 10 characters \(9 so far\)/);
    assert.equal(await reason.getAttribute("aria-invalid"), "true");
    assert.equal((await artifactOf(ctx, runs.recommendation)).approvalStatus, "pending");
    await assertAccessible(page, "reject form with its refusal");
    await ctx.shoot("admin-review-reject");
    await reason.fill("Step 3 is the one users like most.");
    await rec.getByRole("button", { name: "Reject" }).click();
    await page.getByRole("status").filter({ hasText: "Rejected “Cut the onboarding”." }).waitFor();
    const rejected = await artifactOf(ctx, runs.recommendation);
    assert.deepEqual([rejected.approvalStatus, rejected.rejectionReason], [
      "rejected",
      "Step 3 is the one users like most.",
    ]);

    // Keyboard: j/k move the selection, a approves the selected one.
    await waitFor(async () => (await cards.count()) === 3);
    await page.locator("h1").click();
    const selected = () => page.locator("article.card.selected h2").innerText();
    // The selection stays in place after a review: the next artifact takes the reviewed one's.
    assert.equal(await selected(), "Welcome email");
    await page.keyboard.press("k");
    await page.keyboard.press("k");
    assert.equal(await selected(), "Fix the streak off-by-one");
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    assert.equal(await selected(), "Daily digest");
    await page.keyboard.press("k");
    await page.keyboard.press("j");
    await page.keyboard.press("a");
    await page.getByRole("status").filter({ hasText: "Approved “Daily digest”." }).waitFor();
    assert.equal((await artifactOf(ctx, runs.slack_message)).approvalStatus, "approved");

    // Delivery (after the undo window): the chat post went out; the report's commit has no
    // GitHub here and failed.
    await runAfterUndoWindow(ctx);
    await ctx.open(`/admin/ai_runs/${runs.slack_message}`);
    await page.getByRole("heading", { name: "Artifacts" }).waitFor();
    assert.match(
      await page.locator("table tbody tr").innerText(),
      /approved by \S+ at [^\t]+\s+delivered/,
    );
    await ctx.open(`/admin/ai_runs/${runs.report}`);
    await page.getByRole("button", { name: "Retry delivery" }).waitFor();
    assert.match(await page.locator("table tbody tr").innerText(), /failed/);

    // The delivery page: every approved artifact with its delivery, filtered, retried.
    await page.getByRole("link", { name: "Delivery" }).click();
    await page.getByRole("heading", { name: "Delivery" }).waitFor();
    const delivered = page.locator("tbody tr", { hasText: "Daily digest" });
    await delivered.waitFor();
    assert.match(await delivered.innerText(), /slack_message[\s\S]*delivered/);
    await page.getByLabel("Delivery status").selectOption("failed");
    await delivered.waitFor({ state: "detached" });
    const failed = page.locator("tbody tr", { hasText: "Weekly report" });
    assert.match(await failed.innerText(), /report[\s\S]*failed/);
    await assertAccessible(page, "delivery");
    await ctx.shoot("admin-delivery");
    await failed.getByRole("button", { name: /Retry delivery/ }).click();
    await page.getByRole("status").filter({ hasText: "Delivery of “Weekly report” queued again." })
      .waitFor();

    // An expired session returns to sign-in and keeps the reason being typed.
    await ctx.open("/admin");
    const email2 = card(ctx, "Welcome email");
    await email2.getByRole("button", { name: "Reject" }).click();
    await email2.getByLabel(/Rejection reason/).fill("The subject line is too");
    await page.evaluate(`sessionStorage.setItem("admin.sessionToken", "expired-token")`);
    await email2.getByLabel(/Rejection reason/).pressSequentially(" vague.");
    await email2.getByRole("button", { name: "Reject" }).click();
    await page.waitForURL(/\/admin\/sign-in$/);
    assert.match(await page.getByRole("status").first().innerText(), /session has ended/);
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    await card(ctx, "Welcome email").getByRole("button", { name: "Reject" }).click();
    assert.equal(
      await card(ctx, "Welcome email").getByLabel(/Rejection reason/).inputValue(),
      "The subject line is too vague.",
    );
    assert.equal((await artifactOf(ctx, runs.email_template)).approvalStatus, "pending");

    // A new pending artifact appears without a reload (pendingArtifactAdded over /cable; the
    // fallback re-read is a minute away, beyond the wait).
    const before = await cards.count();
    await completeRun(ctx, employee.id, {
      artifact: { kind: "report", title: "Fresh report", payload: "Arrived live." },
    });
    await card(ctx, "Fresh report").waitFor({ timeout: 20_000 });
    assert.equal(await cards.count(), before + 1);

    await assertTokensNotInUrls(ctx, [ctx.admin]);
    assert.ok(ctx.urls.some((u) => u.endsWith("/graphql")));
  }, { hostileContent: true });
});
