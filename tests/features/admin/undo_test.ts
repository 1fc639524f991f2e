/** An approval on the review board can be undone in Chromium while its delivery waits: undone
 * within the window, nothing is delivered and the artifact is back on the board; once the
 * delivery has started, the Undo button is refused with the reason. */
import assert from "node:assert/strict";
import type { ManualClock } from "../../../src/platform/clock.ts";
import { type ConsoleCtx, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { waitFor } from "../../support/wait.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const STATUS = `query($id: String!) { aiRun(id: $id) { artifacts {
  id approvalStatus deliveryStatus undoableUntil } } }`;
const artifactOf = async (ctx: ConsoleCtx, runId: string) =>
  (await asAdmin(ctx, STATUS, { id: runId })).aiRun.artifacts[0];
const card = (ctx: ConsoleCtx, title: string) =>
  ctx.page.locator("article.card", { has: ctx.page.getByRole("heading", { name: title }) });

test("admin console: undo within the window prevents the delivery; after it, it is refused", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const employee = await createEmployee(ctx, { name: "Ada Announcer" });
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "slack_message", title: "Standup note", payload: "Shipped the *board*." },
    });
    await ctx.open("/admin");
    await signIn(ctx, ctx.admin);
    await card(ctx, "Standup note").waitFor();

    // Approved: the bar counts down to the delivery, which waits.
    await card(ctx, "Standup note").getByRole("button", { name: "Approve", exact: true }).click();
    const bar = page.getByRole("list", { name: "Approvals that can be undone" });
    await bar.getByText(/Delivery of “Standup note” starts in \d+ s\./).waitFor();
    await ctx.shoot("admin-review-undo");
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, 0, "nothing delivered within the window");

    // Undone: back on the board, and the delayed delivery finds nothing to deliver.
    await bar.getByRole("button", { name: "Undo" }).click();
    await page.getByRole("status").filter({
      hasText: "Approval of “Standup note” undone: it is pending again.",
    }).waitFor();
    await card(ctx, "Standup note").waitFor();
    const windowMs = ctx.t.deps.config.approvalUndoSeconds * 1000;
    (ctx.t.clock as ManualClock).advance(windowMs);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, 0, "the undone approval delivered nothing");
    assert.equal((await artifactOf(ctx, runId)).approvalStatus, "pending");

    // Approved again and delivered once the window passed on the service's clock: the Undo the
    // page still shows is refused, saying why, and the delivery stands.
    await card(ctx, "Standup note").getByRole("button", { name: "Approve", exact: true }).click();
    await bar.getByRole("button", { name: "Undo" }).waitFor();
    await ctx.t.app.jobs.runUntilIdle();
    (ctx.t.clock as ManualClock).advance(windowMs);
    await ctx.t.app.jobs.runUntilIdle();
    await waitFor(async () => (await artifactOf(ctx, runId)).deliveryStatus === "delivered");
    assert.equal(ctx.chat.requests.length, 1);
    await bar.getByRole("button", { name: "Undo" }).click();
    await page.getByRole("status").filter({
      hasText: "the delivery has started: the approval can no longer be undone",
    }).waitFor();
    assert.equal(await card(ctx, "Standup note").count(), 0);
    const after = await artifactOf(ctx, runId);
    assert.equal(after.approvalStatus, "approved");
    assert.equal(after.undoableUntil, null);
    assert.equal(ctx.chat.requests.length, 1);
  });
});
