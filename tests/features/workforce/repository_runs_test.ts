/**
 * A code-fixing employee end to end (issue 39), both database modes: the service names the
 * delivery repository in the run request, the real runner fetches it at a pinned commit from the
 * fake GitHub, a scripted model searches, reads and edits, the runner makes the diff, and after
 * approval delivery opens a pull request whose branch starts at that commit, even when the
 * default branch moved on meanwhile.
 */
import assert from "node:assert/strict";
import { fixTypo } from "../../support/scripted-models.ts";
import { type FakeGitHub, RUNNER_GITHUB_TOKEN, startFakeGitHub } from "../../support/github.ts";
import { approveAndDeliver, artifactOfRun } from "../../support/delivery.ts";
import {
  asAdmin,
  createEmployee,
  setupWithRealRunner,
  triggerRun,
  type WorkforceWithRunner,
} from "../../support/workforce.ts";

const FILES = {
  "README.md": "# Site\n",
  "src/greet.ts":
    "export function greet(name: string) {\n  return `Hello, ${name}! Teh end.`;\n}\n",
  "bin/release.sh": { content: "#!/bin/sh\n# Teh release script\nexit 0\n", mode: "100755" },
};

async function withRepository(fn: (ctx: WorkforceWithRunner, github: FakeGitHub) => Promise<void>) {
  const github = await startFakeGitHub(FILES);
  const workDir = await Deno.makeTempDir({ prefix: "runner-work-e2e-" });
  let ctx: WorkforceWithRunner | undefined;
  try {
    ctx = await setupWithRealRunner({
      env: github.env,
      runnerEnv: {
        GITHUB_API_URL: github.url,
        RUNNER_GITHUB_TOKEN,
        RUNNER_WORK_DIR: workDir,
      },
    });
    await fn(ctx, github);
  } finally {
    try {
      await ctx?.close();
    } finally {
      await github.close();
      await Deno.remove(workDir, { recursive: true });
    }
  }
}

async function fixer(ctx: WorkforceWithRunner) {
  const employee = await createEmployee(ctx, {
    name: "Fixer",
    taskPrompt: "Fix the typo 'Teh' in the code.",
  });
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { updateAiEmployee(employeeId: $id, tools: ["repo"],
      allowedKinds: [code_patch]) { errors { message } } }`,
    { id: employee.id },
  );
  assert.deepEqual(data.updateAiEmployee.errors, []);
  return employee;
}

async function run(ctx: WorkforceWithRunner, employeeId: string): Promise<string> {
  const { run, errors } = await triggerRun(ctx, employeeId);
  assert.deepEqual(errors, []);
  await ctx.t.app.jobs.runUntilIdle();
  await ctx.tr.runner.idle();
  await ctx.t.app.jobs.runUntilIdle();
  return run!.id;
}

Deno.test("repository runs: a fix made in the workspace is delivered from the commit it was made at", () =>
  withRepository(async (ctx, github) => {
    const employee = await fixer(ctx);
    const base = github.branches.get("main")!;
    ctx.tr.llm.script(...fixTypo("Teh", "The", "src/**"));
    const runId = await run(ctx, employee.id);

    const artifact = await artifactOfRun(ctx, runId);
    assert.equal(artifact.kind, "code_patch");
    assert.equal(artifact.approvalStatus, "pending");
    assert.match(artifact.payload, /^diff --git a\/src\/greet.ts b\/src\/greet.ts\n/);
    assert.match(artifact.payload, /\n\+ {2}return `Hello, \$\{name\}! The end\.`;\n/);

    // The default branch moves on after the run, touching the same file elsewhere.
    await github.push("main", { "src/other.ts": "export {};\n", "README.md": "# Site v2\n" });
    const delivered = await approveAndDeliver(ctx, artifact);
    assert.equal(delivered.deliveryStatus, "delivered", JSON.stringify(delivered.metadata));
    const [pull] = github.pulls;
    assert.equal(pull.base, "main");
    const head = github.branches.get(pull.head)!;
    assert.deepEqual(github.commits.get(head)!.parents, [base], "the branch starts at the base");
    assert.equal(
      github.fileAt(pull.head, "src/greet.ts"),
      "export function greet(name: string) {\n  return `Hello, ${name}! The end.`;\n}\n",
    );
    assert.equal(
      github.fileAt(pull.head, "README.md"),
      "# Site\n",
      "main's later change is not in it",
    );
    assert.equal(github.modeAt(pull.head, "bin/release.sh"), "100755");
    // The runner read with its own token and wrote nothing; the service wrote with the delivery token.
    const runnerCalls = github.requests.filter((r) =>
      r.headers.get("authorization") === `Bearer ${RUNNER_GITHUB_TOKEN}`
    );
    assert.ok(runnerCalls.length >= 2);
    assert.ok(runnerCalls.every((r) => r.method === "GET"));
  }));

Deno.test("repository runs: an executable file the fix changes stays executable", () =>
  withRepository(async (ctx, github) => {
    const employee = await fixer(ctx);
    ctx.tr.llm.script(
      ...fixTypo("Teh", "The").map((step, i) =>
        i === 0
          ? () => ({
            content: null,
            toolCalls: [{
              name: "repo_search",
              arguments: { pattern: "Teh release", glob: "bin/**" },
            }],
          })
          : step
      ),
    );
    const runId = await run(ctx, employee.id);
    const artifact = await artifactOfRun(ctx, runId);
    assert.match(artifact.payload, /^diff --git a\/bin\/release.sh b\/bin\/release.sh\n/);
    const delivered = await approveAndDeliver(ctx, artifact);
    assert.equal(delivered.deliveryStatus, "delivered", JSON.stringify(delivered.metadata));
    const [pull] = github.pulls;
    assert.equal(
      github.fileAt(pull.head, "bin/release.sh"),
      "#!/bin/sh\n# The release script\nexit 0\n",
    );
    assert.equal(github.modeAt(pull.head, "bin/release.sh"), "100755");
  }));
