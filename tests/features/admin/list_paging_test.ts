/**
 * The console's lists page through cursor connections in Chromium: 120 feedback posts reached
 * once each over three pages, with the count shown, the filters, sort and page kept in the URL
 * (reload and back return to them) and the page's caption focused; deliveries, reports, an
 * employee's runs and a post's comments the same way, more lightly.
 */
import { recountKeptCounts } from "../../support/kept-counts.ts";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  assertAccessible,
  type ConsoleCtx,
  shootWidths,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { createEmployee, sqlOf } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

/** The first column of the table's rows. */
const firstCells = (page: Page) =>
  page.locator("main table tbody tr td:first-child").allInnerTexts();

async function waitForCaption(page: Page, text: string) {
  await page.locator("main caption").filter({ hasText: text }).waitFor();
}

/** 120 feature requests a minute apart ("Post 001" oldest, votes n mod 7), and 5 bug reports. */
async function seedPosts(ctx: ConsoleCtx) {
  await ctx.idOf("user-1");
  const author = await ctx.userId("user-1");
  await sqlOf(ctx)`
    insert into feedback_posts (public_id, author_id, title, description, category, vote_count,
      created_at)
    select 'post' || lpad(n::text, 18, '0'),
      ${author}, case when n <= 120 then 'Post ' || lpad(n::text, 3, '0') else 'Bug ' || n end,
      'details', case when n <= 120 then 'feature' else 'bug' end, n % 7,
      timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
    from generate_series(1, 125) n`;
  await recountKeptCounts(sqlOf(ctx));
}

test("admin console: 120 feedback posts page by page, filters and page in the URL", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    await seedPosts(ctx);
    await ctx.open("/admin/feedback_posts");
    await signIn(ctx, ctx.admin);
    await waitForCaption(page, "1–50 of 125 posts, newest first");

    // A filter goes into the URL and back to the first page.
    await page.getByLabel("Category").selectOption("feature");
    await waitForCaption(page, "1–50 of 120 posts, newest first");
    assert.equal(new URL(page.url()).search, "?category=feature");
    const seen: string[] = [];
    const expectPage = async (caption: string, first: number, last: number) => {
      await waitForCaption(page, caption);
      const titles = await firstCells(page);
      const want = [];
      for (let n = first; n >= last; n--) want.push(`Post ${String(n).padStart(3, "0")}`);
      assert.deepEqual(titles, want, caption);
      return titles;
    };
    seen.push(...await expectPage("1–50 of 120 posts", 120, 71));
    assert.equal(await page.getByRole("link", { name: "Previous page" }).count(), 0);
    await assertAccessible(page, "feedback, first page");

    await page.getByRole("link", { name: "Next page" }).click();
    seen.push(...await expectPage("51–100 of 120 posts", 70, 21));
    // Focus moves to the list's caption, which says where the page is.
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "CAPTION");
    const second = new URL(page.url());
    assert.equal(second.searchParams.get("category"), "feature");
    assert.equal(second.searchParams.get("from"), "51");
    assert.ok(second.searchParams.get("after"));

    await page.getByRole("link", { name: "Next page" }).click();
    seen.push(...await expectPage("101–120 of 120 posts", 20, 1));
    assert.equal(await page.getByRole("link", { name: "Next page" }).count(), 0);
    // Every post once.
    assert.equal(seen.length, 120);
    assert.equal(new Set(seen).size, 120);

    // A reload keeps the filter and the page.
    await page.reload();
    await expectPage("101–120 of 120 posts", 20, 1);
    assert.equal(await page.getByLabel("Category").inputValue(), "feature");

    // Backward, then the browser's back and forward buttons.
    await page.getByRole("link", { name: "Previous page" }).click();
    await expectPage("51–100 of 120 posts", 70, 21);
    assert.ok(new URL(page.url()).searchParams.get("before"));
    await page.goBack();
    await expectPage("101–120 of 120 posts", 20, 1);
    await page.goForward();
    await expectPage("51–100 of 120 posts", 70, 21);
    await page.getByRole("link", { name: "Previous page" }).click();
    await expectPage("1–50 of 120 posts", 120, 71);
    assert.equal(new URL(page.url()).search, "?category=feature", "the first page has no cursor");

    // Most votes first: another order, from its first page; reload keeps it.
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "51–100 of 120 posts");
    await page.getByLabel("Sort").selectOption("top");
    await waitForCaption(page, "1–50 of 120 posts, most votes first");
    assert.equal(new URL(page.url()).search, "?category=feature&sort=top");
    const top = await firstCells(page);
    assert.equal(top[0], "Post 118", "6 votes, the newest of them");
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "51–100 of 120 posts, most votes first");
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "101–120 of 120 posts, most votes first");
    await page.reload();
    await waitForCaption(page, "101–120 of 120 posts, most votes first");
    assert.equal(await page.getByLabel("Sort").inputValue(), "top");
    const all = new Set([...top, ...await firstCells(page)]);
    await page.getByRole("link", { name: "Previous page" }).click();
    await waitForCaption(page, "51–100 of 120 posts, most votes first");
    for (const title of await firstCells(page)) all.add(title);
    assert.equal(all.size, 120, "every post once in the other order too");

    // A filter with nothing in it; an unknown value in the URL is ignored.
    await page.getByLabel("Status").selectOption("declined");
    await waitForCaption(page, "0 posts, most votes first");
    await ctx.open("/admin/feedback_posts?status=nonsense&category=feature");
    await waitForCaption(page, "1–50 of 120 posts, newest first");
    assert.equal(await page.getByLabel("Status").inputValue(), "");

    await ctx.open("/admin/feedback_posts?category=feature");
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "51–100 of 120 posts");
    await shootWidths(ctx, "lists-feedback");
  });
});

test("admin console: deliveries, reports and an employee's runs page too", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const sql = sqlOf(ctx);
    const adminName = (await ctx.as("admin-1").data(`{ me { username } }`)).me.username;
    await ctx.idOf("user-1");
    await ctx.idOf("user-2");
    const admin = await ctx.userId("admin-1");
    const employee = await createEmployee(ctx, { name: "Ada Reporter" });
    const [{ id: employeeId }] = await sql<{ id: string }[]>`
      select id from ai_employees where public_id = ${employee.id}`;
    // 80 runs (their ids start with their number); the first 55 have an approved artifact, of
    // which the last 3 failed to deliver.
    await sql`
      with runs as (
        insert into ai_runs (public_id, employee_id, status, trigger, created_at)
        select lpad(n::text, 3, '0') || 'r' || repeat('x', 18), ${employeeId}, 'succeeded',
          'manual', timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
        from generate_series(1, 80) n
        returning id, public_id, created_at)
      insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
        approval_status, reviewer_id, reviewed_at, delivery_status, delivered_at, created_at)
      select 'a' || public_id, id, ${employeeId}, 'report', 'Report ' || left(public_id, 3),
        'text', 'approved', ${admin}, created_at + interval '1 minute',
        case when left(public_id, 3) > '052' then 'failed' else 'delivered' end,
        created_at + interval '2 minutes', created_at
      from runs where left(public_id, 3) <= '055'`;
    await recountKeptCounts(sql);
    const reporter = await ctx.userId("user-1");
    const reported = await ctx.userId("user-2");
    await sql`
      insert into user_reports (public_id, reporter_id, reported_user_id, reason, details, status,
        resolved_by, resolved_at, created_at)
      select 'report' || lpad(n::text, 16, '0'), ${reporter}, ${reported}, 'spam',
        'Report number ' || n, 'dismissed', ${admin}, now(),
        timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
      from generate_series(1, 53) n`;

    await ctx.open("/admin/deliveries");
    await signIn(ctx, ctx.admin);
    await waitForCaption(page, "1–50 of 55 approved artifacts");
    // Reviewer and time on each row, the title a link to the artifact's page.
    const newest = page.locator("tr[data-artifact]").first();
    assert.equal(
      await newest.locator("td.review").innerText(),
      `approved by ${adminName} at 2026-01-01 00:56 UTC`,
    );
    assert.equal(
      await newest.getByRole("link", { name: "Report 055" }).getAttribute("href"),
      "/admin/artifacts/a055rxxxxxxxxxxxxxxxxxx",
    );
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "51–55 of 55 approved artifacts");
    await page.getByLabel("Delivery status").selectOption("failed");
    await waitForCaption(page, "3 approved artifacts");
    await page.reload();
    await waitForCaption(page, "3 approved artifacts");
    assert.equal(new URL(page.url()).search, "?delivery=failed");
    assert.equal(await page.getByRole("button", { name: /^Retry delivery/ }).count(), 3);
    await ctx.open("/admin/deliveries");
    await waitForCaption(page, "1–50 of 55 approved artifacts");
    await shootWidths(ctx, "lists-deliveries");

    await ctx.open("/admin/reports?status=dismissed");
    await waitForCaption(page, "1–50 of 53 dismissed reports, oldest first");
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "51–53 of 53 dismissed reports");
    assert.match(await page.locator("main tbody").innerText(), /Report number 51/);
    await shootWidths(ctx, "lists-reports");
    await page.reload();
    await waitForCaption(page, "51–53 of 53 dismissed reports");
    assert.equal(await page.getByLabel("Status").inputValue(), "dismissed");
    await page.getByLabel("Status").selectOption("open");
    await page.getByText("No open report.").waitFor();

    await ctx.open(`/admin/ai_employees/${employee.id}`);
    await waitForCaption(page, "1–20 of 80 runs, newest first");
    const runs = async () => (await firstCells(page)).map((id) => id.trim());
    const firstRuns = await runs();
    await page.getByRole("link", { name: "Next page" }).click();
    await waitForCaption(page, "21–40 of 80 runs");
    const secondRuns = await runs();
    assert.equal(new Set([...firstRuns, ...secondRuns]).size, 40);
    await page.getByRole("link", { name: "Previous page" }).click();
    await waitForCaption(page, "1–20 of 80 runs");
    assert.deepEqual(await runs(), firstRuns);

    // A post's comments, oldest first, numbered across pages.
    const [post] = await sql<{ id: string; publicId: string }[]>`
      insert into feedback_posts (public_id, author_id, title, description, category,
        comment_count)
      values ('postwithcomments000001', ${reporter}, 'Dark mode', 'please', 'feature', 55)
      returning id, public_id as "publicId"`;
    await recountKeptCounts(sql);
    await sql`
      insert into feedback_comments (public_id, post_id, author_id, body, created_at)
      select 'comment' || lpad(n::text, 15, '0'), ${post.id}, ${reporter}, 'Comment ' || n,
        timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
      from generate_series(1, 55) n`;
    await ctx.open(`/admin/feedback_posts/${post.publicId}`);
    const comments = page.getByRole("heading", { name: "Comments" });
    await comments.filter({ hasText: "(1–50 of 55 comments)" }).waitFor();
    await page.getByRole("link", { name: "Next page" }).click();
    await comments.filter({ hasText: "(51–55 of 55 comments)" }).waitFor();
    assert.equal(await page.locator("ol.comments").getAttribute("start"), "51");
    assert.match(await page.locator("ol.comments li").first().innerText(), /Comment 51/);
    await shootWidths(ctx, "lists-feedback-post");

    await ctx.open("/admin/ai_employees");
    await waitForCaption(page, "1 AI employee");
    assert.equal(await page.getByRole("navigation", { name: "Pages of AI employees" }).count(), 0);
  });
});
