/**
 * Fetching a repository at a pinned commit through GitHub's REST API: `commits/{ref}` names the
 * commit, `tarball/{sha}` (a redirect to a gzipped tar) brings its files, which are unpacked into
 * two folders (`base`, kept as it was, and `work`, which the tools change) under caps on file
 * count and size. Entries whose path would leave the folder are skipped.
 */
import { createTarDecoder } from "modern-tar";
import { dirname, join } from "node:path";
import { safeRepoPath } from "../../../src/platform/unified-diff.ts";

export interface FetchSettings {
  apiUrl: string;
  token?: string;
  fetch: typeof fetch;
  maxFiles: number;
  maxBytes: number;
}

/** Git modes of the files fetched: `100644`, `100755` or `120000` (a symbolic link). */
export type Modes = Map<string, string>;

export class RepoFetchError extends Error {
  override name = "RepoFetchError";
}

function headers(settings: FetchSettings): HeadersInit {
  return {
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "user-agent": "goal-tracker-agent-runner",
    ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}),
  };
}

async function get(settings: FetchSettings, path: string, signal: AbortSignal) {
  const res = await settings.fetch(`${settings.apiUrl}${path}`, {
    headers: headers(settings),
    signal,
  });
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    let message = "";
    try {
      message = String(JSON.parse(text).message ?? "");
    } catch {
      message = text.slice(0, 200);
    }
    throw new RepoFetchError(
      `GitHub GET ${path.split("?")[0]} answered ${res.status}${message ? `: ${message}` : ""}`,
    );
  }
  return res;
}

/** The commit `ref` (a branch, tag, `HEAD` or a commit) names now. */
export async function resolveCommit(
  settings: FetchSettings,
  repo: string,
  ref: string,
  signal: AbortSignal,
): Promise<string> {
  const res = await get(settings, `/repos/${repo}/commits/${encodeURIComponent(ref)}`, signal);
  const sha = (await res.json() as { sha?: unknown }).sha;
  if (typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) {
    throw new RepoFetchError(`GitHub named no commit for ${repo}@${ref}`);
  }
  return sha;
}

/** Unpacks the repository at `sha` into `baseDir` and `workDir`; the modes of what it wrote. */
export async function unpackCommit(
  settings: FetchSettings,
  repo: string,
  sha: string,
  dirs: { baseDir: string; workDir: string },
  signal: AbortSignal,
): Promise<{ modes: Modes; bytes: number; skipped: string[] }> {
  const res = await get(settings, `/repos/${repo}/tarball/${sha}`, signal);
  if (!res.body) throw new RepoFetchError("GitHub sent an empty tarball");
  const entries = res.body
    .pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(createTarDecoder());
  const modes: Modes = new Map();
  const skipped: string[] = [];
  let bytes = 0;
  for await (const entry of entries) {
    // The tarball's top folder is `owner-repo-sha/`.
    const path = entry.header.name.split("/").slice(1).join("/").replace(/\/$/, "");
    const type = entry.header.type ?? "file";
    if (!path || type === "directory" || (type !== "file" && type !== "symlink")) {
      await entry.body.cancel();
      continue;
    }
    if (!safeRepoPath(path)) {
      skipped.push(path);
      await entry.body.cancel();
      continue;
    }
    if (modes.size >= settings.maxFiles) {
      await entry.body.cancel();
      throw new RepoFetchError(
        `${repo} has more than ${settings.maxFiles} files (REPO_MAX_FILES)`,
      );
    }
    if (type === "symlink") {
      await entry.body.cancel();
      const target = entry.header.linkname ?? "";
      for (const dir of [dirs.baseDir, dirs.workDir]) {
        await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
        await Deno.symlink(target, join(dir, path));
      }
      modes.set(path, "120000");
      continue;
    }
    bytes += entry.header.size;
    if (bytes > settings.maxBytes) {
      await entry.body.cancel();
      throw new RepoFetchError(
        `${repo} holds more than ${Math.round(settings.maxBytes / 1024 / 1024)} MB (REPO_MAX_MB)`,
      );
    }
    const data = new Uint8Array(await new Response(entry.body).arrayBuffer());
    const mode = ((entry.header.mode ?? 0o644) & 0o111) ? "100755" : "100644";
    for (const dir of [dirs.baseDir, dirs.workDir]) {
      await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
      await Deno.writeFile(join(dir, path), data, { mode: mode === "100755" ? 0o755 : 0o644 });
    }
    modes.set(path, mode);
  }
  return { modes, bytes, skipped };
}
