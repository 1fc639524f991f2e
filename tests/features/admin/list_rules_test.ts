/** Pure rules of the console's lists and employee pages: budgets in dollars, page summaries, the
 * review line of an artifact, and cron patterns in words (the service's scheduleInWords). */
import assert from "node:assert/strict";
import {
  dollars,
  pageSummary,
  parseDollars,
  reviewSummary,
} from "../../../src/features/admin/ui/rules.ts";
import { describeCron, isValidCron } from "../../../src/features/workforce/rules.ts";

Deno.test("admin ui rules: budgets are shown and typed in dollars, kept in cents", () => {
  assert.equal(dollars(1250), "$12.50");
  assert.equal(dollars(0), "$0.00");
  assert.equal(dollars(3000), "$30.00");
  for (
    const [text, cents] of [
      ["12.5", 1250],
      ["12.50", 1250],
      ["$12.50", 1250],
      [" 12 ", 1200],
      ["0", 0],
      [".5", 50],
      ["1,250.05", 125005],
      ["100000", 10_000_000],
    ] as const
  ) {
    assert.deepEqual(parseDollars(text), { cents }, text);
  }
  for (const text of ["", "-5", "abc", "12.345", "1e3", "12,5", "1,25.00", "$", "12.5.1", "\0"]) {
    assert.deepEqual(parseDollars(text), { error: "Enter an amount in dollars, such as 12.50." });
  }
  assert.deepEqual(parseDollars("100000.01"), { error: "Enter at most $100000.00." });
  assert.deepEqual(parseDollars("9".repeat(400)), { error: "Enter at most $100000.00." });
});

Deno.test("admin ui rules: a page of a list says which rows it shows of how many", () => {
  assert.equal(pageSummary(1, 50, 120, "post"), "1–50 of 120 posts");
  assert.equal(pageSummary(101, 20, 120, "post"), "101–120 of 120 posts");
  assert.equal(pageSummary(1, 3, 3, "post"), "3 posts");
  assert.equal(pageSummary(1, 1, 1, "post"), "1 post");
  assert.equal(pageSummary(1, 0, 0, "post"), "0 posts");
});

Deno.test("admin ui rules: who reviewed an artifact and when", () => {
  const at = "2026-01-05 09:00 UTC";
  const ada = { username: "ada" };
  assert.equal(
    reviewSummary({ approvalStatus: "approved", reviewedBy: "admin", reviewer: ada }, at),
    "approved by ada at 2026-01-05 09:00 UTC",
  );
  assert.equal(
    reviewSummary({ approvalStatus: "rejected", reviewedBy: "admin", reviewer: ada }, at),
    "rejected by ada at 2026-01-05 09:00 UTC",
  );
  assert.equal(
    reviewSummary({ approvalStatus: "approved", reviewedBy: "system", reviewer: null }, at),
    "approved automatically at 2026-01-05 09:00 UTC",
  );
  assert.equal(
    reviewSummary({ approvalStatus: "auto_rejected", reviewedBy: null, reviewer: null }, null),
    "auto-rejected",
  );
  assert.equal(
    reviewSummary({ approvalStatus: "pending", reviewedBy: null, reviewer: null }, null),
    "pending review",
  );
});

Deno.test("admin ui rules: cron patterns in words, and null for shapes left as cron", () => {
  const cases: [string, string | null][] = [
    ["0 9 * * *", "every day at 09:00 UTC"],
    ["30 8 * * 1-5", "every Monday to Friday at 08:30 UTC"],
    ["0 9 * * 1", "every Monday at 09:00 UTC"],
    ["0 9 * * MON,wed,Fri", "every Monday, Wednesday and Friday at 09:00 UTC"],
    ["0 9 * * 7", "every Sunday at 09:00 UTC"],
    ["0 9 * * 0,6", "every Sunday and Saturday at 09:00 UTC"],
    ["0 9,17 * * *", "every day at 09:00 and 17:00 UTC"],
    ["15 6 1 * *", "on day 1 of every month at 06:15 UTC"],
    ["0 0 1,15 * *", "on day 1 and 15 of every month at 00:00 UTC"],
    ["0 0 1 1 *", "on day 1 of January at 00:00 UTC"],
    ["0 12 * jan,jul *", "every day in January and July at 12:00 UTC"],
    ["0 12 * 6 1", "every Monday in June at 12:00 UTC"],
    ["* * * * *", "every minute"],
    ["*/15 * * * *", "every 15 minutes"],
    ["0 * * * *", "every hour"],
    ["45 * * * *", "every hour at minute 45"],
    ["0 */6 * * *", "every 6 hours"],
    ["0 * * * 1-5", "every hour, on Monday to Friday"],
    ["0 0 9 * * *", "every day at 09:00 UTC"],
    ["@daily", "every day at 00:00 UTC"],
    ["@weekly", "every Sunday at 00:00 UTC"],
    ["@hourly", "every hour"],
    ["0 9 ? * 2", "every Tuesday at 09:00 UTC"],
    // Left as cron: both day fields (croner matches either), steps within ranges, L, #, too
    // many times, a seconds field, garbage.
    ["0 9 1 * 1", null],
    ["0 9-17/2 * * *", null],
    ["0 9 L * *", null],
    ["0 9 * * 1#2", null],
    ["0 9-17 * * *", null],
    ["*/10 0 9 * * *", null],
    ["* 9 * * *", null],
    ["every tuesday", null],
    ["", null],
  ];
  for (const [cron, words] of cases) {
    assert.equal(describeCron(cron), words, cron);
    if (cron) assert.ok(isValidCron(cron) || words === null, `croner accepts ${cron}`);
  }
});
