import assert from "node:assert/strict";
import { sqlOf } from "../../../support/workforce.ts";
import { deliveredArtifact, withDelivery } from "../../../support/delivery.ts";

Deno.test("draft_post: branch from main, file commit, pull request; URL, branch and sha recorded", () =>
  withDelivery(async (ctx) => {
    const a = await deliveredArtifact(ctx, {
      kind: "draft_post",
      title: "Launch week",
      payload: "We shipped habits.",
    }, "blog_writer");
    assert.equal(a.deliveryStatus, "delivered");
    assert.ok(a.deliveredAt);
    const branch = `ai-workforce/blog_writer/${a.id}`;
    const path = `drafts/posts/blog_writer/${a.id}.md`;
    assert.equal(ctx.github.fileAt(branch, path), "# Launch week\n\nWe shipped habits.\n");
    assert.equal(ctx.github.fileAt("main", path), undefined, "main is untouched");
    assert.equal(ctx.github.fileAt(branch, "README.md"), "# Site\n", "branched from main");
    const [pr] = ctx.github.pulls;
    assert.equal(ctx.github.pulls.length, 1);
    assert.equal(pr.head, branch);
    assert.equal(pr.base, "main");
    assert.equal(pr.title, "Launch week");
    assert.match(pr.body, new RegExp(`Artifact: \`${a.id}\``));
    assert.match(pr.body, /Approved by: admin/);
    assert.match(pr.body, /Writer Bot/);
    assert.deepEqual(a.metadata, {
      destination: "pull_request",
      pullRequest: {
        url: pr.html_url,
        number: 1,
        branch,
        base: "main",
        commitSha: ctx.github.branches.get(branch),
        files: [path],
      },
    });
    // The token went in the Authorization header only.
    const auth = ctx.github.requests.map((r) => r.headers.get("authorization"));
    assert.ok(auth.every((h) => h === `Bearer ${ctx.github.env.GITHUB_TOKEN}`));
  }));

Deno.test("delivery job run twice makes its external calls once (delivered_at guard)", () =>
  withDelivery(async (ctx) => {
    const a = await deliveredArtifact(ctx, { kind: "draft_post", payload: "Once." });
    assert.equal(a.deliveryStatus, "delivered");
    const calls = ctx.github.requests.length;
    assert.ok(calls > 0);
    // The same job again (as a duplicate enqueue or a replayed job would run it).
    await sqlOf(ctx).begin((tx) =>
      ctx.t.app.jobs.enqueue(tx, "ai_workforce.deliver_artifact", { artifactId: a.id })
    );
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 1);
    assert.equal(ctx.github.requests.length, calls);
    assert.equal(ctx.github.pulls.length, 1);
    const [row] = await sqlOf(ctx)`select delivered_at from ai_artifacts where public_id = ${a.id}`;
    assert.equal(row.delivered_at.toISOString(), a.deliveredAt);
  }));

Deno.test("code_patch with a unified diff is applied to the files it names, in a pull request", () =>
  withDelivery(async (ctx) => {
    const diff = [
      "diff --git a/src/greet.ts b/src/greet.ts",
      "--- a/src/greet.ts",
      "+++ b/src/greet.ts",
      "@@ -1,3 +1,3 @@",
      " export function greet(name: string) {",
      '-  return "Hello " + name;',
      "+  return `Hello, ${name}!`;",
      " }",
      "--- /dev/null",
      "+++ b/src/new.ts",
      "@@ -0,0 +1 @@",
      "+export const added = true;",
      "",
    ].join("\n");
    const a = await deliveredArtifact(ctx, { kind: "code_patch", title: "Greet", payload: diff });
    assert.equal(a.deliveryStatus, "delivered", JSON.stringify(a.metadata));
    const branch = a.metadata.pullRequest.branch;
    assert.equal(
      ctx.github.fileAt(branch, "src/greet.ts"),
      "export function greet(name: string) {\n  return `Hello, ${name}!`;\n}\n",
    );
    assert.equal(ctx.github.fileAt(branch, "src/new.ts"), "export const added = true;\n");
    assert.deepEqual(a.metadata.pullRequest.files, ["src/greet.ts", "src/new.ts"]);
    assert.equal(a.metadata.pullRequest.baseSha, ctx.github.branches.get("main"), "no base_sha");
    assert.equal(ctx.github.fileAt("main", "src/new.ts"), undefined);
  }, {
    files: {
      "README.md": "# Site\n",
      "src/greet.ts": 'export function greet(name: string) {\n  return "Hello " + name;\n}\n',
    },
  }));

Deno.test("report: a commit under docs/reports/ on the default branch plus a chat post linking it", () =>
  withDelivery(async (ctx) => {
    const before = ctx.github.branches.get("main")!;
    const a = await deliveredArtifact(ctx, {
      kind: "report",
      title: "Weekly report",
      payload: "Sign-ups grew 20%.",
    }, "analyst");
    assert.equal(a.deliveryStatus, "delivered");
    const path = `docs/reports/analyst/${a.id}.md`;
    assert.equal(ctx.github.fileAt("main", path), "# Weekly report\n\nSign-ups grew 20%.\n");
    const head = ctx.github.branches.get("main")!;
    assert.deepEqual(ctx.github.commits.get(head)!.parents, [before], "fast-forward of main");
    assert.equal(ctx.github.pulls.length, 0);
    const posts = ctx.chat.requests.filter((r) => r.method === "POST");
    assert.equal(posts.length, 1);
    assert.equal(posts[0].path, "/services/T000/B000/xyz");
    const text = JSON.parse(posts[0].body).text as string;
    assert.match(text, /^\*Weekly report\*\nSign-ups grew 20%\.\n/);
    assert.ok(text.includes(`https://github.example/acme/site/commit/${head}`));
    assert.deepEqual(a.metadata, {
      destination: "commit_and_chat",
      commit: {
        sha: head,
        branch: "main",
        path,
        url: `https://github.example/acme/site/commit/${head}`,
      },
      chat: { host: "127.0.0.1", status: 200 },
    });
  }));

Deno.test("recommendation: a commit under docs/recommendations/; no chat post, no pull request", () =>
  withDelivery(async (ctx) => {
    const a = await deliveredArtifact(ctx, {
      kind: "recommendation",
      title: "Cache the feed",
      payload: "Cache it.",
    }, "advisor");
    assert.equal(a.deliveryStatus, "delivered");
    const path = `docs/recommendations/advisor/${a.id}.md`;
    assert.equal(ctx.github.fileAt("main", path), "# Cache the feed\n\nCache it.\n");
    assert.equal(a.metadata.destination, "commit");
    assert.equal(a.metadata.commit.path, path);
    assert.equal(ctx.chat.requests.length, 0);
    assert.equal(ctx.github.pulls.length, 0);
  }));

Deno.test("slack_message: a chat post only; other: delivered with destination none, no call", () =>
  withDelivery(async (ctx) => {
    const s = await deliveredArtifact(ctx, {
      kind: "slack_message",
      title: "Heads up",
      payload: "Deploy at 3pm.",
    });
    assert.equal(s.deliveryStatus, "delivered");
    assert.deepEqual(s.metadata, {
      destination: "chat",
      chat: { host: "127.0.0.1", status: 200 },
    });
    assert.equal(ctx.chat.requests.length, 1);
    assert.match(JSON.parse(ctx.chat.requests[0].body).text, /Deploy at 3pm\./);

    const o = await deliveredArtifact(ctx, { kind: "other", payload: "Misc." });
    assert.equal(o.deliveryStatus, "delivered");
    assert.ok(o.deliveredAt);
    assert.deepEqual(o.metadata, { destination: "none" });
    assert.equal(ctx.chat.requests.length, 1);
    assert.equal(ctx.github.requests.length, 0);
  }));
