/** A code_patch before review: the runner's metadata stored and exposed, the patch check. */
import assert from "node:assert/strict";
import { asAdmin, completeRun, createEmployee, sqlOf } from "../../../support/workforce.ts";
import { withDelivery } from "../../../support/delivery.ts";

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
