/** The console when the service cannot be reached, in Chromium: the polite offline indicator,
 * and the open page loads its data by itself once the service answers again (no reload). */
// test-plan: once (the page and the service's listener under test; the database under them is incidental)
import assert from "node:assert/strict";
import { assertAccessible, signIn, withConsole } from "../../support/admin.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";
import { waitFor } from "../../support/wait.ts";

const test = testNeeding(CHROMIUM);
const OFFLINE = "Offline: the service cannot be reached; retrying…";

test("admin console: offline indicator, and pages recover when the service returns", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    await ctx.open("/admin/sign-in");
    await signIn(ctx, ctx.admin);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    const indicator = page.locator("p.offline[role=status][aria-live=polite]");
    assert.equal(await indicator.innerText(), "");

    // Every request to the service fails at the network: the Jobs page cannot load.
    let refused = 0;
    await page.route("**/graphql", (route) => {
      refused++;
      return route.abort("connectionrefused");
    });
    // The console's own client-side navigation (what its links do), so the page stays open.
    await page.evaluate(() => {
      history.pushState(null, "", "/admin/jobs");
      dispatchEvent(new Event("admin:navigate"));
    });
    await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
    await page.getByText(OFFLINE).waitFor();
    await page.getByText("Loading…").waitFor();
    await assertAccessible(page, "jobs offline");
    await ctx.shoot("admin-offline");
    // It keeps asking (bounded backoff): a second refused attempt after the first.
    const first = refused;
    await waitFor(() => refused > first, { what: "a retry while offline", timeoutMs: 20_000 });

    // A proxy answering 503 for the service counts as unreachable too.
    await page.unroute("**/graphql");
    await page.route("**/graphql", (route) => {
      refused++;
      return route.fulfill({ status: 503, contentType: "text/plain", body: "unavailable" });
    });
    const before = refused;
    await waitFor(() => refused > before, { what: "a retry answered 503", timeoutMs: 20_000 });
    assert.equal(await indicator.innerText(), OFFLINE);

    // The service is back: the page loads its data without a reload, the indicator empties.
    await page.unroute("**/graphql");
    await page.getByText("No dead job.").waitFor({ timeout: 20_000 });
    await page.getByRole("heading", { name: "Queues" }).waitFor();
    assert.equal(await indicator.innerText(), "");
    assert.equal(await page.getByText("Loading…").count(), 0);

    // The refused requests are the test's doing, not the page's.
    ctx.problems.splice(
      0,
      ctx.problems.length,
      ...ctx.problems.filter((p) => !/ERR_CONNECTION_REFUSED|status of 503/.test(p)),
    );
  });
});
