/** Pure rules of the console: base path, asset names, CSP, the shell's escaping, and the pages'
 * rules (the worker's edit measure equal to the service's, changed characters, collapsed payloads, rejection reasons, spend levels, routes). */
import assert from "node:assert/strict";
import {
  adminBasePath,
  assetName,
  contentSecurityPolicy,
  escapeHtml,
  shellHtml,
} from "../../../src/features/admin/rules.ts";
import {
  age,
  collapsedText,
  counted,
  filesSummary,
  oneLine,
  rejectionReasonError,
  routeOf,
  shortcutOf,
  shortSha,
  spendLevel,
  usd,
} from "../../../src/features/admin/ui/rules.ts";
import { measureEdit } from "../../../src/features/workforce/rules.ts";
import { editWork } from "../../../src/features/admin/ui/edit-work.ts";
import { changedSpans } from "../../../src/features/admin/ui/intraline.ts";

Deno.test("admin rules: the base path is the path of ADMIN_BASE_URL, /admin for a bare host", () => {
  assert.equal(adminBasePath("http://localhost:4000/admin"), "/admin");
  assert.equal(adminBasePath("https://ops.example/ops/console/"), "/ops/console");
  assert.equal(adminBasePath("https://ops.example"), "/admin");
  assert.equal(adminBasePath("https://ops.example/"), "/admin");
});

Deno.test("admin rules: asset names carry the hash; the CSP allows only the service", () => {
  assert.equal(assetName("js", "0123456789abcdef0123"), "app-0123456789abcdef.js");
  assert.equal(
    assetName("js", "0123456789abcdef0123", "edit-worker"),
    "edit-worker-0123456789abcdef.js",
  );
  const csp = contentSecurityPolicy("http://h.example:4000/admin");
  assert.match(csp, /^default-src 'self'; /);
  assert.match(csp, /connect-src 'self' ws:\/\/h\.example:4000;/);
  assert.match(
    contentSecurityPolicy("https://ops.example/console"),
    /connect-src 'self' wss:\/\/ops\.example;/,
  );
  assert.match(csp, /frame-ancestors 'none'/);
});

Deno.test("admin rules: the shell escapes what it renders", () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
  const shell = shellHtml({
    base: '/a"b',
    script: "s.js",
    style: "s.css",
    icon: "s.svg",
    editWorker: "w.js",
    fallbackEnabled: false,
    signInUrl: null,
  });
  assert.ok(shell.includes('data-base="/a&quot;b"'));
  assert.ok(shell.includes('data-edit-worker="/a&quot;b/assets/w.js"'));
  assert.ok(!shell.includes("data-sign-in-url"));
  const withProvider = shellHtml({
    base: "/admin",
    script: "s.js",
    style: "s.css",
    icon: "s.svg",
    editWorker: "w.js",
    fallbackEnabled: true,
    signInUrl: 'https://idp.example/a?b=1&c="x"',
  });
  assert.ok(
    withProvider.includes('data-sign-in-url="https://idp.example/a?b=1&amp;c=&quot;x&quot;"'),
  );
});

Deno.test("admin ui rules: the worker's edit measure is the service's (spec 8), heavy above 0.3", () => {
  const big = "line of a long text\n".repeat(10_000);
  for (
    const [a, b] of [
      ["", ""],
      ["abc", "abc"],
      ["hello world", "hello there"],
      [
        "short",
        "a completely different text",
      ],
      [big, big.replace("line of", "LINE OF")],
      [big, "x".repeat(200_000)],
    ]
  ) {
    const mine = editWork({ seq: 1, kind: "report", original: a, edited: b });
    const theirs = measureEdit(a, b);
    assert.deepEqual(
      { editDistance: mine.editDistance, editRatio: mine.editRatio, heavy: mine.heavy },
      theirs,
    );
  }
  const light = (edited: string) =>
    editWork({ seq: 1, kind: "report", original: "aaaaaaaaaa", edited }).heavy;
  assert.equal(light("aaaaaaabbb"), false); // exactly 0.3
  assert.equal(light("aaaaaabbbb"), true);
});

Deno.test("admin ui rules: the worker lists changed lines with context and refuses a broken email", () => {
  const original = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const edited = original.replace("line 20\n", "line twenty\n");
  const result = editWork({ seq: 7, kind: "report", original, edited });
  assert.equal(result.seq, 7);
  assert.deepEqual(result.hunks, [{
    oldStart: 17,
    newStart: 17,
    lines: [
      " line 17",
      " line 18",
      " line 19",
      "-line 20",
      "+line twenty",
      " line 21",
      " line 22",
      " line 23",
    ],
  }]);
  assert.equal(result.refusal, null);
  const email = editWork({ seq: 1, kind: "email_template", original: "{}", edited: "{" });
  assert.match(email.refusal!, /no longer valid JSON/);
  // A patch is checked by the service, with delivery's own parser.
  const patch = editWork({ seq: 1, kind: "code_patch", original: "", edited: "not a diff" });
  assert.equal(patch.refusal, null);
});

Deno.test("admin ui rules: changed characters of paired lines, as diff-highlight marks them", () => {
  assert.deepEqual(
    changedSpans(["ctx", "del", "add"], ["same", "const a = 1;", "const a = 2;"]),
    [null, [10, 11], [10, 11]],
  );
  // Unequal runs of removed and added lines are not paired; nothing in common, nothing marked.
  assert.deepEqual(changedSpans(["del", "del", "add"], ["a", "b", "c"]), [null, null, null]);
  assert.deepEqual(changedSpans(["del", "add"], ["abc", "xyz"]), [null, null]);
  assert.deepEqual(changedSpans(["del", "add"], ["foo()", "foo(bar)"]), [[4, 4], [4, 7]]);
});

Deno.test("admin ui rules: a long payload is cut at a line end near the limits", () => {
  assert.equal(collapsedText("short"), null);
  assert.equal(collapsedText("a\n".repeat(120)), null);
  const lines = "a line\n".repeat(500);
  const cut = collapsedText(lines)!;
  assert.equal(cut.split("\n").length, 120);
  const word = "x".repeat(10_000);
  assert.equal(collapsedText(word)!.length, 6_000);
  const prose = ("word ".repeat(30) + "\n").repeat(100);
  const proseCut = collapsedText(prose)!;
  assert.ok(proseCut.length <= 6_000 && proseCut.endsWith("word "), proseCut.slice(-10));
});

Deno.test("admin ui rules: a rejection reason needs 10 characters after trimming (spec 3.2)", () => {
  assert.match(rejectionReasonError("too short")!, /at least 10 characters \(9 so far\)/);
  assert.match(rejectionReasonError("   padded    ")!, /6 so far/);
  assert.equal(rejectionReasonError("long enough"), null);
});

Deno.test("admin ui rules: spend levels at 80 % and 100 % of the cap, ages, shortcuts", () => {
  assert.deepEqual(spendLevel(7.99, 1000), { percent: 79.9, level: "ok" });
  assert.equal(spendLevel(8, 1000).level, "warning");
  assert.equal(spendLevel(10, 1000).level, "over");
  assert.equal(spendLevel(0, 0).level, "ok");
  assert.equal(spendLevel(0.01, 0).level, "over");
  const now = Date.parse("2026-01-05T12:00:00Z");
  assert.equal(age("2026-01-05T11:59:30Z", now), "30 s");
  assert.equal(age("2026-01-05T11:00:00Z", now), "1 h");
  assert.equal(age("2026-01-03T12:00:00Z", now), "2 d");
  assert.deepEqual([usd(0.01), usd(0.0123), usd(50), usd(0), usd(1.23456)], [
    "$0.01",
    "$0.0123",
    "$50.00",
    "$0.00",
    "$1.23",
  ]);
  assert.equal(shortcutOf("j"), "next");
  assert.equal(shortcutOf("x"), null);
});

Deno.test("admin ui rules: client routes under the base", () => {
  assert.deepEqual(routeOf("/admin", "/admin"), { page: "review" });
  assert.deepEqual(routeOf("/admin", "/admin/"), { page: "review" });
  assert.deepEqual(routeOf("/admin", "/admin/artifacts/a1"), { page: "artifact", id: "a1" });
  assert.deepEqual(routeOf("/admin", "/admin/artifacts"), { page: "not-found" });
  assert.deepEqual(routeOf("/admin", "/admin/sign-in", "?fallback"), {
    page: "sign-in",
    fallback: true,
  });
  assert.deepEqual(routeOf("/admin", "/admin/sign-in"), { page: "sign-in", fallback: false });
  assert.deepEqual(routeOf("/admin", "/admin/feedback_posts/p%201"), {
    page: "feedback-post",
    id: "p 1",
  });
  assert.deepEqual(routeOf("/admin", "/admin/ai_employees/e1"), { page: "employee", id: "e1" });
  assert.deepEqual(routeOf("/admin", "/admin/ai_runs/r1"), { page: "run", id: "r1" });
  assert.deepEqual(routeOf("/admin", "/admin/jobs"), { page: "jobs", q: "" });
  assert.deepEqual(routeOf("/admin", "/admin/deliveries"), { page: "deliveries" });
  assert.deepEqual(routeOf("/admin", "/admin/deliveries/x"), { page: "not-found" });
  assert.deepEqual(routeOf("/admin", "/admin/ai_flags"), { page: "flags" });
  assert.deepEqual(routeOf("/admin", "/admin/reports"), { page: "reports" });
  assert.deepEqual(routeOf("/admin", "/admin/reports/x"), { page: "not-found" });
  assert.deepEqual(routeOf("/admin", "/admin/ai_runs"), { page: "not-found" });
  assert.deepEqual(routeOf("/admin", "/admin/feedback_posts/a/b"), { page: "not-found" });
  assert.deepEqual(routeOf("/admin", "/admin/%E0%A4%A"), { page: "not-found" });
});

Deno.test("admin ui rules: the Jobs page's search and job pages; errors on one line", () => {
  assert.deepEqual(routeOf("/admin", "/admin/jobs", "?q=SMTP%20refused"), {
    page: "jobs",
    q: "SMTP refused",
  });
  assert.deepEqual(routeOf("/admin", "/admin/jobs/", "?q="), { page: "jobs", q: "" });
  assert.deepEqual(routeOf("/admin", "/admin/jobs/abc_-1"), { page: "job", id: "abc_-1" });
  assert.deepEqual(routeOf("/admin", "/admin/jobs/a/b"), { page: "not-found" });
  assert.equal(oneLine("Error: boom\n  at x\n\tat y"), "Error: boom at x at y");
  assert.equal(oneLine("a".repeat(120)), "a".repeat(120));
  assert.equal(oneLine(`${"a".repeat(119)} b`), `${"a".repeat(119)}…`);
  assert.equal(oneLine("abcdef", 3), "abc…");
});

Deno.test("admin ui rules: a patch's files summed up, commits shortened", () => {
  assert.equal(counted(1, "dead job"), "1 dead job");
  assert.equal(counted(0, "dead job"), "0 dead jobs");
  assert.equal(counted(2, "reply", "replies"), "2 replies");
  assert.equal(filesSummary([]), "no file");
  assert.equal(filesSummary(["a.ts"]), "1 file: a.ts");
  assert.equal(filesSummary(["a.ts", "b.ts"]), "2 files: a.ts, b.ts");
  assert.equal(
    filesSummary(["1", "2", "3", "4", "5", "6", "7"]),
    "7 files: 1, 2, 3, 4, 5 and 2 more",
  );
  assert.equal(shortSha("0123456789abcdef"), "0123456");
});
