/** Each artifact has its own page (`/admin/artifacts/<id>`, linked from its card's title): a
 * pending one with the board's actions, a reviewed one with who reviewed it and when. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, type ConsoleCtx, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const STATUS = `query($id: String!) { aiRun(id: $id) { artifacts { id approvalStatus } } }`;
const artifactOf = async (ctx: ConsoleCtx, runId: string) =>
  (await asAdmin(ctx, STATUS, { id: runId })).aiRun.artifacts[0];

test("admin console: an artifact's permalink shows it pending, then reviewed", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Writer" });
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Linked post", payload: "A **linked** post." },
    });
    const { id } = await artifactOf(ctx, runId);

    await ctx.open("/admin");
    await signIn(ctx, ctx.admin);
    await page.getByRole("link", { name: "Linked post" }).click();
    await page.waitForURL(`**/admin/artifacts/${id}`);
    const card = page.locator(`article.card[data-artifact="${id}"]`);
    await card.locator(".markdown strong").waitFor();
    await assertAccessible(page, "artifact page (pending)");

    // Rejected from its page: the page then says who rejected it, when, and why.
    await card.getByRole("button", { name: "Reject" }).click();
    await card.getByLabel(/Rejection reason/).fill("Too short for a post of its own.");
    await card.getByRole("button", { name: "Reject" }).last().click();
    await page.getByRole("heading", { name: "Linked post", level: 1 }).waitFor();
    const facts = await page.locator("dl.facts").innerText();
    assert.match(facts, /Status\s+rejected/);
    assert.match(facts, /Reviewed\s+rejected by \S+ at /);
    assert.match(facts, /Too short for a post of its own\./);
    assert.equal((await artifactOf(ctx, runId)).approvalStatus, "rejected");
    await assertAccessible(page, "artifact page (reviewed)");
    await ctx.shoot("admin-artifact-page");

    // Reloaded, the permalink still shows it; an unknown id says so.
    await page.reload();
    await page.getByRole("heading", { name: "Linked post", level: 1 }).waitFor();
    await ctx.open("/admin/artifacts/no-such-artifact");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
  });
});
