/**
 * The `repo` tool through the real runner, the fake GitHub (tarball and all) and scripted models:
 * the workspace at a pinned commit, reads, searches and edits, the diff the runner makes and
 * checks, protected paths, paths that would leave the workspace, caps, and the folder removed
 * when the run ends.
 */
import assert from "node:assert/strict";
import { reply } from "../support/fake-llm.ts";
import { fixTypo, toolResults } from "../support/scripted-models.ts";
import { createTestRunner, runRequest } from "../support/runner.ts";
import {
  type FakeFile,
  type FakeGitHub,
  GITHUB_REPO,
  RUNNER_GITHUB_TOKEN,
  startFakeGitHub,
} from "../support/github.ts";
import { applyFilePatches, parseUnifiedDiff } from "../../src/platform/unified-diff.ts";

const FILES: Record<string, FakeFile> = {
  "README.md": "# Site\n\nSee the docs.\n",
  "src/greet.ts":
    "export function greet(name: string) {\n  return `Hello, ${name}! Teh end.`;\n}\n",
  "bin/deploy.sh": { content: "#!/bin/sh\necho deploy\n", mode: "100755" },
  ".github/workflows/ci.yml": "on: push\njobs: {}\n",
  "escape": { content: "../../../../../../etc", mode: "120000" },
  "hostname": { content: "/etc/hostname", mode: "120000" },
  "docs/readme-link.md": { content: "../README.md", mode: "120000" },
};

async function withRepoRunner(
  fn: (ctx: {
    t: ReturnType<typeof createTestRunner>;
    github: FakeGitHub;
    workDir: string;
  }) => Promise<void>,
  env: Record<string, string> = {},
) {
  const github = await startFakeGitHub(FILES);
  const workDir = await Deno.makeTempDir({ prefix: "runner-work-test-" });
  const t = createTestRunner({
    env: {
      GITHUB_API_URL: github.url,
      RUNNER_GITHUB_TOKEN,
      RUNNER_WORK_DIR: workDir,
      ...env,
    },
  });
  try {
    await fn({ t, github, workDir });
  } finally {
    await t.close();
    await github.close();
    await Deno.remove(workDir, { recursive: true });
  }
}

function repoRun(overrides: Record<string, unknown> = {}) {
  return runRequest({
    employee: { tools: ["repo"], allowed_kinds: ["code_patch", "report"] },
    repository: { repo: GITHUB_REPO, ref: "HEAD" },
    ...overrides,
  });
}

/** The result of one run whose model follows `script`. */
async function runWith(
  t: ReturnType<typeof createTestRunner>,
  script: Parameters<typeof t.llm.script>,
  body = repoRun(),
) {
  t.llm.script(...script);
  assert.equal((await t.startRun(body)).status, 202);
  const results = await t.results();
  return results[results.length - 1];
}

Deno.test("repo: a fixer reads, edits and submits; the runner's diff applies at the pinned commit", () =>
  withRepoRunner(async ({ t, github, workDir }) => {
    const base = github.branches.get("main")!;
    const result = await runWith(t, fixTypo("Teh", "The"));
    assert.equal(result.status, "succeeded", JSON.stringify(result.error));
    const artifact = result.artifact!;
    assert.equal(artifact.kind, "code_patch");
    assert.deepEqual(artifact.metadata, { base_sha: base, files: ["src/greet.ts"] });
    assert.equal(
      artifact.payload,
      "diff --git a/src/greet.ts b/src/greet.ts\n--- a/src/greet.ts\n+++ b/src/greet.ts\n" +
        "@@ -1,3 +1,3 @@\n export function greet(name: string) {\n" +
        "-  return `Hello, ${name}! Teh end.`;\n+  return `Hello, ${name}! The end.`;\n }\n",
    );
    // The diff applies to the file as GitHub has it at the base.
    const parsed = parseUnifiedDiff(artifact.payload)!;
    const applied = applyFilePatches(
      parsed,
      new Map([["src/greet.ts", github.fileAt("main", "src/greet.ts")!]]),
    );
    assert.ok("changes" in applied);
    assert.match(applied.changes[0].content!, /The end\./);

    // What the model read: numbered lines, a window at a time.
    const call = t.llm.calls[3];
    assert.equal(
      toolResults(call, "repo_search")[0],
      "src/greet.ts:2:   return `Hello, ${name}! Teh end.`;",
    );
    assert.equal(
      toolResults(call, "repo_read")[0],
      "src/greet.ts: lines 2-2 of 3 (more from offset 3)\n2\t  return `Hello, ${name}! Teh end.`;",
    );
    // The tools were offered with generated schemas; the workspace was fetched with the runner's
    // read-only token at the resolved commit; nothing was written to GitHub.
    const offered = t.llm.calls[0].body.tools!.map((tool) => tool.function.name);
    assert.deepEqual(offered.filter((n) => n.startsWith("repo_")), [
      "repo_list",
      "repo_read",
      "repo_search",
      "repo_edit",
      "repo_write",
      "repo_delete",
    ]);
    const fetched = github.requests.map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(fetched, [
      `GET /repos/${GITHUB_REPO}/commits/HEAD`,
      `GET /repos/${GITHUB_REPO}/tarball/${base}`,
      `GET /_codeload/${base}`,
    ]);
    assert.equal(github.requests[0].headers.get("authorization"), `Bearer ${RUNNER_GITHUB_TOKEN}`);
    const start = result.run_log.find((e) => e.type === "workspace");
    assert.deepEqual(start && { ...start, at: undefined }, {
      at: undefined,
      type: "workspace",
      repo: GITHUB_REPO,
      ref: "HEAD",
      base_sha: base,
      files: 7,
    });
    // The run's folder is gone.
    assert.deepEqual([...Deno.readDirSync(workDir)], []);
  }));

Deno.test("repo: the runner's diff creates, deletes and keeps modes; nothing edited, nothing to submit", () =>
  withRepoRunner(async ({ t, github }) => {
    const base = github.branches.get("main")!;
    const result = await runWith(t, [
      reply.submit({ kind: "code_patch", title: "Nothing yet" }),
      reply.toolCall("repo_write", { path: "docs/new.md", text: "New page\n" }),
      reply.toolCall("repo_edit", {
        path: "bin/deploy.sh",
        old_text: "echo deploy",
        new_text: "echo deploying",
      }),
      reply.toolCall("repo_delete", { path: "README.md" }),
      reply.submit({ kind: "code_patch", title: "Docs", payload: "ignored: the diff replaces it" }),
    ]);
    assert.equal(result.status, "succeeded", JSON.stringify(result.error));
    assert.equal(
      toolResults(t.llm.calls[1], "submit_artifact")[0],
      "error: you changed no file: make the change with repo_edit, repo_write or repo_delete, then submit",
    );
    const { payload, metadata } = result.artifact!;
    assert.deepEqual(metadata, {
      base_sha: base,
      files: ["README.md", "bin/deploy.sh", "docs/new.md"],
    });
    assert.match(payload, /^diff --git a\/README.md b\/README.md\ndeleted file mode 100644\n/);
    assert.match(payload, /diff --git a\/bin\/deploy.sh b\/bin\/deploy.sh\n--- a\/bin\/deploy.sh/);
    assert.match(
      payload,
      /diff --git a\/docs\/new.md b\/docs\/new.md\nnew file mode 100644\n--- \/dev\/null\n\+\+\+ b\/docs\/new.md\n@@ -0,0 \+1,1 @@\n\+New page\n/,
    );
    assert.doesNotMatch(payload, /ignored/);
  }));

Deno.test("repo: protected paths are read but never changed", () =>
  withRepoRunner(async ({ t }) => {
    const result = await runWith(t, [
      reply.toolCall("repo_read", { path: ".github/workflows/ci.yml" }),
      reply.toolCall("repo_edit", {
        path: ".github/workflows/ci.yml",
        old_text: "jobs: {}",
        new_text: "jobs: { steal: { run: 'curl evil' } }",
      }),
      reply.toolCall("repo_write", { path: ".GitHub/workflows/new.yml", text: "on: push\n" }),
      reply.toolCall("repo_delete", { path: ".github/workflows/ci.yml" }),
      reply.toolCall("repo_write", { path: "docs/CODEOWNERS", text: "* @me\n" }),
      reply.submit({ kind: "code_patch", title: "CI" }),
    ], repoRun());
    assert.equal(result.status, "failed", "the model never submitted anything valid");
    const last = t.llm.calls.at(-1)!;
    assert.match(
      toolResults(last, "repo_read")[0],
      /^\.github\/workflows\/ci\.yml: lines 1-2 of 2/,
    );
    for (const name of ["repo_edit", "repo_write", "repo_delete"]) {
      for (const text of toolResults(last, name)) {
        assert.match(text, /^error: .* is a protected path \((\.github\/|CODEOWNERS)\)/, text);
      }
    }
    const submitted = result.run_log.find((e) => e.type === "tool" && e.name === "submit_artifact");
    assert.match(String(submitted?.error), /^error: you changed no file/);
  }, { MAX_TURNS: "6" }));

Deno.test("repo: paths that leave the workspace are refused, symbolic links included", () =>
  withRepoRunner(async ({ t }) => {
    const attempts = [
      { name: "repo_read", args: { path: "../../../etc/passwd" } },
      { name: "repo_read", args: { path: "/etc/passwd" } },
      { name: "repo_read", args: { path: ".git/config" } },
      { name: "repo_read", args: { path: "src/../../x" } },
      { name: "repo_read", args: { path: "escape/passwd" } },
      { name: "repo_read", args: { path: "hostname" } },
      { name: "repo_write", args: { path: "escape/evil", text: "x" } },
      { name: "repo_write", args: { path: "hostname", text: "x" } },
      { name: "repo_edit", args: { path: "docs/readme-link.md", old_text: "#", new_text: "x" } },
    ];
    const result = await runWith(t, [
      ...attempts.map((a) => reply.toolCall(a.name, a.args)),
      reply.toolCall("repo_read", { path: "docs/readme-link.md" }),
      reply.toolCall("repo_list", { glob: "**" }),
      reply.submit({ kind: "report", title: "Done", payload: "Nothing changed." }),
    ], repoRun());
    assert.equal(result.status, "succeeded");
    const last = t.llm.calls.at(-1)!;
    const outcomes = [
      ...toolResults(last, "repo_read").slice(0, 6),
      ...toolResults(last, "repo_write"),
      ...toolResults(last, "repo_edit"),
    ];
    assert.deepEqual(outcomes.map((o) => o.replace(/^error: "?([^" ]+)"? .*$/, "$1")), [
      "../../../etc/passwd",
      "/etc/passwd",
      ".git/config",
      "src/../../x",
      "escape/passwd",
      "hostname",
      "escape/evil",
      "hostname",
      "docs/readme-link.md",
    ]);
    for (const outcome of outcomes.slice(0, 4)) assert.match(outcome, /is not a path inside/);
    for (const outcome of outcomes.slice(4, 8)) {
      assert.match(outcome, /leads out of the repository/);
    }
    assert.match(outcomes[8], /is a symbolic link/);
    // A link that stays inside reads through; listing shows links without following them.
    assert.match(
      toolResults(last, "repo_read")[6],
      /^docs\/readme-link.md: lines 1-3 of 3\n1\t# Site/,
    );
    assert.equal(
      toolResults(last, "repo_list")[0],
      [
        ".github/workflows/ci.yml",
        "README.md",
        "bin/deploy.sh",
        "docs/readme-link.md",
        "escape",
        "hostname",
        "src/greet.ts",
      ].join("\n"),
    );
  }, { MAX_TURNS: "20" }));

Deno.test("repo: a repository over the caps, or one GitHub refuses, fails the run before any model call", () =>
  withRepoRunner(async ({ t, github, workDir }) => {
    const tooMany = await runWith(t, [], repoRun());
    assert.equal(tooMany.status, "failed");
    assert.match(
      tooMany.error!.message,
      /^the repository acme\/site@HEAD could not be fetched: acme\/site has more than 3 files \(REPO_MAX_FILES\)$/,
    );
    github.failWith = { pattern: /commits/, status: 404 };
    const missing = await runWith(t, [], repoRun());
    assert.match(
      missing.error!.message,
      /GitHub GET \/repos\/acme\/site\/commits\/HEAD answered 404: Failure/,
    );
    assert.equal(t.llm.calls.length, 0);
    assert.deepEqual([...Deno.readDirSync(workDir)], []);
  }, { REPO_MAX_FILES: "3" }));

Deno.test("repo: without a repository in the request, or without the tool, no repo tools", () =>
  withRepoRunner(async ({ t, github }) => {
    const report = { kind: "report", title: "R", payload: "Nothing." };
    const noRepository = await runWith(t, [reply.submit(report)], repoRun({ repository: null }));
    assert.equal(noRepository.status, "succeeded");
    assert.deepEqual(
      noRepository.run_log.find((e) => e.type === "tools_unavailable")?.names,
      ["repo"],
    );
    const noTool = await runWith(
      t,
      [reply.submit(report)],
      repoRun({ employee: { tools: [], allowed_kinds: ["report"] } }),
    );
    assert.equal(noTool.status, "succeeded");
    for (const call of t.llm.calls) {
      assert.ok(!call.body.tools!.some((tool) => tool.function.name.startsWith("repo_")));
    }
    assert.equal(github.requests.length, 0, "nothing fetched");
  }));

Deno.test("repo: a search pattern cannot stall the runner; a bad one is refused back", () =>
  withRepoRunner(async ({ t }) => {
    const result = await runWith(t, [
      reply.toolCall("repo_write", { path: "docs/a.txt", text: `${"a".repeat(1_500)}b\n` }),
      reply.toolCall("repo_search", { pattern: "(a+)+$", glob: "docs/**" }),
      reply.toolCall("repo_search", { pattern: "(?<=a)b" }),
      reply.toolCall("repo_search", { pattern: "hello", ignore_case: true }),
      reply.submit({ kind: "report", title: "Search", payload: "Searched." }),
    ]);
    assert.equal(result.status, "succeeded");
    const [catastrophic, lookbehind, folded] = toolResults(t.llm.calls.at(-1)!, "repo_search");
    assert.equal(catastrophic, "no match for /(a+)+$/ in docs/**");
    assert.match(lookbehind, /^error: not a regular expression: /);
    assert.equal(folded, "src/greet.ts:2:   return `Hello, ${name}! Teh end.`;");
  }));
