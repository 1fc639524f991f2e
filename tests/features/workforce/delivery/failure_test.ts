import assert from "node:assert/strict";
import { logged } from "../../../support/app.ts";
import { gql } from "../../../support/graphql.ts";
import { startFakeServer } from "../../../support/http.ts";
import { asAdmin, sqlOf } from "../../../support/workforce.ts";
import { GITHUB_TOKEN } from "../../../support/github.ts";
import {
  chatAdapter,
  DeliveryRefused,
} from "../../../../src/features/workforce/delivery/adapters.ts";
import type { DeliveryItem } from "../../../../src/features/workforce/delivery/rules.ts";
import {
  approveAndDeliver,
  artifactOfRun,
  deliveredArtifact,
  pendingArtifact,
  RETRY,
  withDelivery,
} from "../../../support/delivery.ts";

Deno.test("forge failure: delivery_status failed with the error, a tracker report, no automatic retry; the admin retry delivers", () =>
  withDelivery(async (ctx) => {
    ctx.github.failWith = { pattern: /^POST .*\/pulls$/, status: 502 };
    const a = await deliveredArtifact(ctx, { kind: "draft_post", payload: "Hello." });
    assert.equal(a.deliveryStatus, "failed");
    assert.equal(a.deliveredAt, null);
    assert.equal(a.metadata.destination, "pull_request");
    assert.equal(a.metadata.failedStep, "pull_request");
    assert.equal(a.metadata.error, "GitHub POST /pulls answered 502: Failure");
    const reports = logged(ctx.t.log, "unhandled error");
    assert.equal(reports.length, 1);
    assert.equal(reports[0].artifact_id, a.id);
    assert.equal(reports[0].step, "pull_request");
    // The job ended (no retry loop): nothing is queued, no dead job.
    const [{ count }] = await sqlOf(ctx)`
      select count(*)::int as count from jobs where name = 'ai_workforce.deliver_artifact'`;
    assert.equal(count, 0);
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 0);
    assert.ok(!JSON.stringify(ctx.t.log.entries).includes(GITHUB_TOKEN), "token never logged");

    ctx.github.failWith = null;
    const { retryAiArtifactDelivery: retried } = await asAdmin(ctx, RETRY, { id: a.id });
    assert.deepEqual(retried.errors, []);
    assert.equal(retried.artifact.deliveryStatus, null, "queued again");
    const again = await asAdmin(ctx, RETRY, { id: a.id });
    assert.deepEqual(again.retryAiArtifactDelivery, {
      artifact: null,
      errors: [{
        code: "not_allowed",
        message: "only a failed delivery can be retried (this one is queued)",
        field: "artifactId",
      }],
    });
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 1, "one job for two retry calls");
    const done = await artifactOfRun(ctx, a.runId);
    assert.equal(done.deliveryStatus, "delivered");
    assert.ok(done.deliveredAt);
    assert.equal(done.metadata.error, undefined);
    assert.equal(ctx.github.pulls.length, 1);
    // The branch from the failed attempt was moved to the new commit, not duplicated.
    assert.equal(
      ctx.github.branches.get(done.metadata.pullRequest.branch),
      done.metadata.pullRequest.commitSha,
    );
    const last = await asAdmin(ctx, RETRY, { id: a.id });
    assert.deepEqual(last.retryAiArtifactDelivery.errors, [
      {
        code: "already_delivered",
        message: "the artifact is already delivered",
        field: "artifactId",
      },
    ]);
    const unknown = await asAdmin(ctx, RETRY, { id: "no-such-artifact" });
    assert.deepEqual(unknown.retryAiArtifactDelivery.errors.map((e: { code: string }) => e.code), [
      "not_found",
    ]);
  }));

Deno.test("missing forge configuration fails the delivery and says which variables", () =>
  withDelivery(async (ctx) => {
    const a = await deliveredArtifact(ctx, { kind: "recommendation", payload: "Do it." });
    assert.equal(a.deliveryStatus, "failed");
    assert.equal(
      a.metadata.error,
      "GitHub delivery is not configured: set GITHUB_TOKEN and GITHUB_REPO",
    );
    assert.equal(ctx.github.requests.length, 0);
  }, { env: { GITHUB_TOKEN: "" } }));

Deno.test("chat host other than CHAT_WEBHOOK_ALLOWED_HOST: refused with no request, recorded as failed", () =>
  withDelivery(async (ctx) => {
    const s = await deliveredArtifact(ctx, { kind: "slack_message", payload: "Hi all" });
    assert.equal(s.deliveryStatus, "failed");
    assert.equal(
      s.metadata.error,
      "chat host 127.0.0.1 refused: only CHAT_WEBHOOK_ALLOWED_HOST (hooks.slack.com) is allowed; nothing was sent",
    );
    assert.equal(ctx.chat.requests.length, 0);
    assert.ok(
      !JSON.stringify(s.metadata).includes("/services/"),
      "the webhook URL is not recorded",
    );

    // A report commits, then its chat post is refused: failed, the commit kept in the metadata
    // and not repeated by a retry.
    const r = await deliveredArtifact(ctx, { kind: "report", payload: "Numbers." });
    assert.equal(r.deliveryStatus, "failed");
    assert.equal(r.metadata.failedStep, "chat");
    assert.ok(r.metadata.commit.sha);
    const writes = ctx.github.writes().length;
    const retry = await asAdmin(ctx, RETRY, { id: r.id });
    assert.deepEqual(retry.retryAiArtifactDelivery.errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    const after = await artifactOfRun(ctx, r.runId);
    assert.equal(after.deliveryStatus, "failed");
    assert.equal(after.metadata.commit.sha, r.metadata.commit.sha);
    assert.equal(ctx.github.writes().length, writes, "no second commit");
    assert.equal(ctx.chat.requests.length, 0);
  }, { env: { CHAT_WEBHOOK_ALLOWED_HOST: "hooks.slack.com" } }));

Deno.test("report whose chat post fails (500) is retried: the chat is posted, the commit is not repeated", async () => {
  let chatStatus = 500;
  const chat = startFakeServer(() => new Response("{}", { status: chatStatus }));
  try {
    await withDelivery(async (ctx) => {
      const r = await deliveredArtifact(ctx, { kind: "report", payload: "Numbers." });
      assert.equal(r.deliveryStatus, "failed");
      assert.equal(r.metadata.error, "chat post to 127.0.0.1 answered 500");
      const mainHead = ctx.github.branches.get("main");
      chatStatus = 200;
      await asAdmin(ctx, RETRY, { id: r.id });
      await ctx.t.app.jobs.runUntilIdle();
      const done = await artifactOfRun(ctx, r.runId);
      assert.equal(done.deliveryStatus, "delivered");
      assert.equal(ctx.github.branches.get("main"), mainHead, "no second commit");
      assert.equal(done.metadata.commit.sha, mainHead);
      assert.deepEqual(done.metadata.chat, { host: "127.0.0.1", status: 200 });
      assert.equal(chat.requests.length, 2);
      assert.ok(!JSON.stringify(done.metadata).includes("secret-path"));
    }, {
      env: {
        CHAT_WEBHOOK_URL: `${chat.url}/hooks/secret-path`,
        CHAT_WEBHOOK_ALLOWED_HOST: `127.0.0.1:${chat.port}`,
      },
    });
  } finally {
    await chat.close();
  }
});

Deno.test("chat URL with user info, another port or plain http off loopback: refused, no request", async () => {
  const chat = startFakeServer(() => Response.json({ ok: true }));
  const calls: string[] = [];
  const recording: typeof fetch = (input, init) => {
    calls.push(String(input));
    return fetch(input, init);
  };
  const item: DeliveryItem = {
    artifactId: "AbC-def_0123456789abcd",
    kind: "slack_message",
    title: "Hello",
    payload: "Hi all",
    employee: { publicId: "emp", name: "Ana", role: "analyst" },
    reviewedBy: "admin",
    reviewedAt: null,
    edited: false,
    baseSha: null,
  };
  const local = `127.0.0.1:${chat.port}`;
  const cases: [url: string, allowed: string, reason: string][] = [
    [
      `http://user:secret@${local}/hooks/x`,
      local,
      "chat URL refused: it carries user info (user:pass@)",
    ],
    [
      `${chat.url}/hooks/x`,
      "127.0.0.1",
      "chat port " + chat.port +
      " refused: CHAT_WEBHOOK_ALLOWED_HOST (127.0.0.1) allows only the scheme's default port",
    ],
    [
      `http://hooks.example.test/hooks/x`,
      "hooks.example.test",
      "chat URL scheme http:// refused: only https:// is allowed (http:// only to a loopback host)",
    ],
  ];
  try {
    for (const [url, allowed, reason] of cases) {
      await assert.rejects(
        chatAdapter(url, allowed, recording, 5_000).deliver(item, {}),
        (err: Error) => {
          assert.ok(err instanceof DeliveryRefused, url);
          assert.equal(err.message, `${reason}; nothing was sent`);
          assert.ok(!err.message.includes("secret"), "the URL is not quoted");
          return true;
        },
      );
    }
    assert.deepEqual(calls, []);
    assert.equal(chat.requests.length, 0);
    // The same adapter posts once the URL is one the allow-list admits.
    assert.deepEqual(
      await chatAdapter(`${chat.url}/hooks/x`, local, recording, 5_000).deliver(item, {}),
      { host: "127.0.0.1", status: 200 },
    );
    assert.equal(chat.requests.length, 1);
  } finally {
    await chat.close();
  }
});

Deno.test("chat post answered with a redirect: failed with the reason, the redirect not followed; then delivered", async () => {
  const elsewhere = startFakeServer(() => Response.json({ ok: true }));
  let redirect = true;
  const chat = startFakeServer(() =>
    redirect
      ? new Response(null, { status: 302, headers: { location: `${elsewhere.url}/stolen` } })
      : Response.json({ ok: true })
  );
  try {
    await withDelivery(async (ctx) => {
      const s = await deliveredArtifact(ctx, { kind: "slack_message", payload: "Hi all" });
      assert.equal(s.deliveryStatus, "failed");
      assert.equal(
        s.metadata.error,
        "chat post to 127.0.0.1 answered 302, a redirect: not followed",
      );
      assert.equal(chat.requests.length, 1);
      assert.equal(elsewhere.requests.length, 0, "the redirect's target was never asked");

      redirect = false;
      await asAdmin(ctx, RETRY, { id: s.id });
      await ctx.t.app.jobs.runUntilIdle();
      const done = await artifactOfRun(ctx, s.runId);
      assert.equal(done.deliveryStatus, "delivered");
      assert.deepEqual(done.metadata.chat, { host: "127.0.0.1", status: 200 });
      assert.equal(chat.requests.length, 2);
      assert.equal(JSON.parse(chat.requests[1].body).text.includes("Hi all"), true);
      assert.equal(elsewhere.requests.length, 0);
    }, {
      env: {
        CHAT_WEBHOOK_URL: `${chat.url}/hooks/secret-path`,
        CHAT_WEBHOOK_ALLOWED_HOST: `127.0.0.1:${chat.port}`,
      },
    });
  } finally {
    await Promise.all([chat.close(), elsewhere.close()]);
  }
});

Deno.test("retryAiArtifactDelivery: admin only, not_found for unknown ids, refuses pending artifacts; changes nothing", () =>
  withDelivery(async (ctx) => {
    ctx.github.failWith = { pattern: /^GET /, status: 500 };
    const failed = await deliveredArtifact(ctx, { kind: "draft_post", payload: "x" });
    assert.equal(failed.deliveryStatus, "failed");
    ctx.github.failWith = null;

    const forbidden = await gql(ctx.t, RETRY, { id: failed.id }, { token: ctx.user });
    assert.equal(forbidden.body.errors[0].extensions.code, "FORBIDDEN");
    const anonymous = await gql(ctx.t, RETRY, { id: failed.id });
    assert.equal(anonymous.body.errors[0].extensions.code, "UNAUTHENTICATED");
    for (const id of ["nope", "A".repeat(22), "1", "x".repeat(500)]) {
      const res = await asAdmin(ctx, RETRY, { id });
      assert.deepEqual(res.retryAiArtifactDelivery, {
        artifact: null,
        errors: [{
          code: "not_found",
          message: "no AI artifact with this id",
          field: "artifactId",
        }],
      }, id);
    }
    const wrongType = await gql(ctx.t, RETRY, { id: 42 }, { token: ctx.admin });
    assert.ok(wrongType.body.errors.length);
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 0);
    const still = await artifactOfRun(ctx, failed.runId);
    assert.equal(still.deliveryStatus, "failed");

    const pending = await pendingArtifact(ctx, { kind: "draft_post", payload: "y" });
    const res = await asAdmin(ctx, RETRY, { id: pending.id });
    assert.deepEqual(res.retryAiArtifactDelivery.errors, [
      {
        code: "not_allowed",
        message: "only approved artifacts are delivered",
        field: "artifactId",
      },
    ]);
    assert.equal(res.retryAiArtifactDelivery.artifact, null);
    assert.equal((await artifactOfRun(ctx, pending.runId)).approvalStatus, "pending");
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 0);

    // A job for a pending artifact (not approved) does nothing.
    await sqlOf(ctx).begin((tx) =>
      ctx.t.app.jobs.enqueue(tx, "ai_workforce.deliver_artifact", { artifactId: pending.id })
    );
    const requests = ctx.github.requests.length;
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.github.requests.length, requests);
    assert.equal((await artifactOfRun(ctx, pending.runId)).deliveryStatus, null);
    assert.equal((await approveAndDeliver(ctx, pending)).deliveryStatus, "delivered");
  }));
