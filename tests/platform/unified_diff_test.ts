import assert from "node:assert/strict";
import {
  applyFilePatches,
  createUnifiedDiff,
  parseUnifiedDiff,
  safeRepoPath,
  touchedPaths,
} from "../../src/platform/unified-diff.ts";
import {
  DEFAULT_PROTECTED_PATHS,
  protectedBy,
  protectedPathPatterns,
} from "../../src/platform/contract/mod.ts";

Deno.test("unified diff detection and application; unsafe paths and non-diffs are refused", () => {
  assert.equal(parseUnifiedDiff("Please rename greet."), null);
  assert.equal(parseUnifiedDiff("--- a\n+++ b\nno hunk"), null);
  assert.equal(
    parseUnifiedDiff("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"),
    null,
  );
  assert.equal(
    parseUnifiedDiff("--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n"),
    null,
  );
  const files = parseUnifiedDiff(
    "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
  )!;
  assert.deepEqual(files.map((f) => [f.oldPath, f.newPath]), [["x.txt", "x.txt"], [
    "gone.txt",
    null,
  ]]);
  const current = new Map<string, string | null>([["x.txt", "one\ntwo\n"], ["gone.txt", "bye\n"]]);
  assert.deepEqual(applyFilePatches(files, current), {
    changes: [{ path: "x.txt", content: "one\n2\n" }, { path: "gone.txt", content: null }],
  });
  assert.deepEqual(
    applyFilePatches(files, new Map([["x.txt", "other\n"], ["gone.txt", "bye\n"]])),
    {
      error: "the patch does not apply to x.txt",
    },
  );
  assert.deepEqual(applyFilePatches(files, new Map([["x.txt", null]])), {
    error: "x.txt does not exist at the base commit",
  });
  assert.equal(safeRepoPath("src/a.ts"), true);
  for (const bad of ["", "/abs", "a//b", "a/./b", "a\\b", "a\nb", ".git/HEAD"]) {
    assert.equal(safeRepoPath(bad), false, JSON.stringify(bad));
  }
});

Deno.test("unified diff: a made diff parses and applies back, new, changed and deleted files", () => {
  const before = new Map<string, string | null>([
    ["src/a.ts", "one\ntwo\nthree\n"],
    ["old.txt", "bye\n"],
    ["new.txt", null],
    ["tail.txt", "no newline"],
  ]);
  const diff = createUnifiedDiff([
    { path: "src/a.ts", before: "one\ntwo\nthree\n", after: "one\n2\nthree\n" },
    { path: "old.txt", before: "bye\n", after: null },
    { path: "new.txt", before: null, after: "hello\n" },
    { path: "same.txt", before: "x\n", after: "x\n" },
    { path: "tail.txt", before: "no newline", after: "no newline, still" },
  ]);
  assert.match(
    diff,
    /^diff --git a\/src\/a.ts b\/src\/a.ts\n--- a\/src\/a.ts\n\+\+\+ b\/src\/a.ts\n@@ /,
  );
  assert.match(
    diff,
    /diff --git a\/old.txt b\/old.txt\ndeleted file mode 100644\n--- a\/old.txt\n\+\+\+ \/dev\/null/,
  );
  assert.match(diff, /diff --git a\/new.txt b\/new.txt\nnew file mode 100644\n--- \/dev\/null/);
  assert.doesNotMatch(diff, /same.txt|={10}/);
  const files = parseUnifiedDiff(diff)!;
  assert.deepEqual(touchedPaths(files), ["src/a.ts", "old.txt", "new.txt", "tail.txt"]);
  assert.deepEqual(applyFilePatches(files, before), {
    changes: [
      { path: "src/a.ts", content: "one\n2\nthree\n" },
      { path: "old.txt", content: null },
      { path: "new.txt", content: "hello\n" },
      { path: "tail.txt", content: "no newline, still" },
    ],
  });
  // A new file that the base already has does not apply.
  assert.deepEqual(applyFilePatches(files, new Map([...before, ["new.txt", "there\n"]])), {
    error: "new.txt already exists at the base commit",
  });
});

Deno.test("protected paths: CI configuration and code owners, at the root or by name", () => {
  const patterns = protectedPathPatterns("deploy/, secrets/*.env ,infra/main.tf");
  for (
    const path of [
      ".github/workflows/ci.yml",
      ".GitHub/Workflows/CI.yml",
      ".gitlab-ci.yml",
      "CODEOWNERS",
      "docs/CODEOWNERS",
      ".circleci/config.yml",
      "Jenkinsfile",
      "deploy/prod.yml",
      "secrets/prod.env",
      "infra/main.tf",
    ]
  ) {
    assert.ok(protectedBy(path, patterns), path);
  }
  for (
    const path of [
      "src/.github.ts",
      "docs/github/ci.yml",
      "deploy",
      "secrets/sub/prod.env",
      "infra/main.tf.bak",
      "README.md",
    ]
  ) {
    assert.equal(protectedBy(path, patterns), null, path);
  }
  assert.equal(protectedBy(".github/workflows/ci.yml", DEFAULT_PROTECTED_PATHS), ".github/");
  assert.deepEqual(protectedPathPatterns(undefined), [...DEFAULT_PROTECTED_PATHS]);
});
