/** The review board follows artifacts by id in Chromium: a form stays on its artifact while
 * another operator reviews and new artifacts arrive (or closes, saying why, keeping the text);
 * `a` never approves an artifact not yet shown; the editor's keys, preview and refusals; and a
 * second tab signed in from the first without pasting the token. */
import assert from "node:assert/strict";
import {
  assertTokensNotInUrls,
  type ConsoleCtx,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { waitFor } from "../../support/wait.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const STATUS = `query($id: String!) { aiRun(id: $id) { artifacts { id approvalStatus payload } } }`;
const artifactOf = async (ctx: ConsoleCtx, runId: string) =>
  (await asAdmin(ctx, STATUS, { id: runId })).aiRun.artifacts[0];
/** Another operator's approval, straight through the API. */
const approveElsewhere = async (ctx: ConsoleCtx, runId: string) => {
  const { id } = await artifactOf(ctx, runId);
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code } } }`,
    { id },
  );
  assert.deepEqual(data.approveAiArtifact.errors, []);
};
const card = (ctx: ConsoleCtx, title: string) =>
  ctx.page.locator("article.card", { has: ctx.page.getByRole("heading", { name: title }) });

async function board(ctx: ConsoleCtx, count: number) {
  await ctx.open("/admin");
  await signIn(ctx, ctx.admin);
  await ctx.page.getByRole("heading", { name: "Review board" }).waitFor();
  await waitFor(async () => (await ctx.page.locator("article.card").count()) === count);
}

const post = (title: string, payload = `${title}: the text.`) => ({
  artifact: { kind: "draft_post", title, payload },
});

test("admin console: a form follows its artifact while others review and new ones arrive", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Writer" });
    const runs: string[] = [];
    for (const title of ["First post", "Second post", "Third post"]) {
      runs.push(await completeRun(ctx, employee.id, post(title)));
      ctx.clock.advance(60_000);
    }
    await board(ctx, 3);

    // A reject form on the second artifact, half typed.
    const second = card(ctx, "Second post");
    await second.getByRole("button", { name: "Reject" }).click();
    await second.getByLabel(/Rejection reason/).fill("The second paragraph repeats");

    // Meanwhile a colleague approves the first, and a new artifact arrives (the board re-reads).
    await approveElsewhere(ctx, runs[0]);
    await completeRun(ctx, employee.id, post("Fourth post"));
    await card(ctx, "Fourth post").waitFor({ timeout: 20_000 });
    await card(ctx, "First post").waitFor({ state: "detached" });

    // The form is still on the second artifact, text intact; no other card has a form.
    assert.equal(
      await second.getByLabel(/Rejection reason/).inputValue(),
      "The second paragraph repeats",
    );
    assert.equal(await page.locator("form.reject").count(), 1);
    await second.getByLabel(/Rejection reason/).pressSequentially(" the first.");
    await ctx.shoot("admin-review-race");

    // Now the colleague approves the artifact under the form: it closes, says why, keeps the text.
    await approveElsewhere(ctx, runs[1]);
    await completeRun(ctx, employee.id, post("Fifth post"));
    await card(ctx, "Fifth post").waitFor({ timeout: 20_000 });
    const closed = page.locator(".closed-form");
    await closed.waitFor();
    assert.match(await closed.innerText(), /“Second post” left the board.*another operator/s);
    assert.equal(
      await closed.getByLabel(/rejection reason/i).inputValue(),
      "The second paragraph repeats the first.",
    );
    assert.equal(await page.locator("form.reject").count(), 0);
    await ctx.shoot("admin-review-form-closed");
    // Nothing was rejected by the stale form.
    assert.equal((await artifactOf(ctx, runs[2])).approvalStatus, "pending");
  });
});

test("admin console: `a` approves only the focused artifact, once it has been shown", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Writer" });
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1}.`).join("\n\n");
    const first = await completeRun(ctx, employee.id, post("Short post"));
    ctx.clock.advance(60_000);
    const second = await completeRun(ctx, employee.id, post("Long post", long));
    await board(ctx, 2);
    await page.locator("h1").click();
    const selected = () => page.locator("article.card.selected h2").innerText();
    assert.equal(await selected(), "Short post");

    // `a` twice: the first approves the short post; the second lands on the long post, whose end
    // has not been on screen, and is refused.
    await page.keyboard.press("a");
    await page.getByRole("status").filter({ hasText: "Approved “Short post”." }).waitFor();
    await waitFor(async () => (await selected()) === "Long post");
    await page.keyboard.press("a");
    await card(ctx, "Long post").getByRole("alert").filter({
      hasText: "has not been shown in full",
    })
      .waitFor();
    assert.equal((await artifactOf(ctx, first)).approvalStatus, "approved");
    assert.equal((await artifactOf(ctx, second)).approvalStatus, "pending");
    await ctx.shoot("admin-review-unseen");

    // Shown whole and read to its end, then `a` approves it.
    await card(ctx, "Long post").getByRole("button", { name: "Show all" }).click();
    await page.locator("h1").click();
    await page.keyboard.press("a");
    await card(ctx, "Long post").getByRole("alert").filter({ hasText: "Scroll to its end" })
      .waitFor();
    await card(ctx, "Long post").locator(".card-end").scrollIntoViewIfNeeded();
    await page.keyboard.press("a");
    await page.getByRole("status").filter({ hasText: "Approved “Long post”." }).waitFor();
    assert.equal(await page.locator(".failure").count(), 0);
    assert.equal((await artifactOf(ctx, second)).approvalStatus, "approved");
  });
});

test("admin console: the editor's preview, refusals, Escape and Ctrl+Enter", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Writer" });
    const patch =
      "--- a/src/streak.ts\n+++ b/src/streak.ts\n@@ -10,3 +10,3 @@\n export function streak(days) {\n-  return days - 1;\n+  return days;\n }\n";
    const patchRun = await completeRun(ctx, employee.id, {
      artifact: { kind: "code_patch", title: "Fix the streak", payload: patch },
    });
    const emailRun = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "email_template",
        title: "Welcome email",
        payload: JSON.stringify({ subject: "Welcome", body: "Hello **friend**." }),
      },
    });
    const reportRun = await completeRun(ctx, employee.id, {
      artifact: { kind: "report", title: "Weekly report", payload: "# Sign-ups" },
    });
    await board(ctx, 3);

    // Line numbers from the hunk header, beside the lines (not in their text).
    const diff = card(ctx, "Fix the streak").locator(".diff");
    assert.equal(await diff.locator(".line.del").getAttribute("data-ln"), "  11     ");
    assert.equal(await diff.locator(".line.add").getAttribute("data-ln"), "       11");
    assert.equal(await diff.locator(".line.add").innerText(), "+  return days;");

    // Escape cancels the editor; nothing changes.
    const report = card(ctx, "Weekly report");
    await report.getByRole("button", { name: "Edit, then approve" }).click();
    await report.getByLabel("Edited payload").fill("# Sign-ups grew **20%**");
    const preview = report.getByRole("region", { name: "preview of the edit" });
    assert.equal(await preview.locator(".markdown strong").innerText(), "20%");
    await page.keyboard.press("Escape");
    await report.locator("form.edit").waitFor({ state: "detached" });
    assert.equal((await artifactOf(ctx, reportRun)).approvalStatus, "pending");

    // A patch edit that is no longer a diff is refused by the service with a message at the
    // field; nothing changes.
    const fix = card(ctx, "Fix the streak");
    await fix.getByRole("button", { name: "Edit, then approve" }).click();
    const patchEditor = fix.getByLabel("Edited payload");
    await patchEditor.fill(patch.replace(" }\n", "zzz }\n"));
    await page.keyboard.press("Control+Enter");
    assert.match(
      await fix.locator(".errors").innerText(),
      /the edit is no longer a valid patch: the payload is not a unified diff/,
    );
    assert.equal(await patchEditor.getAttribute("aria-invalid"), "true");
    await ctx.shoot("admin-review-edit-refused");
    assert.equal((await artifactOf(ctx, patchRun)).approvalStatus, "pending");

    // An email whose JSON is broken is refused; fixed, its preview shows the fields and
    // Ctrl+Enter approves it.
    const email = card(ctx, "Welcome email");
    await email.getByRole("button", { name: "Edit, then approve" }).click();
    const emailEditor = email.getByLabel("Edited payload");
    await emailEditor.fill('{"subject": "Welcome", "body": ');
    await page.keyboard.press("Control+Enter");
    assert.match(await email.locator(".field-error").innerText(), /no longer valid JSON/);
    await emailEditor.fill(JSON.stringify({ subject: "", body: "Hi" }));
    await page.keyboard.press("Control+Enter");
    assert.match(await email.locator(".field-error").innerText(), /non-empty “subject”/);
    const fixed = JSON.stringify({ subject: "Welcome aboard", body: "Hello **friend**!" });
    await emailEditor.fill(fixed);
    const emailPreview = email.getByRole("region", { name: "preview of the edit" });
    await waitFor(async () =>
      (await emailPreview.locator(".subject").innerText()) === "Welcome aboard"
    );
    await ctx.shoot("admin-review-edit-preview");
    await page.keyboard.press("Control+Enter");
    await page.getByRole("status").filter({ hasText: "Approved “Welcome email” with edits." })
      .waitFor();
    const approved = await artifactOf(ctx, emailRun);
    assert.deepEqual([approved.approvalStatus, approved.payload], ["approved", fixed]);
  });
});

test("admin console: a second tab is signed in from the first, never through a URL", async () => {
  await withConsole(async (ctx) => {
    await ctx.open("/admin");
    await signIn(ctx, ctx.admin);
    await ctx.page.getByRole("heading", { name: "Review board" }).waitFor();

    const tab = await ctx.page.context().newPage();
    const urls: string[] = [];
    tab.on("request", (req) => urls.push(req.url()));
    await tab.goto(ctx.app.url + "/admin/ai_employees");
    await tab.getByRole("heading", { name: "AI employees" }).waitFor();
    assert.match(tab.url(), /\/admin\/ai_employees$/);
    assert.ok(urls.every((u) => !u.includes(ctx.admin)), "no token in a URL");
    assert.equal(await tab.evaluate("localStorage.length"), 0);
    assert.equal(await tab.evaluate(`sessionStorage.getItem("admin.sessionToken")`), ctx.admin);
    await ctx.browser.screenshot(tab, "admin-second-tab.png");

    // Signing out in one tab signs out the other.
    await tab.getByRole("button", { name: "Sign out" }).click();
    await ctx.page.waitForURL(/\/admin\/sign-in$/);
    assert.equal(await ctx.page.evaluate(`sessionStorage.getItem("admin.sessionToken")`), null);
    await assertTokensNotInUrls(ctx, [ctx.admin]);
    await tab.close();
  });
});
