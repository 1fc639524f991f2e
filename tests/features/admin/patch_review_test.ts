/** Code patches on the review board in Chromium: the files each touches, whether it applies at
 * its base commit, a protected path, and approval refused for it. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { completeRun, createEmployee } from "../../support/workforce.ts";
import { startFakeGitHub } from "../../support/github.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const change = (path: string, from: string, to: string) =>
  `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-${from}\n+${to}\n`;

test("admin console: a code patch's files, whether it applies, and a protected path", async () => {
  const github = await startFakeGitHub({
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\n",
    ".github/workflows/ci.yml": "on: push\n",
  });
  try {
    await withConsole(async (ctx) => {
      const { page } = ctx;
      const base = github.branches.get("main")!;
      const short = base.slice(0, 7);
      const employee = await createEmployee(ctx, { name: "Cody Coder" });
      const patch = async (title: string, payload: string) => {
        await completeRun(ctx, employee.id, {
          artifact: {
            kind: "code_patch",
            title,
            payload,
            metadata: { base_sha: base, files: ["src/a.ts"] },
          },
        });
        ctx.clock.advance(60_000);
      };
      await patch(
        "Bump both constants",
        change("src/a.ts", "export const a = 1;", "export const a = 10;") +
          change("src/b.ts", "export const b = 2;", "export const b = 20;"),
      );
      await patch(
        "A stale patch",
        change("src/a.ts", "export const a = 0;", "export const a = 3;"),
      );
      await patch(
        "Also run CI on pull requests",
        change("src/a.ts", "export const a = 1;", "export const a = 4;") +
          change(".github/workflows/ci.yml", "on: push", "on: [push, pull_request]"),
      );

      await ctx.open("/admin/sign-in");
      await signIn(ctx, ctx.admin);
      await page.getByRole("heading", { name: "Review board" }).waitFor();
      const card = (title: string) =>
        page.locator("article.card", { has: page.getByRole("heading", { name: title }) });
      const check = (title: string) => card(title).getByRole("note", { name: "patch check" });

      await card("Bump both constants").waitFor();
      assert.equal(
        (await check("Bump both constants").innerText()).trim(),
        `Applies at ${short} · 2 files: src/a.ts, src/b.ts`,
      );
      assert.equal(await card("Bump both constants").locator(".patch-check.warn").count(), 0);

      const stale = await check("A stale patch").innerText();
      assert.match(
        stale,
        new RegExp(`^Does not apply at ${short}: the patch does not apply to src/a.ts`),
      );
      assert.match(stale, /1 file: src\/a\.ts\. Delivery would fail/);

      const ci = card("Also run CI on pull requests");
      const warning = ci.getByRole("note", { name: "protected paths" });
      assert.match(
        await warning.innerText(),
        /^Touches a protected path: \.github\/workflows\/ci\.yml \(\.github\/\)\./,
      );
      assert.match(await warning.innerText(), /cannot be approved/);
      assert.match(
        await check("Also run CI on pull requests").innerText(),
        new RegExp(`Applies at ${short} · 2 files: src/a.ts, .github/workflows/ci.yml`),
      );
      await assertAccessible(page, "review board with patch checks");
      await ctx.shoot("admin-review-patch-check");

      await ci.getByRole("button", { name: "Approve", exact: true }).click();
      const refusal = ci.locator(".errors li[data-code=protected_path]");
      await refusal.waitFor();
      assert.match(
        await refusal.innerText(),
        /touches the protected path \.github\/workflows\/ci\.yml/,
      );
      assert.equal(await page.locator("article.card").count(), 3, "still pending");
      await ctx.shoot("admin-review-protected-path-refused");
    }, { env: github.env });
  } finally {
    await github.close();
  }
});
