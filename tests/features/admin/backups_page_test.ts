/** The console's Backups page in Chromium: the settings, "Back up now" (confirmed in the page),
 * the list with sizes. */
// test-plan: once (a page in Chromium; the database under it is incidental)
import assert from "node:assert/strict";
import { assertAccessible, shootWidths, signIn, withConsole } from "../../support/admin.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";
import { listBackups } from "../../../src/platform/backup/files.ts";

const test = testNeeding(CHROMIUM);
const dir = Deno.makeTempDirSync({ prefix: "backups-page-" });

test("admin console: backups listed with size and time; Back up now makes one", async () => {
  try {
    await withConsole(async (ctx) => {
      const { page } = ctx;
      await ctx.open("/admin/sign-in");
      await signIn(ctx, ctx.admin);
      await page.getByRole("link", { name: "Backups" }).click();
      await page.getByRole("heading", { name: "Backups" }).waitFor();
      await page.getByText("No backup yet.").waitFor();
      assert.match(
        await page.locator("p.lead").innerText(),
        /^A backup every 24 h; the newest 3 are kept in .*backups-page-/,
      );
      // Confirmed in the page: cancelled, nothing is made; confirmed, one backup.
      await page.getByRole("button", { name: "Back up now…" }).click();
      await page.getByRole("alert").filter({ hasText: "the newest 3 are kept" }).waitFor();
      await shootWidths(ctx, "lists-backups-confirm");
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("button", { name: "Back up now…" }).waitFor();
      assert.deepEqual(await listBackups(dir), []);
      await page.getByRole("button", { name: "Back up now…" }).click();
      await page.getByRole("button", { name: "Back up now", exact: true }).click();
      await page.getByText(/^Backed up: backup-.*\.ndjson\.gz \(\d+\.\d KB\)\.$/).waitFor();
      const [file] = await listBackups(dir);
      const row = page.locator(`tr[data-backup="${file.name}"]`);
      await row.waitFor();
      assert.match(await row.innerText(), /backup-\d{8}T\d{9}Z\.ndjson\.gz\s+\d+\.\d KB\s+\d{4}-/);
      await assertAccessible(page, "backups page");
      await ctx.shoot("admin-backups");
    }, { env: { BACKUP_DIR: dir, BACKUP_KEEP: "3", BACKUP_INTERVAL_HOURS: "24" } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
