/**
 * Delivery adapters: one small interface, one adapter per destination, built from the
 * configuration (DESIGN 3.1). The router (`service.ts`) only knows destinations; which forge,
 * inbox or chat service stands behind them is decided here, so swapping GitHub for another forge
 * means another {@link Forge}, not another router.
 */
import type { Config } from "../../../config.ts";
import { createGitHubForge, type Forge } from "./github.ts";
import { createImapDraftStore, type DraftStore } from "./imap.ts";
import {
  branchFor,
  chatHostAllowed,
  chatText,
  commitMessage,
  type DeliveryItem,
  type Destination,
  draftMessage,
  draftMessageId,
  filePathFor,
  markdownFile,
  parseImapUrl,
  pullRequestBody,
} from "./rules.ts";
import {
  applyFilePatches,
  type FileChange,
  parseUnifiedDiff,
} from "../../../platform/unified-diff.ts";

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

export function createAdapters(config: Config, fetchFn: typeof fetch): Adapters {
  const forge = createGitHubForge({
    apiUrl: config.githubApiUrl,
    token: config.githubToken,
    repo: config.githubRepo,
    fetch: fetchFn,
    timeoutMs: config.httpTimeoutMs,
  });
  return {
    pull_request: pullRequestAdapter(forge),
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

/** The files a pull request commits: an applied unified diff, or the payload as one file. */
async function pullRequestFiles(
  forge: Forge,
  item: DeliveryItem,
  baseSha: string,
): Promise<{ files: FileChange[]; applied: boolean | null; note?: string }> {
  const path = filePathFor(item);
  if (item.kind !== "code_patch") {
    return { files: [{ path, content: markdownFile(item) }], applied: null };
  }
  const parsed = parseUnifiedDiff(item.payload);
  if (!parsed) {
    return { files: [{ path, content: ensureNewline(item.payload) }], applied: false };
  }
  const current = new Map<string, string | null>();
  for (const f of parsed) {
    if (f.oldPath !== null && !current.has(f.oldPath)) {
      current.set(f.oldPath, await forge.readFile(f.oldPath, baseSha));
    }
  }
  const outcome = applyFilePatches(parsed, current);
  if ("error" in outcome) {
    // Kept for a person to resolve rather than lost: the diff is committed as a patch file.
    return {
      files: [{ path, content: ensureNewline(item.payload) }],
      applied: false,
      note: `The diff did not apply (${outcome.error}); it is committed as \`${path}\`.`,
    };
  }
  return { files: outcome.changes, applied: true };
}

export function pullRequestAdapter(forge: Forge): DeliveryAdapter {
  return {
    async deliver(item) {
      const base = await forge.base();
      const { files, applied, note } = await pullRequestFiles(forge, item, base.sha);
      const branch = branchFor(item);
      const commit = await forge.commit({
        branch,
        parentSha: base.sha,
        files,
        message: commitMessage(item),
        newBranch: true,
      });
      const paths = files.map((f) => f.path);
      const pr = await forge.openPullRequest({
        head: branch,
        base: base.branch,
        title: item.title.replace(/\s+/g, " ").trim().slice(0, 250),
        body: pullRequestBody(item, paths, note),
      });
      return {
        url: pr.url,
        number: pr.number,
        branch,
        base: base.branch,
        commitSha: commit.sha,
        files: paths,
        ...(applied === null ? {} : { patchApplied: applied }),
      };
    },
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
      const host = new URL(url).hostname.toLowerCase();
      if (!chatHostAllowed(url, allowedHost)) {
        throw new DeliveryRefused(
          `chat host ${host} refused: only CHAT_WEBHOOK_ALLOWED_HOST (${allowedHost}) is allowed; nothing was sent`,
        );
      }
      const link = (earlier.commit as { url?: string | null } | undefined)?.url ?? undefined;
      let res: Response;
      try {
        res = await fetchFn(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text: chatText(item, link) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        // The message of a fetch error quotes the URL, whose path is the webhook's secret.
        const kind = err instanceof Error ? err.name : "error";
        throw new Error(`chat post to ${host} failed (${kind}: no answer or connection refused)`);
      }
      await res.body?.cancel();
      if (!res.ok) throw new Error(`chat post to ${host} answered ${res.status}`);
      return { host, status: res.status };
    },
  };
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
