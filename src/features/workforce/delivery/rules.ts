/**
 * Delivery rules (spec 3.3): which destinations an artifact kind goes to, the paths and
 * branch names derived from kind, employee and artifact, what a code patch may touch and with
 * which file modes, the chat host check, the draft message, and redaction of secrets from
 * recorded errors. Pure functions.
 */
import type { ArtifactKind } from "../../../platform/contract/mod.ts";
import { protectedBy } from "../../../platform/contract/protected-paths.ts";
import {
  emailTemplateEditRefusal,
  emailTemplateOf,
} from "../../../platform/contract/email-template.ts";
import {
  type ParsedFilePatch,
  parseUnifiedDiff,
  touchedPaths,
} from "../../../platform/unified-diff.ts";
import type { FileMode } from "./github.ts";

/** One adapter each; a kind is delivered to a list of them, in order. */
export type Destination = "pull_request" | "commit" | "email_draft" | "chat";

export interface Route {
  /** `delivery_metadata.destination`. */
  name: string;
  steps: Destination[];
}

/**
 * Spec 3.3 plus the two kinds it leaves open (docs/delivery.md): `slack_message` is a chat post;
 * `other` has no destination and is marked delivered with `destination: "none"`. A report is
 * committed first so its chat post can link to the file.
 */
export const ROUTES: Record<ArtifactKind, Route> = {
  draft_post: { name: "pull_request", steps: ["pull_request"] },
  code_patch: { name: "pull_request", steps: ["pull_request"] },
  email_template: { name: "email_draft", steps: ["email_draft"] },
  report: { name: "commit_and_chat", steps: ["commit", "chat"] },
  recommendation: { name: "commit", steps: ["commit"] },
  slack_message: { name: "chat", steps: ["chat"] },
  other: { name: "none", steps: [] },
};

export function routeFor(kind: ArtifactKind): Route {
  return ROUTES[kind];
}

/** Key of a step's result in `delivery_metadata` (camelCase, like the rest of the API). */
export const STEP_KEYS: Record<Destination, string> = {
  pull_request: "pullRequest",
  commit: "commit",
  email_draft: "emailDraft",
  chat: "chat",
};

/** What the adapters need to know about an approved artifact. */
export interface DeliveryItem {
  artifactId: string;
  kind: ArtifactKind;
  title: string;
  payload: string;
  employee: { publicId: string; name: string; role: string };
  reviewedBy: "admin" | "system";
  reviewedAt: Date | null;
  edited: boolean;
  /** The commit a code patch was made at; null: the default branch's head. */
  baseSha: string | null;
}

const DIRECTORIES: Partial<Record<ArtifactKind, string>> = {
  draft_post: "drafts/posts",
  report: "docs/reports",
  recommendation: "docs/recommendations",
};

/** The committed file of an artifact: `<directory of the kind>/<role>/<artifact id>.md`. */
export function filePathFor(item: Pick<DeliveryItem, "kind" | "employee" | "artifactId">): string {
  const dir = DIRECTORIES[item.kind] ?? `ai-workforce/${item.kind}`;
  return `${dir}/${item.employee.role}/${item.artifactId}.md`;
}

/** The pull request's branch: `ai-workforce/<role>/<artifact id>` (stable, so a retry reuses it). */
export function branchFor(item: Pick<DeliveryItem, "employee" | "artifactId">): string {
  return `ai-workforce/${item.employee.role}/${item.artifactId}`;
}

/** Markdown file body of a post, report or recommendation. */
export function markdownFile(item: Pick<DeliveryItem, "title" | "payload">): string {
  return `# ${oneLine(item.title)}\n\n${item.payload.trimEnd()}\n`;
}

export function commitMessage(item: DeliveryItem): string {
  return `${oneLine(item.title)}\n\nAI workforce ${item.kind} ${item.artifactId} by ${
    oneLine(item.employee.name)
  } (${item.employee.role}), approved by ${item.reviewedBy}.`;
}

export function pullRequestBody(item: DeliveryItem, files: string[], baseSha?: string): string {
  const lines = [
    `AI workforce ${item.kind.replace("_", " ")} by **${
      oneLine(item.employee.name)
    }** (\`${item.employee.role}\`).`,
    "",
    `- Artifact: \`${item.artifactId}\``,
    `- Approved by: ${item.reviewedBy}${
      item.reviewedAt ? ` at ${item.reviewedAt.toISOString()}` : ""
    }${item.edited ? " (with edits)" : ""}`,
    `- Files: ${files.map((f) => `\`${f}\``).join(", ")}`,
  ];
  if (baseSha) lines.push(`- Made at: \`${baseSha}\` (the branch starts there)`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Code patches

/** Why the patch check did not read GitHub when it is not configured. */
export const NOT_CONFIGURED =
  "GitHub is not configured (GITHUB_TOKEN, GITHUB_REPO): delivery checks it when it runs";

export const NOT_A_DIFF =
  "the payload is not a unified diff (---/+++ headers with @@ hunks, paths inside the repository)";

/** A path a patch touches that delivery refuses, with the pattern it falls under. */
export interface ProtectedPath {
  path: string;
  pattern: string;
}

/** What a code patch touches, read from its payload alone (no repository needed). */
export interface PatchTouches {
  /** The paths (old and new names), each once; null when the payload is not a diff. */
  files: string[] | null;
  /** The touched paths under a protected pattern (`PROTECTED_PATHS` and the default list). */
  protectedPaths: ProtectedPath[];
}

export function patchTouches(payload: string, patterns: readonly string[]): PatchTouches {
  const parsed = parseUnifiedDiff(payload);
  if (!parsed) return { files: null, protectedPaths: [] };
  const files = touchedPaths(parsed);
  return { files, protectedPaths: protectedPathsOf(files, patterns) };
}

export function protectedPathsOf(paths: string[], patterns: readonly string[]): ProtectedPath[] {
  return paths.flatMap((path) => {
    const pattern = protectedBy(path, patterns);
    return pattern === null ? [] : [{ path, pattern }];
  });
}

/** `the patch touches the protected path <path> (<pattern>)`, naming the first of them. */
export function protectedPathMessage(found: ProtectedPath[]): string {
  const [first] = found;
  const more = found.length > 1 ? ` and ${found.length - 1} more` : "";
  return `the patch touches the protected path ${first.path} (${first.pattern})${more}`;
}

/**
 * The diff of a code patch, or why no commit can be made of it whatever the repository holds: it
 * is not a diff, or has a change a commit of regular files cannot carry.
 */
export function patchDiff(payload: string): { files: ParsedFilePatch[] } | { refused: string } {
  const files = parseUnifiedDiff(payload);
  if (!files) return { refused: NOT_A_DIFF };
  const problem = diffProblem(payload, files);
  return problem === null ? { files } : { refused: problem };
}

/**
 * Why delivery refuses a code patch before reading the repository: {@link patchDiff}'s reason,
 * or a protected path it touches. Null: it may be tried.
 */
export function patchRefusal(payload: string, patterns: readonly string[]): string | null {
  const diff = patchDiff(payload);
  if ("refused" in diff) return diff.refused;
  const found = protectedPathsOf(touchedPaths(diff.files), patterns);
  return found.length ? `${protectedPathMessage(found)}, which delivery refuses` : null;
}

/**
 * Why an admin may not approve `payload` as a code patch: it touches a protected path, so its
 * delivery could only fail. Null otherwise (and for every other kind).
 */
export function protectedPatchError(
  kind: ArtifactKind,
  payload: string,
  patterns: readonly string[],
): string | null {
  if (kind !== "code_patch") return null;
  const found = patchTouches(payload, patterns).protectedPaths;
  if (!found.length) return null;
  return `${
    protectedPathMessage(found)
  }, which delivery refuses: reject it, or edit that change out and approve`;
}

/**
 * Why an edit of a code patch cannot be approved: it no longer parses as a unified diff (or has a
 * change no commit can carry), so its delivery could only fail. Null for other kinds.
 */
export function editedPatchError(kind: ArtifactKind, edited: string): string | null {
  if (kind !== "code_patch") return null;
  const diff = patchDiff(edited);
  return "refused" in diff ? `the edit is no longer a valid patch: ${diff.refused}` : null;
}

/** Why an edit of an email template written as JSON fields can no longer be delivered as one. */
export function editedEmailError(
  kind: ArtifactKind,
  original: string,
  edited: string,
): string | null {
  return kind === "email_template" ? emailTemplateEditRefusal(original, edited) : null;
}

const REGULAR: readonly string[] = ["100644", "100755"] satisfies FileMode[];
const isRegular = (mode: string): mode is FileMode => REGULAR.includes(mode);

function modeRefusal(path: string, mode: string): string {
  if (mode === "120000") {
    return `${path} is a symbolic link (mode 120000): delivery does not commit symbolic links`;
  }
  if (mode === "160000") {
    return `${path} is a submodule (mode 160000): delivery does not change submodules`;
  }
  return `${path} has mode ${mode}: delivery commits regular files only (100644, 100755)`;
}

/**
 * Why the diff itself cannot be delivered as it stands: a binary change (a diff carries no
 * content for it), or a header giving a file a mode other than a regular file's (a symbolic link,
 * a submodule). Null when there is none.
 */
export function diffProblem(payload: string, files: ParsedFilePatch[]): string | null {
  if (/^(Binary files .* differ|GIT binary patch)$/m.test(payload)) {
    return "the patch has a binary change, which a diff cannot carry";
  }
  for (const f of files) {
    for (const mode of [f.patch.oldMode, f.patch.newMode]) {
      if (mode !== undefined && !isRegular(mode)) return modeRefusal(f.newPath ?? f.oldPath!, mode);
    }
  }
  return null;
}

/** Why the files the diff touches cannot be changed at the base: one is a link or a submodule. */
export function baseModeProblem(
  files: ParsedFilePatch[],
  modes: ReadonlyMap<string, string>,
): string | null {
  for (const path of touchedPaths(files)) {
    const mode = modes.get(path);
    if (mode !== undefined && !isRegular(mode)) return modeRefusal(path, mode);
  }
  return null;
}

/**
 * The mode a file of the patch is committed with: the diff's own (`new file mode`, `new mode`),
 * else the mode at the base of the file it came from (kept through a rename), else `100644`.
 */
export function commitModeOf(
  path: string,
  files: ParsedFilePatch[],
  modes: ReadonlyMap<string, string>,
): FileMode {
  const from = files.find((f) => f.newPath === path) ?? files.find((f) => f.oldPath === path);
  const declared = from?.patch.newMode;
  if (declared !== undefined && isRegular(declared)) return declared;
  const atBase = modes.get(from?.oldPath ?? path);
  return atBase !== undefined && isRegular(atBase) ? atBase : "100644";
}

/** Slack-compatible text; long payloads are cut (Slack accepts at most 40,000 characters). */
export const CHAT_TEXT_LIMIT = 39_000;

export function chatText(item: DeliveryItem, link?: string): string {
  const head = `*${oneLine(item.title)}*`;
  const foot = `_${item.kind.replace("_", " ")} by ${oneLine(item.employee.name)}_${
    link ? ` <${link}|full text>` : ""
  }`;
  const room = CHAT_TEXT_LIMIT - head.length - foot.length - 4;
  const body = item.payload.length > room ? `${item.payload.slice(0, room - 1)}…` : item.payload;
  return `${head}\n${body}\n${foot}`;
}

/** A loopback host name: the only kind a chat post may reach over plain `http` (tests). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * `CHAT_WEBHOOK_ALLOWED_HOST` as a host name and an optional port (`hooks.slack.com`,
 * `chat.example.com:8443`), or null when it is something else (a scheme, a path, user info).
 */
export function parseAllowedChatHost(allowed: string): { hostname: string; port: string } | null {
  if (!/^[^/?#@\s]+$/.test(allowed)) return null;
  try {
    const url = new URL(`https://${allowed}`);
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return null;
  }
}

const defaultPort = (protocol: string) => protocol === "https:" ? "443" : "80";

/**
 * Why a chat post to `raw` is refused, or null when it may go: only `https://` (plain `http://`
 * only to a loopback host), no user info, the host `CHAT_WEBHOOK_ALLOWED_HOST` names (exact,
 * case-insensitive) and its port: the scheme's default unless it names one. A refusal never
 * quotes the URL, whose path is the webhook's secret.
 */
export function chatUrlRefusal(raw: string, allowedHost: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "CHAT_WEBHOOK_URL is not a URL";
  }
  const allowed = parseAllowedChatHost(allowedHost);
  if (!allowed) return `CHAT_WEBHOOK_ALLOWED_HOST (${allowedHost}) is not a host name`;
  const host = url.hostname.toLowerCase();
  if (host !== allowed.hostname) {
    return `chat host ${host} refused: only CHAT_WEBHOOK_ALLOWED_HOST (${allowedHost}) is allowed`;
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(host))) {
    return `chat URL scheme ${url.protocol}// refused: only https:// is allowed (http:// only to a loopback host)`;
  }
  if (url.username || url.password) return "chat URL refused: it carries user info (user:pass@)";
  const port = url.port || defaultPort(url.protocol);
  const allowedPort = allowed.port || defaultPort(url.protocol);
  if (port !== allowedPort) {
    return `chat port ${port} refused: CHAT_WEBHOOK_ALLOWED_HOST (${allowedHost}) allows ${
      allowed.port ? `port ${allowed.port}` : "only the scheme's default port"
    }`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Email drafts

/** `imap[s]://user:pass@host:port/Mailbox` → connection settings (mailbox defaults to Drafts). */
export interface ImapTarget {
  secure: boolean;
  host: string;
  port: number;
  user: string;
  pass: string;
  mailbox: string;
}

export function parseImapUrl(raw: string): ImapTarget {
  const url = new URL(raw);
  const secure = url.protocol === "imaps:";
  if (!secure && url.protocol !== "imap:") throw new Error("SANDBOX_IMAP_URL must be imap(s)://");
  const mailbox = decodeURIComponent(url.pathname.replace(/^\/+/, "")) || "Drafts";
  return {
    secure,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 993 : 143,
    user: decodeURIComponent(url.username),
    pass: decodeURIComponent(url.password),
    mailbox,
  };
}

/** The draft's Message-ID: stable per artifact, so a retry finds an earlier APPEND. */
export function draftMessageId(artifactId: string, host: string): string {
  return `<ai-artifact.${artifactId}@${host || "ai-workforce.invalid"}>`;
}

function encodeHeader(value: string): string {
  const clean = oneLine(value);
  if (/^[ -~]*$/.test(clean)) return clean;
  const bytes = new TextEncoder().encode(clean);
  return `=?UTF-8?B?${btoa(String.fromCharCode(...bytes))}?=`;
}

function base64Lines(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return (btoa(binary).match(/.{1,76}/g) ?? []).join("\r\n");
}

/**
 * An RFC 5322 draft of an email template (platform/contract/email-template.ts): its subject, or
 * the title when it names none, and its body as UTF-8 text; no recipients (a draft in a sandbox
 * inbox is never sent; a person copies it from there).
 */
export function draftMessage(
  item: DeliveryItem,
  options: { from: string; messageId: string; date: Date },
): string {
  const email = emailTemplateOf(item.payload);
  const headers = [
    `From: ${encodeHeader("AI workforce")} <${oneLine(options.from)}>`,
    `Subject: ${encodeHeader(email.subject ?? item.title)}`,
    `Date: ${rfc5322Date(options.date)}`,
    `Message-ID: ${options.messageId}`,
    `X-AI-Workforce-Artifact: ${item.artifactId}`,
    `X-AI-Workforce-Employee: ${item.employee.role}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: base64",
  ];
  return `${headers.join("\r\n")}\r\n\r\n${base64Lines(email.body)}\r\n`;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function rfc5322Date(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${p(d.getUTCDate())} ${
    MONTHS[d.getUTCMonth()]
  } ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${
    p(d.getUTCSeconds())
  } +0000`;
}

// ---------------------------------------------------------------------------------------------
// Errors

export const ERROR_LIMIT = 1_000;

/** Replaces every secret (and its URL-encoded form) with `[redacted]` and bounds the length. */
export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      out = out.split(form).join("[redacted]");
    }
  }
  return out.length > ERROR_LIMIT ? `${out.slice(0, ERROR_LIMIT - 1)}…` : out;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").trim();
}
