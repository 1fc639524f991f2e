/** Where alerts, reports and deliveries go, and the error tracker. */
import { z } from "zod";
import { integer, variable } from "../platform/env.ts";
import {
  DEFAULT_PROTECTED_PATHS,
  protectedPathPatterns,
} from "../platform/contract/protected-paths.ts";
import { optionalString, optionalUrl } from "./schemas.ts";

export const DELIVERY_VARIABLES = {
  CHAT_WEBHOOK_URL: variable({
    description: "Alert and report destination (a Slack-compatible incoming webhook).",
    schema: optionalUrl,
    secret: true,
  }),
  CHAT_WEBHOOK_ALLOWED_HOST: variable({
    defaultText: "hooks.slack.com",
    description:
      "The only host a chat post may go to, with `:port` to allow a port other than the scheme's default. `CHAT_WEBHOOK_URL` must be `https://` (plain `http://` only to a loopback host) and carry no user info; a redirect is never followed (docs/delivery.md).",
    schema: z.string().regex(
      /^([^\s/?#@:[\]]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i,
      "must be a host name, optionally with :port",
    ).default("hooks.slack.com"),
  }),
  GITHUB_TOKEN: variable({
    description: "Token for pull-request and commit delivery.",
    schema: optionalString,
    secret: true,
  }),
  GITHUB_REPO: variable({
    description: "`owner/name` of the delivery repository.",
    schema: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name").optional(),
  }),
  GITHUB_API_URL: variable({
    defaultText: "https://api.github.com",
    description: "GitHub REST API base URL.",
    schema: z.url().default("https://api.github.com"),
  }),
  PROTECTED_PATHS: variable({
    description:
      `Comma-separated paths a \`code_patch\` may not touch, added to the default list (${
        DEFAULT_PROTECTED_PATHS.map((p) => `\`${p}\``).join(", ")
      }). A pattern ending in \`/\` is a folder at the repository's root, one without \`/\` a file name at any depth, any other one path from the root; \`*\` matches within a path segment; case is ignored. Delivery refuses such a patch and the review board shows it (docs/delivery.md); the runner reads a variable of the same name.`,
    schema: z.string().optional().transform((extra) => protectedPathPatterns(extra)),
  }),
  APPROVAL_UNDO_SECONDS: variable({
    defaultText: "30",
    description:
      "Seconds an admin's approval of an AI artifact waits before its delivery starts; meanwhile `undoAiArtifactApproval` returns the artifact to pending. 0 delivers at once. Auto-approvals are not delayed.",
    schema: integer(0, 3_600).default(30),
  }),
  SANDBOX_IMAP_URL: variable({
    description:
      "Sandbox inbox for email drafts, `imaps://user:pass@host:port/Drafts` (drafts are never sent).",
    schema: z.url({ protocol: /^imaps?$/ }).optional(),
    secret: "url",
  }),
  ERROR_TRACKER_DSN: variable({
    description: "Sentry-compatible DSN; unset = unhandled errors and warnings are only logged.",
    schema: optionalUrl,
    secret: "url",
  }),
} as const;
