/** The service really stopped and started again while a console page is open, in Chromium: on
 * every page the offline indicator shows while nothing listens on the service's port, and once
 * the service listens again the page clears it and shows what changed meanwhile, by itself (no
 * reload, no navigation). */
import assert from "node:assert/strict";
import { assertAccessible, type ConsoleCtx, signIn, withConsole } from "../../support/admin.ts";
import { asAdmin, completeRun, createEmployee } from "../../support/workforce.ts";
import { CHROMIUM, testNeeding } from "../../support/requirements.ts";

const test = testNeeding(CHROMIUM);
const OFFLINE = "Offline: the service cannot be reached; retrying…";
/** Recovery waits for the `/cable` connection's next try (1 s, doubling): room for a few. */
const RECOVERY_MS = 20_000;

test("admin console: the service stopped and restarted while a page is open", async () => {
  const backups = await Deno.makeTempDir({ prefix: "outage-backups-" });
  try {
    await withConsole(async (ctx) => {
      const { page } = ctx;
      const seeded = await seed(ctx);
      await ctx.open("/admin/sign-in");
      await signIn(ctx, ctx.admin);
      await page.getByRole("heading", { name: "Review board" }).waitFor();
      await page.setViewportSize({ width: 1440, height: 900 });
      const offline = page.getByText(OFFLINE);
      const port = Number(new URL(ctx.app.url).port);
      const main = page.locator("main");

      /** Stops the service under the open page; `meanwhile` changes data through the app (its
       * database stays up) while the page cannot see it; then the service listens again. */
      const outage = async (meanwhile: () => Promise<unknown>, whileDown?: () => Promise<void>) => {
        await ctx.app.stop();
        await assert.rejects(
          Deno.connect({ hostname: "127.0.0.1", port }),
          Deno.errors.ConnectionRefused,
        );
        await offline.waitFor();
        await whileDown?.();
        await meanwhile();
        const answered = page.waitForResponse((r) => r.url().endsWith("/graphql") && r.ok(), {
          timeout: RECOVERY_MS,
        });
        ctx.app.restart();
        await answered;
        await offline.waitFor({ state: "detached", timeout: RECOVERY_MS });
      };
      /** The page has its data, no failure, and is the same document as before the outage. */
      const recovered = async (name: string) => {
        assert.equal(await main.getByText("Loading…").count(), 0, `${name} still loading`);
        assert.equal(await main.locator(".failure").count(), 0, `${name} shows a failure`);
        assert.equal(await page.evaluate("globalThis.openedBeforeOutage"), name, "no reload");
      };
      const open = async (name: string, path: string, heading: string) => {
        await ctx.open(path);
        await page.getByRole("heading", { name: heading }).first().waitFor();
        await main.getByText("Loading…").waitFor({ state: "detached" });
        await page.evaluate(`globalThis.openedBeforeOutage = ${JSON.stringify(name)}`);
      };
      /** Screenshots at 1440 and 390 px, with no sideways scroll at 390. */
      const shootWidths = async (name: string) => {
        await ctx.shoot(`${name}-1440`);
        await page.setViewportSize({ width: 390, height: 844 });
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= 390),
          `${name} scrolls sideways at 390 px`,
        );
        await assertAccessible(page, name);
        await ctx.shoot(`${name}-390`);
        await page.setViewportSize({ width: 1440, height: 900 });
      };

      // The review board picks up an artifact that arrived while it was cut off.
      await open("review", "/admin/", "Review board");
      await main.getByRole("heading", { name: "Weekly report" }).first().waitFor();
      await outage(
        () =>
          completeRun(ctx, seeded.ada.id, {
            artifact: { kind: "report", title: "Arrived while offline", payload: "Hello." },
          }),
        () => shootWidths("admin-outage-review"),
      );
      await main.getByRole("heading", { name: "Arrived while offline" }).waitFor();
      await recovered("review");

      await open("employees", "/admin/ai_employees", "AI employees");
      await outage(() => createEmployee(ctx, { name: "Hired while offline" }));
      await main.getByText("Hired while offline").waitFor();
      await recovered("employees");

      await open("employee", `/admin/ai_employees/${seeded.ada.id}`, seeded.ada.name);
      let runId = "";
      await outage(async () => (runId = await completeRun(ctx, seeded.ada.id)));
      await main.getByRole("link", { name: runId.slice(0, 8) }).waitFor();
      await recovered("employee");

      await open("run", `/admin/ai_runs/${seeded.runId}`, "Run");
      await outage(() => approve(ctx, seeded.artifactId));
      await main.getByRole("cell", { name: /^approved/ }).waitFor();
      await recovered("run");

      await open("feedback", "/admin/feedback_posts", "Feedback triage");
      await outage(() => feedbackPost(ctx, "Posted while offline"));
      await main.getByRole("link", { name: "Posted while offline" }).waitFor();
      await recovered("feedback");

      // A form's choice not yet sent stays chosen through the outage; sent while the service is
      // down, the page says the action did not reach it (no uncaught error in the page).
      await open("feedback-post", `/admin/feedback_posts/${seeded.postId}`, "Dark mode please");
      await page.getByLabel("New status").selectOption("planned");
      const failedAction = page.getByRole("alert").filter({ hasText: "did not reach the service" });
      await outage(
        () =>
          ctx.as("user-1").data(
            `mutation($id: String!) { createFeedbackComment(postId: $id, body: "Said while offline") {
            errors { code } } }`,
            { id: seeded.postId },
          ),
        async () => {
          await page.getByRole("button", { name: "Change status" }).click();
          await failedAction.waitFor();
          await ctx.shoot("admin-outage-failed-action");
        },
      );
      await main.getByText("Said while offline").waitFor();
      assert.equal(await page.getByLabel("New status").inputValue(), "planned");
      await failedAction.getByRole("button", { name: "Dismiss" }).click();
      await failedAction.waitFor({ state: "detached" });
      await recovered("feedback-post");

      await open("deliveries", "/admin/deliveries", "Delivery");
      await outage(async () => {
        const pending = (await asAdmin(ctx, `{ pendingArtifacts { id title } }`)).pendingArtifacts;
        const arrived = pending.find((a: { title: string }) => a.title === "Arrived while offline");
        await approve(ctx, arrived.id);
      });
      await main.getByRole("link", { name: "Arrived while offline" }).waitFor();
      await recovered("deliveries");

      // The Jobs page opened while the service is away waits on "Loading…", then shows its
      // figures and a job that died meanwhile.
      await page.evaluate(`globalThis.openedBeforeOutage = "jobs"`);
      await outage(
        async () => {
          ctx.t.app.jobs.handle("outage_probe", () => {
            throw new Error("died while the console was offline");
          });
          await ctx.t.app.jobs.enqueue(ctx.t.deps.db.sql, "outage_probe", {}, { maxAttempts: 1 });
          await ctx.t.app.jobs.runUntilIdle();
        },
        async () => {
          await page.getByRole("link", { name: "Jobs", exact: true }).click();
          await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
          await main.getByText("Loading…").waitFor();
          await shootWidths("admin-outage-jobs");
        },
      );
      await main.getByRole("heading", { name: "Dead set" }).waitFor();
      await main.getByText("died while the console was offline").waitFor();
      await main.getByRole("heading", { name: "Queues" }).waitFor();
      await recovered("jobs");

      await open("flags", "/admin/ai_flags", "AI flags");
      const coaching = main.getByRole("row").filter({ hasText: "coaching" });
      const setting = await coaching.locator(".flag-setting").innerText();
      await outage(() =>
        asAdmin(
          ctx,
          `mutation($on: Boolean!) { setAiFlag(name: coaching, enabled: $on) {
          errors { code } } }`,
          { on: setting === "off" },
        )
      );
      const flipped = setting === "off" ? "on" : "off";
      await coaching.locator(".flag-setting").filter({ hasText: flipped }).waitFor();
      await recovered("flags");

      await open("reports", "/admin/reports", "Report");
      let reportId = "";
      await outage(async () => {
        const reported = await ctx.as("user-1").data(
          `mutation($id: String!) { reportPost(postId: $id, reason: spam, details: "an ad") {
            report { id } errors { code } } }`,
          { id: seeded.communityPostId },
        );
        reportId = reported.reportPost.report.id;
      });
      await main.locator(`tr[data-report="${reportId}"]`).waitFor();
      await recovered("reports");

      await open("backups", "/admin/backups", "Backups");
      const file = "backup-20260105T120000000Z.ndjson.gz";
      await outage(() => Deno.writeFile(`${backups}/${file}`, new Uint8Array(2048)));
      await main.locator(`tr[data-backup="${file}"]`).waitFor();
      await recovered("backups");

      // The refused connections are the test's doing, not the page's.
      const refused = /ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/;
      ctx.problems.splice(0, ctx.problems.length, ...ctx.problems.filter((p) => !refused.test(p)));
    }, { env: { BACKUP_DIR: backups } });
  } finally {
    await Deno.remove(backups, { recursive: true });
  }
});

/** An employee with a run whose artifact is pending, a feedback post and a community post. */
async function seed(ctx: ConsoleCtx) {
  const ada = await createEmployee(ctx, { name: "Ada Reporter" });
  const runId = await completeRun(ctx, ada.id);
  const { pendingArtifacts } = await asAdmin(ctx, `{ pendingArtifacts { id } }`);
  const postId = await feedbackPost(ctx, "Dark mode please");
  const community = (await ctx.as("user-1").data(
    `mutation { createCommunity(name: "Runners") { community { id } errors { code } } }`,
  )).createCommunity.community.id;
  await ctx.as("user-2").data(
    `mutation($id: String!) { joinCommunity(communityId: $id) { errors { code } } }`,
    { id: community },
  );
  const communityPostId = (await ctx.as("user-2").data(
    `mutation($id: String!) { createCommunityPost(communityId: $id, body: "cheap pills here") {
      post { id } errors { code } } }`,
    { id: community },
  )).createCommunityPost.post.id;
  return {
    ada: { id: ada.id, name: ada.name as string },
    runId,
    artifactId: pendingArtifacts[0].id as string,
    postId,
    communityPostId: communityPostId as string,
  };
}

async function feedbackPost(ctx: ConsoleCtx, title: string): Promise<string> {
  const created = await ctx.as("user-1").data(
    `mutation($title: String!) { createFeedbackPost(title: $title, category: feature,
      description: "The app is too bright at night.") { post { id } errors { code } } }`,
    { title },
  );
  assert.deepEqual(created.createFeedbackPost.errors, []);
  return created.createFeedbackPost.post.id;
}

async function approve(ctx: ConsoleCtx, id: string): Promise<void> {
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code } } }`,
    { id },
  );
  assert.deepEqual(data.approveAiArtifact.errors, []);
}
