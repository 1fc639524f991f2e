/** The Reports page in Chromium: the queue, removing a reported post, resolving, the filter. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

test("admin console: reports queue, remove a reported post, resolve", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const community = (await ctx.as("user-1").data(
      `mutation { createCommunity(name: "Runners") { community { id } errors { code } } }`,
    )).createCommunity.community.id;
    await ctx.as("user-2").data(
      `mutation($id: String!) { joinCommunity(communityId: $id) {
      errors { code } } }`,
      { id: community },
    );
    const post = (await ctx.as("user-2").data(
      `mutation($id: String!) { createCommunityPost(communityId: $id, body: "cheap pills here") {
        post { id } errors { code } } }`,
      { id: community },
    )).createCommunityPost.post.id;
    const reported = (await ctx.as("user-1").data(
      `mutation($id: String!) { reportPost(postId: $id, reason: spam, details: "an ad") {
        report { id } errors { code } } }`,
      { id: post },
    )).reportPost;
    assert.deepEqual(reported.errors, []);

    await ctx.open("/admin/reports");
    await signIn(ctx, ctx.admin);
    const row = page.locator(`tr[data-report="${reported.report.id}"]`);
    await row.waitFor();
    assert.match(await row.innerText(), /cheap pills here/);
    assert.match(await row.innerText(), /spam/);
    await assertAccessible(page, "reports");
    await ctx.shoot("admin-reports");
    await row.getByRole("button", { name: "Remove post…" }).click();
    await row.getByRole("alert").filter({ hasText: "Remove this post for everyone?" }).waitFor();
    await row.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "is removed" }).waitFor();
    await row.getByText("The post has been removed.").waitFor();
    await row.getByLabel("Note").fill("removed the ad");
    await row.getByRole("button", { name: "Mark actioned" }).click();
    await page.getByText("No open report.").waitFor();
    await page.getByLabel("Status").selectOption("actioned");
    await row.waitFor();
    assert.match(await row.innerText(), /removed the ad/);
    const stored = await asAdmin(
      ctx,
      `{ reports(status: actioned) { nodes { id post { id }
      resolutionNote } } }`,
    );
    assert.deepEqual(stored.reports.nodes, [{
      id: reported.report.id,
      post: null,
      resolutionNote: "removed the ad",
    }]);
  });
});
