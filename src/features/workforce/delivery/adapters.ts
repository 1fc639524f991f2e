/**
 * Delivery adapters: one small interface, one adapter per destination, built from the
 * configuration (DESIGN 3.1). The router (`service.ts`) only knows destinations; which forge,
 * inbox or chat service stands behind them is decided here, so swapping GitHub for another forge
 * means another {@link Forge}, not another router.
 */
import type { Config } from "../../../config.ts";
import { type CommitFile, createGitHubForge, type Forge } from "./github.ts";
import { createImapDraftStore, type DraftStore } from "./imap.ts";
import {
  branchFor,
  chatText,
  chatUrlRefusal,
  commitMessage,
  type DeliveryItem,
  type Destination,
  draftMessage,
  draftMessageId,
  filePathFor,
  markdownFile,
  parseImapUrl,
  patchRefusal,
  pullRequestBody,
} from "./rules.ts";
import { applyAtBase, refusalOf } from "./patch.ts";
import { postChat } from "./chat.ts";

/** What earlier steps of the same delivery recorded (e.g. the report's commit for its chat post). */
export type StepResults = Record<string, unknown>;

export interface DeliveryAdapter {
  /** Delivers the artifact; returns what `delivery_metadata` records (never a secret). */
  deliver(item: DeliveryItem, earlier: StepResults): Promise<Record<string, unknown>>;
}

export type Adapters = Record<Destination, DeliveryAdapter>;

/** A refusal by policy or configuration (not worth retrying without a change). */
export class DeliveryRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeliveryRefused";
  }
}

/** The configured forge (GitHub: `GITHUB_TOKEN`, `GITHUB_REPO`, `GITHUB_API_URL`). */
export function forgeOf(config: Config, fetchFn: typeof fetch): Forge {
  return createGitHubForge({
    apiUrl: config.githubApiUrl,
    token: config.githubToken,
    repo: config.githubRepo,
    fetch: fetchFn,
    timeoutMs: config.httpTimeoutMs,
  });
}

export function createAdapters(
  config: Config,
  fetchFn: typeof fetch,
  forge: Forge = forgeOf(config, fetchFn),
): Adapters {
  return {
    pull_request: pullRequestAdapter(forge, config.protectedPaths),
    commit: commitAdapter(forge),
    email_draft: emailDraftAdapter(createImapDraftStore(config.sandboxImapUrl), config),
    chat: chatAdapter(
      config.chatWebhookUrl,
      config.chatWebhookAllowedHost,
      fetchFn,
      config.httpTimeoutMs,
    ),
  };
}

export function pullRequestAdapter(
  forge: Forge,
  protectedPaths: readonly string[],
): DeliveryAdapter {
  return {
    async deliver(item) {
      if (item.kind === "code_patch") return await deliverPatch(forge, item, protectedPaths);
      const base = await forge.base();
      const files = [{ path: filePathFor(item), content: markdownFile(item) }];
      return await pullRequestOf(forge, item, base, base.sha, files);
    },
  };
}

/**
 * A code patch: refused before any request when it is not a diff, touches a protected path or
 * needs a mode a commit of regular files cannot carry. Otherwise applied at its base commit (the
 * default branch's head when it has none) and committed there, so the pull request shows GitHub's
 * own view of any conflict with the branch today. One that does not apply is refused: nothing is
 * pushed.
 */
async function deliverPatch(forge: Forge, item: DeliveryItem, patterns: readonly string[]) {
  const refusal = patchRefusal(item.payload, patterns);
  if (refusal) throw new DeliveryRefused(`${refusal}; nothing was pushed`);
  const base = await forge.base();
  const applied = await applyAtBase(forge, item.payload, item.baseSha ?? base.sha);
  if ("refused" in applied) throw new DeliveryRefused(`${refusalOf(applied)}; nothing was pushed`);
  const metadata = await pullRequestOf(forge, item, base, applied.baseSha, applied.files);
  return { ...metadata, baseSha: applied.baseSha };
}

/** One commit of `files` on `parentSha` in the artifact's branch, and its pull request. */
async function pullRequestOf(
  forge: Forge,
  item: DeliveryItem,
  base: { branch: string },
  parentSha: string,
  files: CommitFile[],
) {
  const branch = branchFor(item);
  const commit = await forge.commit({
    branch,
    parentSha,
    files,
    message: commitMessage(item),
    newBranch: true,
  });
  const paths = files.map((f) => f.path);
  const pr = await forge.openPullRequest({
    head: branch,
    base: base.branch,
    title: item.title.replace(/\s+/g, " ").trim().slice(0, 250),
    body: pullRequestBody(item, paths, item.kind === "code_patch" ? parentSha : undefined),
  });
  return {
    url: pr.url,
    number: pr.number,
    branch,
    base: base.branch,
    commitSha: commit.sha,
    files: paths,
  };
}

export function commitAdapter(forge: Forge): DeliveryAdapter {
  return {
    async deliver(item) {
      const base = await forge.base();
      const path = filePathFor(item);
      const commit = await forge.commit({
        branch: base.branch,
        parentSha: base.sha,
        files: [{ path, content: markdownFile(item) }],
        message: commitMessage(item),
        newBranch: false,
      });
      return { sha: commit.sha, branch: base.branch, path, url: commit.url };
    },
  };
}

export function emailDraftAdapter(drafts: DraftStore, config: Config): DeliveryAdapter {
  return {
    async deliver(item) {
      const host = drafts.host() ?? "ai-workforce.invalid";
      const user = config.sandboxImapUrl ? parseImapUrl(config.sandboxImapUrl).user : "";
      const messageId = draftMessageId(item.artifactId, host);
      const raw = draftMessage(item, {
        from: user.includes("@") ? user : `${user || "ai-workforce"}@${host}`,
        messageId,
        date: item.reviewedAt ?? new Date(0),
      });
      const stored = await drafts.saveDraft(raw, messageId);
      return {
        mailbox: stored.mailbox,
        uid: stored.uid,
        uidValidity: stored.uidValidity,
        messageId: stored.messageId,
        sent: false,
      };
    },
  };
}

export function chatAdapter(
  url: string | undefined,
  allowedHost: string,
  fetchFn: typeof fetch,
  timeoutMs: number,
): DeliveryAdapter {
  return {
    async deliver(item, earlier) {
      if (!url) throw new DeliveryRefused("chat delivery is not configured: set CHAT_WEBHOOK_URL");
      const refusal = chatUrlRefusal(url, allowedHost);
      if (refusal) throw new DeliveryRefused(`${refusal}; nothing was sent`);
      const link = (earlier.commit as { url?: string | null } | undefined)?.url ?? undefined;
      const { host, status } = await postChat(fetchFn, url, chatText(item, link), timeoutMs);
      return { host, status };
    },
  };
}
