/**
 * Delivery rules (issue 7, spec 3.3): which destinations an artifact kind goes to, the paths and
 * branch names derived from kind, employee and artifact, unified-diff handling, the chat host
 * check, the draft message, and redaction of secrets from recorded errors. Pure functions.
 */
import type { ArtifactKind } from "../../../platform/contract/mod.ts";

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
}

const DIRECTORIES: Partial<Record<ArtifactKind, string>> = {
  draft_post: "drafts/posts",
  code_patch: "patches",
  report: "docs/reports",
  recommendation: "docs/recommendations",
};

/**
 * The committed file of an artifact: `<directory of the kind>/<employee role>/<artifact id>.md`
 * (`.patch` for a code patch that is not applied).
 */
export function filePathFor(item: Pick<DeliveryItem, "kind" | "employee" | "artifactId">): string {
  const dir = DIRECTORIES[item.kind] ?? `ai-workforce/${item.kind}`;
  const ext = item.kind === "code_patch" ? "patch" : "md";
  return `${dir}/${item.employee.role}/${item.artifactId}.${ext}`;
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

export function pullRequestBody(item: DeliveryItem, files: string[], note?: string): string {
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
  if (note) lines.push("", note);
  return lines.join("\n");
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

/** The chat URL's host must equal `CHAT_WEBHOOK_ALLOWED_HOST` (case-insensitive, exact). */
export function chatHostAllowed(url: string, allowedHost: string): boolean {
  try {
    return new URL(url).hostname.toLowerCase() === allowedHost.toLowerCase();
  } catch {
    return false;
  }
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
 * An RFC 5322 draft: the title as subject, the payload as a UTF-8 text body, no recipients (a
 * draft in a sandbox inbox is never sent; a person copies it from there).
 */
export function draftMessage(
  item: DeliveryItem,
  options: { from: string; messageId: string; date: Date },
): string {
  const headers = [
    `From: ${encodeHeader("AI workforce")} <${oneLine(options.from)}>`,
    `Subject: ${encodeHeader(item.title)}`,
    `Date: ${rfc5322Date(options.date)}`,
    `Message-ID: ${options.messageId}`,
    `X-AI-Workforce-Artifact: ${item.artifactId}`,
    `X-AI-Workforce-Employee: ${item.employee.role}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: base64",
  ];
  return `${headers.join("\r\n")}\r\n\r\n${base64Lines(item.payload)}\r\n`;
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
