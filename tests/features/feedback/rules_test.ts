import assert from "node:assert/strict";
import {
  adminUrl,
  clampExportLimit,
  cutExportPage,
  EXPORT_START,
  mayDelete,
  nextSince,
  parseExportRequest,
  validateComment,
  validatePost,
} from "../../../src/features/feedback/rules.ts";
import { statusChangedNotice } from "../../../src/features/feedback/rules.ts";

Deno.test("feedback rules: a post is trimmed and checked field by field", () => {
  const ok = validatePost({ title: "  Dark mode ", description: " please ", category: "feature" });
  assert.deepEqual(ok, {
    value: { title: "Dark mode", description: "please", category: "feature" },
    errors: [],
  });
  const bad = validatePost({ title: " a ", description: "   ", category: "rant" });
  assert.equal(bad.errors.length, 3);
  assert.equal(
    validatePost({ title: "x".repeat(151), description: "d", category: "bug" }).errors
      .length,
    1,
  );
  assert.equal(
    validatePost({ title: "x".repeat(150), description: "d".repeat(5000), category: "bug" })
      .errors.length,
    0,
  );
  assert.equal(
    validatePost({ title: "abc", description: "d".repeat(5001), category: "other" }).errors.length,
    1,
  );
});

Deno.test("feedback rules: comments are 1 to 2000 characters after trimming", () => {
  assert.deepEqual(validateComment("  hi "), { value: "hi", errors: [] });
  assert.equal(validateComment("   ").errors.length, 1);
  assert.equal(validateComment("x".repeat(2001)).errors.length, 1);
});

Deno.test("feedback rules: only the author or an admin may delete", () => {
  assert.equal(mayDelete({ authorId: "1" }, { userId: "1", isAdmin: false }), true);
  assert.equal(mayDelete({ authorId: "1" }, { userId: "2", isAdmin: false }), false);
  assert.equal(mayDelete({ authorId: "1" }, { userId: "2", isAdmin: true }), true);
});

Deno.test("feedback export rules: limit defaults to 100 and is clamped to 1..500", () => {
  assert.equal(clampExportLimit(undefined), 100);
  assert.equal(clampExportLimit(null), 100);
  assert.equal(clampExportLimit(0), 1);
  assert.equal(clampExportLimit(-7), 1);
  assert.equal(clampExportLimit(501), 500);
  assert.equal(clampExportLimit(2.9), 2);
  assert.equal(clampExportLimit(250), 250);
});

Deno.test("feedback export rules: the body is {since?, limit?}", () => {
  assert.deepEqual(parseExportRequest({}), { since: null, after: null, limit: 100 });
  assert.deepEqual(parseExportRequest({ since: "2026-01-01T00:00:00.123456Z", limit: 5 }), {
    since: "2026-01-01T00:00:00.123456Z",
    after: "2026-01-01T00:00:00.123456Z",
    limit: 5,
  });
  assert.deepEqual(parseExportRequest({ since: null }), { since: null, after: null, limit: 100 });
  assert.deepEqual(parseExportRequest({ since: "2026-01-01T10:00:00+02:00" }), {
    since: "2026-01-01T10:00:00+02:00",
    after: "2026-01-01T08:00:00.000000Z",
    limit: 100,
  });
  // Every ISO 8601 form; no zone is UTC.
  for (
    const [since, after] of [
      ["2026-01-01", "2026-01-01T00:00:00.000000Z"],
      ["2026-01-01T10:30:00", "2026-01-01T10:30:00.000000Z"],
      ["20260101T103000", "2026-01-01T10:30:00.000000Z"],
      ["2026-W01-4", "2026-01-01T00:00:00.000000Z"],
      ["2026-001", "2026-01-01T00:00:00.000000Z"],
      ["2026-01-01T00:00:00.1234567Z", "2026-01-01T00:00:00.123456Z"],
    ]
  ) {
    assert.deepEqual(parseExportRequest({ since }), { since, after, limit: 100 }, since);
  }
  for (
    const bad of [
      [],
      null,
      "x",
      { since: 5 },
      { since: "" },
      { since: "yesterday" },
      { since: "Jan 1 2026" },
      { since: "2026-13-01T00:00:00Z" },
      { since: "2026-02-30" },
      { since: "2026-01-01T25:00:00Z" },
      { since: "2026-01-01T00:00:00\u0000" },
      { since: "2026-01-01T00:00:00Z".repeat(5) },
      { limit: "10" },
      { limit: true },
    ]
  ) {
    assert.equal(typeof parseExportRequest(bad), "string", JSON.stringify(bad));
  }
});

Deno.test("feedback export rules: a page never splits posts that share a timestamp", () => {
  const r = (createdAt: string, n: number) => ({ createdAt, n });
  const rows = [r("a", 1), r("b", 2), r("c", 3)];
  assert.deepEqual(cutExportPage(rows, 5), { page: rows, needsTieGroup: false });
  assert.deepEqual(cutExportPage(rows, 2), { page: rows.slice(0, 2), needsTieGroup: false });
  const tied = [r("a", 1), r("b", 2), r("b", 3)];
  assert.deepEqual(cutExportPage(tied, 2), { page: [r("a", 1)], needsTieGroup: false });
  assert.deepEqual(cutExportPage([r("b", 1), r("b", 2), r("b", 3)], 2), {
    page: [],
    needsTieGroup: true,
  });
});

Deno.test("feedback export rules: next_since is the last timestamp, else the since sent, always a string", () => {
  assert.equal(nextSince([{ createdAt: "x" }, { createdAt: "y" }], "s"), "y");
  assert.equal(nextSince([], "2026-01-01T00:00:00.5Z"), "2026-01-01T00:00:00.5Z");
  assert.equal(nextSince([], "2026-01-01"), "2026-01-01");
  assert.equal(nextSince([], null), EXPORT_START);
});

Deno.test("feedback export rules: admin links", () => {
  assert.equal(
    adminUrl("https://a.example/admin/", "abc"),
    "https://a.example/admin/feedback_posts/abc",
  );
  assert.equal(
    adminUrl("http://localhost:4000/admin", "x-y"),
    "http://localhost:4000/admin/feedback_posts/x-y",
  );
});

Deno.test("notices: a feedback status reads as words", () => {
  assert.equal(
    statusChangedNotice("Dark mode", "in_progress"),
    `Your feedback "Dark mode" is now in progress.`,
  );
});
