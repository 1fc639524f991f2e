import assert from "node:assert/strict";
import {
  baseModeProblem,
  branchFor,
  CHAT_TEXT_LIMIT,
  chatText,
  chatUrlRefusal,
  commitModeOf,
  type DeliveryItem,
  diffProblem,
  draftMessage,
  filePathFor,
  NOT_A_DIFF,
  parseImapUrl,
  patchTouches,
  protectedPatchError,
  pullRequestBody,
  redact,
  rfc5322Date,
  routeFor,
} from "../../../../src/features/workforce/delivery/rules.ts";
import { ARTIFACT_KINDS } from "../../../../src/platform/contract/mod.ts";
import { protectedPathPatterns } from "../../../../src/platform/contract/protected-paths.ts";
import { parseUnifiedDiff } from "../../../../src/platform/unified-diff.ts";

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => ({
  artifactId: "AbC-def_0123456789abcd",
  kind: "report",
  title: "Weekly report",
  payload: "Body",
  employee: { publicId: "emp", name: "Ana", role: "analyst" },
  reviewedBy: "admin",
  reviewedAt: new Date("2026-01-05T12:00:00Z"),
  edited: false,
  baseSha: null,
  ...over,
});

Deno.test("routes: every kind has one, as spec 3.3 and docs/delivery.md say", () => {
  const table = Object.fromEntries(ARTIFACT_KINDS.map((k) => [k, routeFor(k)]));
  assert.deepEqual(table, {
    code_patch: { name: "pull_request", steps: ["pull_request"] },
    email_template: { name: "email_draft", steps: ["email_draft"] },
    slack_message: { name: "chat", steps: ["chat"] },
    report: { name: "commit_and_chat", steps: ["commit", "chat"] },
    draft_post: { name: "pull_request", steps: ["pull_request"] },
    recommendation: { name: "commit", steps: ["commit"] },
    other: { name: "none", steps: [] },
  });
});

Deno.test("paths and branch derive from kind, employee role and artifact id", () => {
  assert.equal(filePathFor(item()), "docs/reports/analyst/AbC-def_0123456789abcd.md");
  assert.equal(
    filePathFor(item({ kind: "recommendation" })),
    "docs/recommendations/analyst/AbC-def_0123456789abcd.md",
  );
  assert.equal(
    filePathFor(item({ kind: "draft_post" })),
    "drafts/posts/analyst/AbC-def_0123456789abcd.md",
  );
  assert.equal(branchFor(item()), "ai-workforce/analyst/AbC-def_0123456789abcd");
});

Deno.test("chat URL: the allowed host exactly, https (http only to loopback), no user info, its port", () => {
  const ok = (url: string, allowed = "hooks.slack.com") =>
    assert.equal(chatUrlRefusal(url, allowed), null, url);
  ok("https://hooks.slack.com/services/x");
  ok("https://HOOKS.slack.com/x");
  ok("https://hooks.slack.com:443/x");
  ok("https://hooks.slack.com/x", "HOOKS.Slack.com");
  ok("https://hooks.slack.com/x", "hooks.slack.com:443");
  ok("https://chat.example.com:8443/x", "chat.example.com:8443");
  ok("http://127.0.0.1:4100/x", "127.0.0.1:4100");
  ok("http://localhost/x", "localhost");
  ok("http://[::1]:4100/x", "[::1]:4100");

  const host = (h: string) =>
    `chat host ${h} refused: only CHAT_WEBHOOK_ALLOWED_HOST (hooks.slack.com) is allowed`;
  const refused = (url: string, reason: string, allowed = "hooks.slack.com") =>
    assert.equal(chatUrlRefusal(url, allowed), reason, url);
  refused("https://hooks.slack.com.evil.io/x", host("hooks.slack.com.evil.io"));
  refused("https://evil.io/hooks.slack.com", host("evil.io"));
  refused("https://hooks.slack.com@evil.io/", host("evil.io"));
  refused("not a url", "CHAT_WEBHOOK_URL is not a URL");
  const scheme = (s: string) =>
    `chat URL scheme ${s}// refused: only https:// is allowed (http:// only to a loopback host)`;
  refused("http://hooks.slack.com/services/x", scheme("http:"));
  refused("ftp://hooks.slack.com/services/x", scheme("ftp:"));
  refused("http://10.0.0.1/x", scheme("http:"), "10.0.0.1");
  const userInfo = "chat URL refused: it carries user info (user:pass@)";
  refused("https://user:pass@hooks.slack.com/x", userInfo);
  refused("https://user@hooks.slack.com/x", userInfo);
  refused("http://u:p@127.0.0.1:4100/x", userInfo, "127.0.0.1:4100");
  refused(
    "https://hooks.slack.com:8443/x",
    "chat port 8443 refused: CHAT_WEBHOOK_ALLOWED_HOST (hooks.slack.com) allows only the scheme's default port",
  );
  refused(
    "http://127.0.0.1:4101/x",
    "chat port 4101 refused: CHAT_WEBHOOK_ALLOWED_HOST (127.0.0.1:4100) allows port 4100",
    "127.0.0.1:4100",
  );
  refused(
    "https://chat.example.com/x",
    "chat port 443 refused: CHAT_WEBHOOK_ALLOWED_HOST (chat.example.com:8443) allows port 8443",
    "chat.example.com:8443",
  );
  refused(
    "https://hooks.slack.com/x",
    "CHAT_WEBHOOK_ALLOWED_HOST (https://hooks.slack.com) is not a host name",
    "https://hooks.slack.com",
  );
});

Deno.test("chat text: bold title, payload, footer; long payloads cut under Slack's limit", () => {
  assert.equal(chatText(item()), "*Weekly report*\nBody\n_report by Ana_");
  assert.equal(
    chatText(item(), "https://x/y"),
    "*Weekly report*\nBody\n_report by Ana_ <https://x/y|full text>",
  );
  const long = chatText(item({ payload: "a".repeat(100_000) }));
  assert.ok(long.length <= CHAT_TEXT_LIMIT);
  assert.ok(long.includes("…"));
});

Deno.test("IMAP URL: scheme, port defaults, encoded credentials, mailbox default Drafts", () => {
  assert.deepEqual(parseImapUrl("imaps://me%40x.io:p%3Ass@mail.x.io/Drafts"), {
    secure: true,
    host: "mail.x.io",
    port: 993,
    user: "me@x.io",
    pass: "p:ss",
    mailbox: "Drafts",
  });
  const plain = parseImapUrl("imap://u:p@127.0.0.1:1143");
  assert.equal(plain.secure, false);
  assert.equal(plain.port, 1143);
  assert.equal(plain.mailbox, "Drafts");
  assert.equal(parseImapUrl("imap://u:p@h/Work%2FDrafts").mailbox, "Work/Drafts");
});

Deno.test("draft message: no recipients, encoded subject, header injection stripped, base64 body", () => {
  const raw = draftMessage(item({ title: "Hola\r\nBcc: victim@x.io", payload: "día" }), {
    from: "sandbox@x.io",
    messageId: "<m@x>",
    date: new Date("2026-01-05T12:00:00Z"),
  });
  const [head, body] = raw.split("\r\n\r\n");
  const headers = head.split("\r\n");
  assert.ok(!headers.some((h) => /^(To|Cc|Bcc):/i.test(h)), head);
  assert.ok(headers.includes("Subject: Hola Bcc: victim@x.io"));
  assert.ok(headers.includes("Date: Mon, 05 Jan 2026 12:00:00 +0000"));
  assert.ok(headers.includes("Message-ID: <m@x>"));
  assert.equal(
    new TextDecoder().decode(Uint8Array.from(atob(body.trim()), (c) => c.charCodeAt(0))),
    "día",
  );
  const encoded = draftMessage(item({ title: "día" }), {
    from: "a@b",
    messageId: "<m@x>",
    date: new Date(0),
  });
  assert.match(encoded, /\r\nSubject: =\?UTF-8\?B\?ZMOtYQ==\?=\r\n/);
  // An email written as JSON fields: its subject and body, not the title and the JSON.
  const fields = draftMessage(
    item({ title: "Title", payload: JSON.stringify({ subject: "From fields", body: "Body" }) }),
    { from: "a@b", messageId: "<m@x>", date: new Date(0) },
  );
  assert.match(fields, /\r\nSubject: From fields\r\n/);
  assert.equal(fields.split("\r\n\r\n")[1].trim(), btoa("Body"));
  assert.equal(rfc5322Date(new Date("2026-11-23T01:02:03Z")), "Mon, 23 Nov 2026 01:02:03 +0000");
});

Deno.test("redact: secrets and their URL-encoded forms are replaced; long messages bounded", () => {
  assert.equal(
    redact("login p@ss:1 failed for imap://u:p%40ss%3A1@h", ["p@ss:1"]),
    "login [redacted] failed for imap://u:[redacted]@h",
  );
  assert.equal(redact("short abc", ["abc", undefined, ""]), "short abc", "too short to redact");
  assert.equal(redact("x".repeat(5000), []).length, 1000);
});

const CI_AND_APP = [
  "diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml",
  "--- a/.github/workflows/ci.yml",
  "+++ b/.github/workflows/ci.yml",
  "@@ -1 +1 @@",
  "-on: push",
  "+on: [push, pull_request]",
  "diff --git a/src/app.ts b/src/app.ts",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1 +1 @@",
  "-old",
  "+new",
  "",
].join("\n");

Deno.test("patch touches: the paths of the payload and the protected ones, without a repository", () => {
  const patterns = protectedPathPatterns(undefined);
  assert.deepEqual(patchTouches(CI_AND_APP, patterns), {
    files: [".github/workflows/ci.yml", "src/app.ts"],
    protectedPaths: [{ path: ".github/workflows/ci.yml", pattern: ".github/" }],
  });
  assert.deepEqual(patchTouches("Rename greet everywhere.", patterns), {
    files: null,
    protectedPaths: [],
  });
  // PROTECTED_PATHS adds to the list; matching ignores case.
  const more = protectedPathPatterns("src/, deploy/*.tf");
  assert.deepEqual(
    patchTouches(CI_AND_APP.replaceAll("src/app.ts", "SRC/app.ts"), more).protectedPaths.map((
      p,
    ) => p.pattern),
    [".github/", "src/"],
  );
  assert.equal(
    protectedPatchError("code_patch", CI_AND_APP, patterns),
    "the patch touches the protected path .github/workflows/ci.yml (.github/), which delivery refuses: reject it, or edit that change out and approve",
  );
  assert.equal(protectedPatchError("report", CI_AND_APP, patterns), null);
  assert.equal(protectedPatchError("code_patch", "not a diff", patterns), null);
});

Deno.test("patch modes: symlinks, submodules and binary changes are refused; modes are kept", () => {
  const link =
    "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+x\n";
  assert.equal(
    diffProblem(link, parseUnifiedDiff(link)!),
    "l is a symbolic link (mode 120000): delivery does not commit symbolic links",
  );
  const binary =
    `${CI_AND_APP}diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n`;
  assert.equal(
    diffProblem(binary, parseUnifiedDiff(binary)!),
    "the patch has a binary change, which a diff cannot carry",
  );
  const app = parseUnifiedDiff(CI_AND_APP)!;
  assert.equal(diffProblem(CI_AND_APP, app), null);
  assert.equal(
    baseModeProblem(app, new Map([["src/app.ts", "120000"]])),
    "src/app.ts is a symbolic link (mode 120000): delivery does not commit symbolic links",
  );
  assert.equal(
    baseModeProblem(app, new Map([["src/app.ts", "160000"]])),
    "src/app.ts is a submodule (mode 160000): delivery does not change submodules",
  );
  assert.equal(baseModeProblem(app, new Map([["src/app.ts", "100755"]])), null);

  const modes = new Map([["bin/run", "100755"], ["src/app.ts", "100644"]]);
  const renamed = parseUnifiedDiff(
    "diff --git a/bin/run b/bin/start\n--- a/bin/run\n+++ b/bin/start\n@@ -1 +1 @@\n-a\n+b\n" +
      "diff --git a/bin/new b/bin/new\nnew file mode 100755\n--- /dev/null\n+++ b/bin/new\n@@ -0,0 +1 @@\n+c\n" +
      "diff --git a/doc.md b/doc.md\nnew file mode 100644\n--- /dev/null\n+++ b/doc.md\n@@ -0,0 +1 @@\n+d\n",
  )!;
  assert.equal(commitModeOf("bin/start", renamed, modes), "100755", "a rename keeps the mode");
  assert.equal(commitModeOf("bin/new", renamed, modes), "100755", "the diff's own mode");
  assert.equal(commitModeOf("doc.md", renamed, modes), "100644");
  assert.equal(commitModeOf("src/app.ts", app, modes), "100644");
});

Deno.test("pull request body of a patch names the commit it starts from", () => {
  const body = pullRequestBody(item({ kind: "code_patch" }), ["a.ts"], "0123456789abcdef");
  assert.match(body, /- Files: `a.ts`\n- Made at: `0123456789abcdef` \(the branch starts there\)$/);
  assert.ok(!pullRequestBody(item(), ["a.md"]).includes("Made at"));
  assert.match(NOT_A_DIFF, /^the payload is not a unified diff/);
});
