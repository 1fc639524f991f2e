/**
 * A 200,000-character artifact (the largest the webhook takes) on the review board in Chromium:
 * shown cut with a "Show all", edited in the middle and approved with the edit; typing stays
 * responsive because the diff and the edit distance run in the page's worker. The timings are
 * printed for the record (docs/admin.md), never asserted.
 */
import assert from "node:assert/strict";
import { ARTIFACT_PAYLOAD_MAX } from "../../../src/platform/contract/mod.ts";
import { signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

/** A Markdown report of exactly `length` characters: headed sections of paragraphs. */
function report(length: number): string {
  const section = (i: number) =>
    `## Section ${i}\n\nThe figures for week ${i} were steady; see the table below.\n\n` +
    `| metric | value |\n|---|---|\n| check-ins | ${i * 7} |\n\n`;
  let text = "# A very long report\n\n";
  for (let i = 1; text.length < length; i++) text += section(i);
  return text.slice(0, length);
}

test("admin console: a 200,000-character artifact is shown cut, edited and approved", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const timings: Record<string, number> = {};
    const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const result = await work();
      timings[name] = Math.round(performance.now() - start);
      return result;
    };
    const employee = await createEmployee(ctx, { name: "Ada Analyst" });
    const payload = report(ARTIFACT_PAYLOAD_MAX);
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "report", title: "Huge report", payload },
    });

    await ctx.open("/admin");
    await signIn(ctx, ctx.admin);
    // CSS locators only while timing: role queries walk the whole (large) page in the browser.
    const card = page.locator('article.card[data-kind="report"]');
    await timed("board shows the card", () => card.locator(".markdown:not(.rendering)").waitFor());
    assert.match(
      await card.locator(".collapsed").innerText(),
      /Showing [\d,]+ of 200,000 characters/,
    );
    const cutNodes = await page.evaluate(() => document.querySelectorAll("*").length);

    await timed("show all", async () => {
      await card.locator("button.show-all").click();
      await card.locator(".collapsed").waitFor({ state: "detached" });
      await card.locator(".markdown:not(.rendering)").waitFor();
    });
    const wholeNodes = await page.evaluate(() => document.querySelectorAll("*").length);
    assert.ok(wholeNodes > cutNodes, `${wholeNodes} nodes whole, ${cutNodes} cut`);

    const editor = card.locator("form.edit textarea");
    await timed("open the editor", async () => {
      await card.locator(".actions button:nth-child(2)").click();
      await editor.waitFor();
      await card.locator(".ratio strong").waitFor();
    });
    // Five characters replaced in the middle, typed one key at a time: the page answers each
    // key while the worker measures.
    await editor.evaluate((el: HTMLTextAreaElement) => {
      el.focus();
      el.setSelectionRange(100_000, 100_005);
    });
    const keyTimes: number[] = [];
    for (const key of "EDITS") {
      const start = performance.now();
      await page.keyboard.type(key);
      keyTimes.push(performance.now() - start);
    }
    timings["slowest keystroke"] = Math.round(Math.max(...keyTimes));
    const edited = payload.slice(0, 100_000) + "EDITS" + payload.slice(100_005);
    await timed("measure after typing", () =>
      page.waitForFunction(
        () => document.querySelector(".ratio")?.getAttribute("aria-busy") === "false",
      ));
    assert.match(await card.locator(".ratio").innerText(), /Levenshtein distance 5\)/);
    assert.ok(
      await card.locator("pre.diff .line.add mark").count() > 0,
      "changed characters marked",
    );
    await ctx.shoot("admin-review-huge-edit");

    await timed("approve with the edit", async () => {
      await page.keyboard.press("Control+Enter");
      await page.locator(".notice", { hasText: "Approved “Huge report” with edits." })
        .waitFor({ timeout: 20_000 });
    });
    const stored = (await asAdmin(
      ctx,
      `query($id: String!) { aiRun(id: $id) { artifacts { approvalStatus payload editDistance } } }`,
      { id: runId },
    )).aiRun.artifacts[0];
    assert.equal(stored.approvalStatus, "approved");
    assert.equal(stored.payload, edited);
    assert.equal(stored.editDistance, 5);
    console.log(`200,000-character artifact (ms): ${JSON.stringify(timings)}`);
  });
});
