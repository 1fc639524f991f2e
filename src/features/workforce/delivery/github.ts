/**
 * The GitHub forge: the few REST endpoints delivery needs (repository, commits, git refs, commits
 * and trees, contents, pulls), each call with a timeout. Configured by `GITHUB_TOKEN`, `GITHUB_REPO`
 * and `GITHUB_API_URL`. Another forge implements {@link Forge} and is chosen in `adapters.ts`.
 */
import type { FileChange } from "../../../platform/unified-diff.ts";

/** A regular file's git mode. */
export type FileMode = "100644" | "100755";

/** A file of a commit; `mode` defaults to `100644`. */
export interface CommitFile extends FileChange {
  mode?: FileMode;
}

/** What the pull-request and commit adapters and the patch check need from a code forge. */
export interface Forge {
  /** Whether it has what a call needs (else every call fails saying what to set). */
  configured(): boolean;
  /** The default branch and its head commit. */
  base(): Promise<{ branch: string; sha: string }>;
  /** The commit `ref` (a sha, short or full, or a branch) names; null when there is none. */
  commitAt(ref: string): Promise<{ sha: string; treeSha: string } | null>;
  /** The git mode of every file of a tree, subfolders included (`100644`, `100755`, `120000`). */
  fileModes(treeSha: string): Promise<Map<string, string>>;
  /** A file's text at `ref`, or null when it does not exist. */
  readFile(path: string, ref: string): Promise<string | null>;
  /**
   * Commits `files` on top of `parentSha` and points `branch` at the commit: creates the branch
   * (`newBranch`, moved if it exists from an earlier attempt) or fast-forwards it.
   */
  commit(input: {
    branch: string;
    parentSha: string;
    files: CommitFile[];
    message: string;
    newBranch: boolean;
  }): Promise<{ sha: string; url: string | null }>;
  /** Opens a pull request from `head` into `base` (or finds the open one from `head`). */
  openPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<
    { url: string; number: number }
  >;
}

export class ForgeError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "ForgeError";
  }
}

export interface GitHubSettings {
  apiUrl: string;
  token?: string;
  repo?: string;
  fetch: typeof fetch;
  /** Bound on one API call. */
  timeoutMs: number;
}

interface GitRef {
  object: { sha: string };
}

export function createGitHubForge(settings: GitHubSettings): Forge {
  function configured(): { token: string; repo: string } {
    if (!settings.token || !settings.repo) {
      throw new ForgeError("GitHub delivery is not configured: set GITHUB_TOKEN and GITHUB_REPO");
    }
    return { token: settings.token, repo: settings.repo };
  }

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    okStatuses: number[] = [],
  ): Promise<{ status: number; data: T }> {
    const { token, repo } = configured();
    const base = settings.apiUrl.replace(/\/+$/, "");
    const url = `${base}/repos/${repo}${path}`;
    const what = `GitHub ${method} ${path || "(the repository)"}`;
    let res: Response;
    try {
      res = await settings.fetch(url, {
        method,
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${token}`,
          "x-github-api-version": "2022-11-28",
          "user-agent": "goal-tracker-ai-workforce",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (err) {
      throw new ForgeError(
        `${what}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok && !okStatuses.includes(res.status)) {
      const message = (data as { message?: unknown } | null)?.message;
      throw new ForgeError(
        `${what} answered ${res.status}${
          typeof message === "string" ? `: ${message.slice(0, 200)}` : ""
        }`,
        res.status,
      );
    }
    return { status: res.status, data: data as T };
  }

  const refPath = (branch: string) =>
    `/git/refs/heads/${branch.split("/").map(encodeURIComponent).join("/")}`;

  return {
    configured: () => Boolean(settings.token && settings.repo),

    async base() {
      const { data: repo } = await call<{ default_branch: string }>("GET", "");
      const branch = repo.default_branch;
      const { data: ref } = await call<GitRef>(
        "GET",
        `/git/ref/heads/${branch.split("/").map(encodeURIComponent).join("/")}`,
      );
      return { branch, sha: ref.object.sha };
    },

    async commitAt(ref) {
      const { status, data } = await call<{ sha: string; commit: { tree: { sha: string } } }>(
        "GET",
        `/commits/${encodeURIComponent(ref)}`,
        undefined,
        [404, 422],
      );
      if (status !== 200) return null;
      return { sha: data.sha, treeSha: data.commit.tree.sha };
    },

    async fileModes(treeSha) {
      const { data } = await call<
        { tree: { path: string; mode: string; type: string }[]; truncated?: boolean }
      >("GET", `/git/trees/${encodeURIComponent(treeSha)}?recursive=1`);
      if (data.truncated) {
        throw new ForgeError(
          `GitHub listed the tree ${treeSha.slice(0, 7)} only in part (too many files)`,
        );
      }
      return new Map(data.tree.filter((e) => e.type !== "tree").map((e) => [e.path, e.mode]));
    },

    async readFile(path, ref) {
      const { status, data } = await call<{ content?: string; encoding?: string; type?: string }>(
        "GET",
        `/contents/${path.split("/").map(encodeURIComponent).join("/")}?ref=${
          encodeURIComponent(ref)
        }`,
        undefined,
        [404],
      );
      if (status === 404) return null;
      if (data.type !== "file" || data.encoding !== "base64" || data.content === undefined) {
        throw new ForgeError(`GitHub contents of ${path} is not a file`);
      }
      const binary = atob(data.content.replace(/\s+/g, ""));
      return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    },

    async commit({ branch, parentSha, files, message, newBranch }) {
      const { data: parent } = await call<{ tree: { sha: string } }>(
        "GET",
        `/git/commits/${parentSha}`,
      );
      const { data: tree } = await call<{ sha: string }>("POST", "/git/trees", {
        base_tree: parent.tree.sha,
        tree: files.map((f) =>
          f.content === null
            ? { path: f.path, mode: f.mode ?? "100644", type: "blob", sha: null }
            : { path: f.path, mode: f.mode ?? "100644", type: "blob", content: f.content }
        ),
      });
      const { data: commit } = await call<{ sha: string; html_url?: string }>(
        "POST",
        "/git/commits",
        { message, tree: tree.sha, parents: [parentSha] },
      );
      if (newBranch) {
        const created = await call("POST", "/git/refs", {
          ref: `refs/heads/${branch}`,
          sha: commit.sha,
        }, [422]);
        // 422: the branch exists from an earlier attempt of this delivery; move it.
        if (created.status === 422) {
          await call("PATCH", refPath(branch), { sha: commit.sha, force: true });
        }
      } else {
        await call("PATCH", refPath(branch), { sha: commit.sha, force: false });
      }
      return { sha: commit.sha, url: commit.html_url ?? null };
    },

    async openPullRequest({ head, base, title, body }) {
      const opened = await call<{ html_url: string; number: number }>(
        "POST",
        "/pulls",
        { title, head, base, body, maintainer_can_modify: true },
        [422],
      );
      if (opened.status !== 422) {
        return { url: opened.data.html_url, number: opened.data.number };
      }
      // 422: a pull request from this branch is already open (an earlier attempt); reuse it.
      const owner = configured().repo.split("/")[0];
      const { data: open } = await call<{ html_url: string; number: number }[]>(
        "GET",
        `/pulls?state=open&head=${encodeURIComponent(`${owner}:${head}`)}`,
      );
      if (!open.length) throw new ForgeError("GitHub refused the pull request (422)", 422);
      return { url: open[0].html_url, number: open[0].number };
    },
  };
}
