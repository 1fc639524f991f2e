/**
 * A code_patch before review: the runner's metadata stored and exposed, the patch check (a job
 * reading GitHub), the protected paths shown and refused at approval, hostile payloads.
 */
import assert from "node:assert/strict";
import {
  asAdmin,
  completeRun,
  createEmployee,
  sqlOf,
  type WorkforceCtx,
} from "../../../support/workforce.ts";
import { runAfterUndoWindow, withDelivery } from "../../../support/delivery.ts";
import { gql } from "../../../support/graphql.ts";
import { GITHUB_TOKEN } from "../../../support/github.ts";
import { NOT_A_DIFF, NOT_CONFIGURED } from "../../../../src/features/workforce/delivery/rules.ts";

const README_PATCH = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# Site\n+# Our site\n";

Deno.test("a code_patch result's base_sha and files are stored and exposed; other kinds keep none", () =>
  withDelivery(async (ctx) => {
    const employee = await createEmployee(ctx, { name: "Coder" });
    const base = ctx.github.branches.get("main")!;
    const runId = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "code_patch",
        title: "Rename the site",
        payload: README_PATCH,
        metadata: { base_sha: base, files: ["README.md"] },
      },
    });
    ctx.clock.advance(60_000);
    const reportRun = await completeRun(ctx, employee.id, {
      artifact: {
        kind: "report",
        title: "Weekly",
        payload: "Fine.",
        metadata: { base_sha: base, files: ["README.md"] },
      },
    });
    const read = async (id: string) =>
      (await asAdmin(
        ctx,
        `query($id: String!) { aiRun(id: $id) { artifacts { baseSha files } } }`,
        {
          id,
        },
      )).aiRun.artifacts[0];
    assert.deepEqual(await read(runId), { baseSha: base, files: ["README.md"] });
    assert.deepEqual(await read(reportRun), { baseSha: null, files: null });
    const [row] = await sqlOf(ctx)`
      select base_sha, patch_files from ai_artifacts where kind = 'code_patch'`;
    assert.deepEqual({ ...row }, { base_sha: base, patch_files: ["README.md"] });
  }));

const CHECK_FIELDS = `id approvalStatus patchCheck { status reason commitSha checkedAt files
  protectedPaths { path pattern } }`;

const CI_PATCH = "--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n" +
  "@@ -1 +1 @@\n-on: push\n+on: [push, pull_request]\n";

// deno-lint-ignore no-explicit-any
async function checkOf(ctx: WorkforceCtx, runId: string): Promise<any> {
  return (await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { artifacts { ${CHECK_FIELDS} } } }`,
    { id: runId },
  )).aiRun.artifacts[0];
}

/** A code_patch result of a new employee; its patch check has run when this returns. */
async function patchRun(
  ctx: WorkforceCtx,
  payload: string,
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const employee = await createEmployee(ctx);
  return await completeRun(ctx, employee.id, {
    artifact: { kind: "code_patch", title: "A patch", payload, metadata },
  });
}

Deno.test("patch check: applies at its base, does not apply, not a diff; files and protected paths", () =>
  withDelivery(async (ctx) => {
    const x = ctx.github.branches.get("main")!;
    await ctx.github.push("main", { "README.md": "# Site, later\n" });
    const later = ctx.github.branches.get("main")!;

    const fine = await checkOf(ctx, await patchRun(ctx, README_PATCH, { base_sha: x }));
    assert.equal(fine.approvalStatus, "pending");
    assert.deepEqual({ ...fine.patchCheck, checkedAt: undefined }, {
      status: "applies",
      reason: null,
      commitSha: x,
      checkedAt: undefined,
      files: ["README.md"],
      protectedPaths: [],
    });
    assert.equal(fine.patchCheck.checkedAt, ctx.clock.now().toISOString());

    const atHead = await checkOf(ctx, await patchRun(ctx, README_PATCH));
    assert.deepEqual(
      [atHead.patchCheck.status, atHead.patchCheck.reason, atHead.patchCheck.commitSha],
      ["does_not_apply", "the patch does not apply to README.md", later],
      "without base_sha: the default branch's head",
    );

    const prose = await checkOf(ctx, await patchRun(ctx, "Rename the site.", { base_sha: x }));
    assert.deepEqual({ ...prose.patchCheck, checkedAt: undefined }, {
      status: "does_not_apply",
      reason: NOT_A_DIFF,
      commitSha: null,
      checkedAt: undefined,
      files: [],
      protectedPaths: [],
    });

    const ci = await checkOf(ctx, await patchRun(ctx, README_PATCH + CI_PATCH, { base_sha: x }));
    assert.equal(ci.patchCheck.status, "applies");
    assert.deepEqual(ci.patchCheck.files, ["README.md", ".github/workflows/ci.yml"]);
    assert.deepEqual(ci.patchCheck.protectedPaths, [
      { path: ".github/workflows/ci.yml", pattern: ".github/" },
    ]);

    // Other kinds have none; nothing was written to GitHub by any check.
    const report = await checkOf(
      ctx,
      await completeRun(ctx, (await createEmployee(ctx)).id),
    );
    assert.equal(report.patchCheck, null);
    assert.deepEqual(ctx.github.writes(), []);
  }, { files: { "README.md": "# Site\n", ".github/workflows/ci.yml": "on: push\n" } }));

Deno.test("approval of a patch touching a protected path is refused; edited out, it is approved, checked again and delivered", () =>
  withDelivery(async (ctx) => {
    const x = ctx.github.branches.get("main")!;
    const runId = await patchRun(ctx, README_PATCH + CI_PATCH, { base_sha: x });
    const { id } = await checkOf(ctx, runId);
    const approve = (editedPayload?: string) =>
      asAdmin(
        ctx,
        `mutation($id: String!, $edited: String) { approveAiArtifact(artifactId: $id, editedPayload: $edited) {
          artifact { ${CHECK_FIELDS} } errors { code message field } } }`,
        { id, edited: editedPayload ?? null },
      );
    const refused = (await approve()).approveAiArtifact;
    assert.deepEqual(refused, {
      artifact: null,
      errors: [{
        code: "protected_path",
        message:
          "the patch touches the protected path .github/workflows/ci.yml (.github/), which delivery refuses: reject it, or edit that change out and approve",
        field: "artifactId",
      }],
    });
    const stillCi = (await approve(CI_PATCH)).approveAiArtifact.errors;
    assert.deepEqual(stillCi.map((e: { code: string; field: string }) => [e.code, e.field]), [
      ["protected_path", "editedPayload"],
    ]);
    // An edit that is no longer a patch is refused at the field, whatever it touches.
    for (const broken of ["not a diff at all", README_PATCH.replace("+# Our site", "zzz")]) {
      assert.deepEqual((await approve(broken)).approveAiArtifact.errors, [{
        code: "invalid",
        message: `the edit is no longer a valid patch: ${NOT_A_DIFF}`,
        field: "editedPayload",
      }]);
    }
    assert.equal((await checkOf(ctx, runId)).approvalStatus, "pending");
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 0, "nothing queued by a refusal");

    const approved = (await approve(README_PATCH)).approveAiArtifact;
    assert.deepEqual(approved.errors, []);
    assert.equal(approved.artifact.patchCheck.status, "pending", "the original's check dropped");
    assert.deepEqual(approved.artifact.patchCheck.protectedPaths, []);
    await runAfterUndoWindow(ctx);
    const after = await asAdmin(
      ctx,
      `query($id: String!) { aiRun(id: $id) { artifacts { deliveryStatus deliveryMetadata ${CHECK_FIELDS} } } }`,
      { id: runId },
    );
    const artifact = after.aiRun.artifacts[0];
    assert.equal(artifact.patchCheck.status, "applies");
    assert.deepEqual(artifact.patchCheck.files, ["README.md"]);
    assert.equal(artifact.deliveryStatus, "delivered", JSON.stringify(artifact.deliveryMetadata));
    assert.equal(
      ctx.github.fileAt(artifact.deliveryMetadata.pullRequest.branch, "README.md"),
      "# Our site\n",
    );
  }, { files: { "README.md": "# Site\n", ".github/workflows/ci.yml": "on: push\n" } }));

Deno.test("an autonomous employee's patch touching a protected path waits for a person", () =>
  withDelivery(async (ctx) => {
    const employee = await createEmployee(ctx);
    await sqlOf(ctx)`
      update ai_employees set autonomy_level = 'autonomous' where public_id = ${employee.id}`;
    const plain = await completeRun(ctx, employee.id, {
      artifact: { kind: "code_patch", title: "Plain", payload: README_PATCH },
    });
    assert.equal((await checkOf(ctx, plain)).approvalStatus, "approved");
    ctx.clock.advance(60_000);
    const ci = await completeRun(ctx, employee.id, {
      artifact: { kind: "code_patch", title: "CI", payload: CI_PATCH },
    });
    const artifact = await checkOf(ctx, ci);
    assert.equal(artifact.approvalStatus, "pending");
    assert.equal(artifact.patchCheck.protectedPaths.length, 1);
  }, { files: { "README.md": "# Site\n", ".github/workflows/ci.yml": "on: push\n" } }));

Deno.test("patch check without GitHub configured: not_checked with the reason, no request", () =>
  withDelivery(async (ctx) => {
    const check = (await checkOf(ctx, await patchRun(ctx, README_PATCH))).patchCheck;
    assert.deepEqual([check.status, check.reason, check.commitSha], [
      "not_checked",
      NOT_CONFIGURED,
      null,
    ]);
    assert.ok(check.checkedAt);
    assert.deepEqual(check.files, ["README.md"]);
    assert.equal(ctx.github.requests.length, 0);
  }, { env: { GITHUB_TOKEN: "" } }));

Deno.test("patch check while GitHub fails: tried three times, then not_checked with the error", () =>
  withDelivery(async (ctx) => {
    ctx.github.failWith = { pattern: /^GET /, status: 502 };
    const runId = await patchRun(ctx, README_PATCH);
    assert.equal((await checkOf(ctx, runId)).patchCheck.status, "pending");
    for (let i = 0; i < 2; i++) {
      ctx.clock.advance(60_000);
      await ctx.t.app.jobs.runUntilIdle();
    }
    const check = (await checkOf(ctx, runId)).patchCheck;
    assert.deepEqual([check.status, check.reason], [
      "not_checked",
      "GitHub GET (the repository) answered 502: Failure",
    ]);
    assert.equal(ctx.github.requests.length, 3);
    assert.ok(!JSON.stringify(ctx.t.log.entries).includes(GITHUB_TOKEN), "token never logged");
    const [{ dead }] = await sqlOf(ctx)`
      select count(*)::int as dead from jobs where dead_at is not null`;
    assert.equal(dead, 0);
  }));

Deno.test("hostile code_patch payloads: the check, patchCheck and approval never fail with a 5xx", () =>
  withDelivery(async (ctx) => {
    const hostile = [
      "--- a/README.md\n+++ b/README.md\n@@ garbage @@\n-x\n+y\n",
      "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n",
      "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
      "--- a/README.md\n+++ b/README.md\n@@ -1,999999999 +1 @@\n-# Site\n+x\n",
      "--- a/README.md\r\n+++ b/README.md\r\n@@ -1 +1 @@\r\n-# Site\r\n+# CRLF\r\n",
      "--- a/READ\u0000ME.md\n+++ b/READ\u0000ME.md\n@@ -1 +1 @@\n-a\n+b\n",
      `--- a/${"d/".repeat(300)}f\n+++ b/${"d/".repeat(300)}f\n@@ -1 +1 @@\n-a\n+b\n`,
      "diff --git a/x b/x\nnew file mode 999999\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n",
      "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n" + "+x\n".repeat(20_000),
    ];
    const runs = [];
    for (const payload of hostile) runs.push(await patchRun(ctx, payload));
    const res = await gql(
      ctx.t,
      `{ pendingArtifacts { ${CHECK_FIELDS} } }`,
      {},
      { token: ctx.admin },
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const checks = res.body.data.pendingArtifacts.map((a: { patchCheck: unknown }) => a.patchCheck);
    assert.equal(checks.length, hostile.length);
    for (const check of checks) {
      assert.ok(["applies", "does_not_apply"].includes(check.status), JSON.stringify(check));
    }
    const [{ dead }] = await sqlOf(ctx)`
      select count(*)::int as dead from jobs where dead_at is not null`;
    assert.equal(dead, 0);
    for (const a of res.body.data.pendingArtifacts) {
      for (const edited of [null, "\u0000", "--- a/\n+++ b/\n@@ -0,0 +1 @@\n+x\n"]) {
        const answer = await gql(
          ctx.t,
          `mutation($id: String!, $edited: String) { approveAiArtifact(artifactId: $id, editedPayload: $edited) {
            artifact { id } errors { code } } }`,
          { id: a.id, edited },
          { token: ctx.admin },
        );
        assert.equal(answer.status, 200);
        assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
        if (answer.body.data.approveAiArtifact.artifact) break;
      }
    }
    await runAfterUndoWindow(ctx);
    // Only the CRLF diff is a real change (the diff library takes either line ending).
    assert.equal(ctx.github.pulls.length, 1);
    assert.equal(ctx.github.fileAt(ctx.github.pulls[0].head, "README.md"), "# CRLF\n");
  }));
