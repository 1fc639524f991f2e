/** Who gets in, in Chromium: an anonymous visitor sees only sign-in and no data, a non-admin a
 * refusal page, a bad token is refused; fallback sign-in explained, disabled or working. */
// test-plan: once (pages in Chromium; the database under them is incidental)
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertTokensNotInUrls,
  signIn,
  withConsole,
} from "../../support/admin.ts";
import { mintFallbackToken } from "../../../src/graphql/auth.ts";
import { AUDIENCE } from "../../support/identity.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);

const SECRET = "a-fallback-secret-of-at-least-32-characters!";

test("admin console: anonymous and non-admin visitors are refused; fallback disabled says so", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const graphql: string[] = [];
    page.on("request", (req) => {
      if (req.url().endsWith("/graphql")) graphql.push(req.postData() ?? "");
    });

    // Anonymous: every page sends to sign-in and no GraphQL data is asked for.
    for (const path of ["/admin", "/admin/jobs", "/admin/feedback_posts/abc"]) {
      await ctx.open(path);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      assert.match(page.url(), /\/admin\/sign-in$/);
    }
    assert.equal(graphql.length, 0);
    assert.equal(await page.getByRole("navigation").count(), 0);

    // A token the service refuses.
    await signIn(ctx, "not-a-token");
    await page.getByText("The service refused this token").waitFor();
    assert.equal(await page.evaluate("sessionStorage.length"), 1, "only the wanted page is kept");

    // Fallback, disabled here.
    await ctx.open("/admin/sign-in?fallback");
    await page.getByRole("heading", { name: "Fallback sign-in" }).waitFor();
    assert.match(
      await page.locator("#fallback-disabled").innerText(),
      /Fallback sign-in is disabled[\s\S]*FALLBACK_AUTH_SECRET is not set/,
    );
    assert.match(
      await page.locator("main").innerText(),
      /main\.ts fallback-token --sub <admin subject>/,
    );
    assert.equal(await page.getByLabel(/token/i).count(), 0);
    await assertAccessible(page, "fallback sign-in (disabled)");
    await ctx.shoot("admin-sign-in-fallback");

    // A user who is not an admin: the refusal page, and no admin data.
    await ctx.open("/admin/jobs");
    await signIn(ctx, ctx.user);
    await page.getByRole("heading", { name: "Not an admin" }).waitFor();
    assert.equal(await page.getByRole("navigation").count(), 0);
    assert.ok(graphql.length > 0);
    assert.ok(graphql.every((body) => !body.includes("deadJobs")), "no admin query was sent");
    await assertAccessible(page, "refusal");
    await ctx.shoot("admin-refused");
    await page.getByRole("button", { name: "Sign in with another token" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    assert.equal(await page.evaluate(`sessionStorage.getItem("admin.sessionToken")`), null);

    await assertTokensNotInUrls(ctx, [ctx.user, "not-a-token"]);
  });
});

test("admin console: fallback sign-in with a token minted for an admin", async () => {
  await withConsole(async (ctx) => {
    const { page } = ctx;
    const token = await mintFallbackToken(SECRET, "admin-1", 3600, ctx.clock.now(), AUDIENCE);
    await ctx.open("/admin/sign-in?fallback");
    await page.getByText("Fallback sign-in is enabled on this service").waitFor();
    await signIn(ctx, token);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    assert.match(await page.locator(".empty").innerText(), /Nothing to review/);
    await assertTokensNotInUrls(ctx, [token]);
    // Signing out forgets the token.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    assert.equal(await page.evaluate("sessionStorage.length"), 0);
  }, { env: { FALLBACK_AUTH_SECRET: SECRET } });
});

test("admin console: the identity provider's sign-in page returns the token in the fragment", async () => {
  const signInUrl = "https://idp.example/authorize?client_id=console&redirect=/admin/sign-in";
  await withConsole(async (ctx) => {
    const { page } = ctx;
    await ctx.open("/admin/sign-in");
    const link = page.getByRole("link", { name: "Sign in with the identity provider" });
    assert.equal(await link.getAttribute("href"), signInUrl);
    await assertAccessible(page, "sign-in with provider");
    // The provider sends the browser back (a fresh page load) with the token after '#', which no
    // request carries.
    await page.goto("about:blank");
    await ctx.open(`/admin/sign-in#token=${ctx.admin}`);
    await page.getByRole("heading", { name: "Review board" }).waitFor();
    assert.ok(!page.url().includes(ctx.admin), page.url());
    assert.ok(!page.url().includes("#"), page.url());
    await assertTokensNotInUrls(ctx, [ctx.admin]);
  }, { env: { ADMIN_SIGN_IN_URL: signInUrl } });
});
