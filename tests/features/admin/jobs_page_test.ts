/** The Jobs page in Chromium as Sidekiq Web's: the dead set paged with its count, the retry set
 * with next attempts and "retry now", one job's page with its whole payload and error, a search
 * kept in the URL, and every destructive or bulk action confirmed in the page. */
// test-plan: once (a page in Chromium; the sets' SQL runs in both modes in tests/features/jobs/admin_test.ts)
import { recountKeptCounts } from "../../support/kept-counts.ts";
import assert from "node:assert/strict";
import { assertAccessible, type ConsoleCtx, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

/**
 * The page at 390 and 1440 px: no sideways scroll, accessible, saved as
 * `.screenshots/<name>-<width>.png`; left at 1440 px.
 */
async function checkWidths(ctx: ConsoleCtx, name: string): Promise<void> {
  const { page } = ctx;
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - globalThis.innerWidth
    );
    assert.ok(overflow <= 0, `${name} scrolls sideways at ${width} px`);
    await assertAccessible(page, `${name} at ${width} px`);
    await ctx.shoot(`${name}-${width}`);
  }
}

/** As the console writes a time. */
const shown = (iso: string) => new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC";

/** 120 dead jobs, newest first `dead…000` to `dead…119`: every third is mail.send. */
async function seedDeadJobs(ctx: ConsoleCtx): Promise<void> {
  const now = ctx.clock.now();
  await ctx.t.deps.db.sql`
    insert into jobs (name, payload, run_at, attempts, max_attempts, last_error, dead_at,
                      public_id, created_at)
    select case when i % 3 = 0 then 'mail.send' else 'sync.pull' end, jsonb_build_object('i', i),
      ${now}, 3, 3,
      case when i % 3 = 0 then 'SMTP refused: 550 mailbox full' else 'Error: timeout after 30 s' end,
      ${now}::timestamptz - make_interval(secs => i + 1),
      'deadjob' || lpad(i::text, 15, '0'), ${now}::timestamptz - interval '1 hour'
    from generate_series(0, 119) as i`;
  await recountKeptCounts(ctx.t.deps.db.sql);
}

const deadId = (i: number) => `deadjob${String(i).padStart(15, "0")}`;

/** Its whole message is far longer than a row shows, over several lines. */
const LONG_ERROR = `upstream timeout while building the report\n${
  "at step fetch_rows (reports.ts:42)\n".repeat(30)
}the end`;
const PAYLOAD = { report: "weekly", options: { teams: ["a", "b"], note: "x".repeat(80) } };

test("admin console: the Jobs page pages, searches and confirms like Sidekiq Web", async () => {
  await withConsole(async (ctx) => {
    const { page, t } = ctx;
    await seedDeadJobs(ctx);
    let builds = 0;
    t.app.jobs.handle("report.build", () => {
      builds++;
      throw new Error(LONG_ERROR);
    });
    await t.app.jobs.enqueue(t.deps.db.sql, "report.build", PAYLOAD, { maxAttempts: 5 });
    await t.app.jobs.runUntilIdle();
    const retrying = (await t.app.jobs.listRetryingJobs())[0];
    assert.equal(builds, 1);

    await ctx.open("/admin/jobs");
    await signIn(ctx, ctx.admin);
    await page.waitForURL(/\/admin\/jobs$/);
    const dead = page.getByRole("region", { name: "Dead set" });
    const retries = page.getByRole("region", { name: "Retries" });
    const caption = (region: typeof dead) => region.locator("caption").innerText();
    await dead.getByText("120 dead jobs, page 1 of 3", { exact: true }).waitFor();
    assert.equal(await caption(retries), "1 retrying job");
    const figures = await page.locator("dl.figures").innerText();
    assert.match(figures, /Retries\s+1/);
    assert.match(figures, /Dead\s+120/);

    // The retry set: its next attempt, the error on one line, shortened.
    const retryRow = retries.locator(`tr[data-job="${retrying.id}"]`);
    const cells = await retryRow.locator("td").allInnerTexts();
    assert.equal(cells[0], "report.build");
    assert.equal(cells[2], "1 of 5");
    const line = `Error: ${LONG_ERROR}`.replace(/\s+/g, " ");
    assert.equal(cells[3], `${line.slice(0, 120).trimEnd()}…`);
    assert.equal(cells[4], shown(retrying.nextAttemptAt.toISOString()));
    assert.ok(retrying.nextAttemptAt > ctx.clock.now());
    await checkWidths(ctx, "admin-jobs-sets");

    // Paging the dead set: 50, 50, then 20, newest first, and back.
    const firstRow = () => dead.locator("tbody tr").first().getAttribute("data-job");
    assert.equal(await firstRow(), deadId(0));
    const pages = dead.getByRole("navigation", { name: "Dead set pages" });
    await pages.getByRole("button", { name: "Next page" }).click();
    await dead.getByText("120 dead jobs, page 2 of 3", { exact: true }).waitFor();
    assert.equal(await firstRow(), deadId(50));
    await pages.getByRole("button", { name: "Next page" }).click();
    await dead.getByText("120 dead jobs, page 3 of 3", { exact: true }).waitFor();
    assert.equal(await dead.locator("tbody tr").count(), 20);
    assert.equal(await pages.getByRole("button", { name: "Next page" }).isDisabled(), true);
    await pages.getByRole("button", { name: "Previous page" }).click();
    await dead.getByText("120 dead jobs, page 2 of 3", { exact: true }).waitFor();

    // Discard asks first; Cancel changes nothing and gives the focus back.
    const row = dead.locator(`tr[data-job="${deadId(61)}"]`);
    await row.getByRole("button", { name: "Discard sync.pull" }).click();
    await row.getByRole("alert").filter({ hasText: "Discard sync.pull for good?" }).waitFor();
    await assertAccessible(page, "jobs, discard asked");
    await ctx.shoot("admin-jobs-confirm");
    await row.getByRole("button", { name: "Cancel" }).click();
    const discard = row.getByRole("button", { name: "Discard sync.pull" });
    await discard.waitFor();
    assert.equal(await discard.evaluate((el) => el === document.activeElement), true);
    assert.equal(await t.app.jobs.countDeadJobs(), 120);
    await discard.click();
    await row.getByRole("button", { name: "Discard for good" }).click();
    await page.getByRole("status").filter({ hasText: "Discarded sync.pull." }).waitFor();
    await dead.getByText("119 dead jobs, page 2 of 3", { exact: true }).waitFor();
    assert.equal(await t.app.jobs.failedJob(deadId(61)), null);

    // A bulk retry of more than one job asks too.
    await dead.getByLabel("Kind").selectOption("mail.send");
    await dead.getByRole("button", { name: "Retry 40 dead jobs of mail.send" }).click();
    await dead.getByRole("alert").filter({ hasText: "Retry 40 dead jobs of mail.send?" })
      .waitFor();
    await dead.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await t.app.jobs.countDeadJobs("SMTP"), 40, "nothing retried");
    await dead.getByRole("button", { name: "Retry 40 dead jobs of mail.send" }).click();
    await dead.getByRole("button", { name: "Retry", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Retried 40 dead jobs of mail.send." })
      .waitFor();
    await dead.getByText("79 dead jobs, page 2 of 2", { exact: true }).waitFor();
    assert.equal(await t.app.jobs.countDeadJobs("SMTP"), 0);
    await asAdmin(ctx, `mutation { discardDeadJobs(name: "sync.pull") { count } }`);
    await t.app.jobs.runUntilIdle();

    // Retried with fresh attempts and no handler here, they fail into the retry set.
    assert.equal(await t.app.jobs.countRetryingJobs("SMTP"), 0);
    assert.equal(await t.app.jobs.countRetryingJobs("mail.send"), 40);

    // Search: by name or error, in both sets, kept in the URL through a reload.
    await ctx.open("/admin/jobs");
    await page.getByLabel("Search failed jobs").fill("timeout");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/admin\/jobs\?q=timeout$/);
    await retries.getByText("1 retrying job matching “timeout”", { exact: true }).waitFor();
    await dead.getByText("No dead job matches “timeout”.", { exact: true }).waitFor();
    await page.reload();
    await retries.getByText("1 retrying job matching “timeout”", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Search failed jobs").inputValue(), "timeout");
    assert.equal(await retries.getByLabel("Kind").count(), 0, "no bulk action while searching");
    await page.getByLabel("Search failed jobs").fill("MAIL.");
    await page.getByRole("button", { name: "Search" }).click();
    await retries.getByText("40 retrying jobs matching “MAIL.”", { exact: true }).waitFor();
    assert.equal(await retries.locator("tbody tr").count(), 40);
    await page.getByRole("link", { name: "Clear" }).click();
    await retries.getByText("41 retrying jobs", { exact: true }).waitFor();

    // A search the service refuses is said so, not a broken page.
    await ctx.open(`/admin/jobs?q=${"x".repeat(201)}`);
    await retries.getByRole("alert").filter({
      hasText: 'Argument "search" is longer than 200 characters',
    }).waitFor();

    // One job's page: reached from its row, with the whole payload and the whole error.
    await ctx.open("/admin/jobs?q=report");
    await retries.getByRole("link", { name: "report.build" }).click();
    await page.waitForURL(new RegExp(`/admin/jobs/${retrying.id}$`));
    await page.getByRole("heading", { name: "report.build", level: 1 }).waitFor();
    const facts = await page.locator("dl.facts").innerText();
    assert.match(facts, /State\s+waiting for a retry/);
    assert.match(facts, /Attempts\s+1 of 5/);
    const next = retrying.nextAttemptAt.toISOString().replace("T", " ").slice(0, 19);
    assert.match(facts, new RegExp(`Next attempt\\s+${next} UTC`));
    const error = page.getByLabel("Last error");
    assert.equal(await error.innerText(), `Error: ${LONG_ERROR}`);
    // Pretty JSON, in the order the database keeps the keys.
    const payload = await page.getByLabel("Payload").innerText();
    assert.deepEqual(JSON.parse(payload), PAYLOAD);
    assert.equal(payload, JSON.stringify(JSON.parse(payload), null, 2));
    // The error scrolls inside itself.
    assert.ok(await error.evaluate((el) => el.scrollHeight > el.clientHeight));
    await checkWidths(ctx, "admin-job");

    // Delete asks first, Cancel keeps it; then Retry now runs it at once.
    await page.getByRole("button", { name: "Delete report.build" }).click();
    await page.getByRole("alert").filter({ hasText: "Delete report.build for good?" }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    assert.equal((await t.app.jobs.failedJob(retrying.id))?.state, "retrying");
    await page.getByRole("button", { name: "Retry now report.build" }).click();
    await page.getByRole("status").filter({ hasText: "Retried report.build." }).waitFor();
    await page.getByText("No dead or retrying job has this id").waitFor();
    assert.equal(await t.app.jobs.runUntilIdle(), 1);
    assert.equal(builds, 2);

    // It failed again: back in the retry set under the same id, one attempt more.
    await page.reload();
    await page.getByRole("heading", { name: "report.build", level: 1 }).waitFor();
    assert.match(await page.locator("dl.facts").innerText(), /Attempts\s+2 of 5/);
    await page.getByRole("button", { name: "Delete report.build" }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted report.build." }).waitFor();
    await page.getByText("No dead or retrying job has this id").waitFor();
    assert.equal(await t.app.jobs.failedJob(retrying.id), null);

    // An id that is no job's, or cannot be one: the same plain answer.
    for (const id of ["nope", "%E0%A4%A", deadId(61)]) {
      await ctx.open(`/admin/jobs/${id}`);
      await page.getByText("No dead or retrying job has this id").waitFor();
    }
  });
});
