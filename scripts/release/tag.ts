/**
 * Step 1 of a release: the pushed tag is a strict `vMAJOR.MINOR.PATCH` and its commit is on main.
 *
 * `deno run -A scripts/release/tag.ts` with RELEASE_TAG (default GITHUB_REF_NAME), RELEASE_COMMIT
 * (default GITHUB_SHA), GITHUB_REPOSITORY, GITHUB_API_URL, optional GITHUB_TOKEN and RELEASE_BRANCH
 * (default main). Writes `tag` and `version` to GITHUB_OUTPUT; exit 1 with the reason otherwise.
 */
import {
  apiBase,
  errorDetail,
  fetchBounded,
  githubHeaders,
  optional,
  ReleaseError,
  repository,
  required,
  runMain,
  writeOutputs,
} from "./common.ts";

export interface ReleaseVersion {
  tag: string;
  major: number;
  minor: number;
  patch: number;
  /** `MAJOR.MINOR.PATCH` without the `v`. */
  version: string;
}

const RELEASE_TAG = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/** The version of a release tag, or null unless it is exactly `v<MAJOR>.<MINOR>.<PATCH>`. */
export function parseReleaseTag(tag: string): ReleaseVersion | null {
  const match = RELEASE_TAG.exec(tag);
  if (!match) return null;
  const [major, minor, patch] = match.slice(1).map(Number);
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  return { tag, major, minor, patch, version: `${major}.${minor}.${patch}` };
}

/**
 * Whether a compare of `branch...commit` says the commit is contained in the branch: `identical`
 * (the branch's head) or `behind` (an ancestor of it). `ahead` and `diverged` are not on it.
 */
export function containedInBranch(compareStatus: unknown): boolean {
  return compareStatus === "identical" || compareStatus === "behind";
}

/** Asks the forge whether `commit` is on `branch`; an unknown commit is not. */
export async function commitOnBranch(options: {
  api: string;
  repository: string;
  branch: string;
  commit: string;
  token?: string;
}): Promise<boolean> {
  const { api, repository, branch, commit, token } = options;
  const url = `${api}/repos/${repository}/compare/${encodeURIComponent(branch)}...${
    encodeURIComponent(commit)
  }`;
  const response = await fetchBounded(url, { headers: githubHeaders(token) });
  if (response.status === 404) {
    await response.body?.cancel();
    return false;
  }
  if (!response.ok) {
    throw new ReleaseError(
      `comparing ${branch}...${commit} failed: ${response.status} ${await errorDetail(response)}`,
    );
  }
  const body = await response.json();
  return containedInBranch(body?.status);
}

if (import.meta.main) {
  await runMain("tag", async () => {
    const tag = optional("RELEASE_TAG", optional("GITHUB_REF_NAME", ""));
    if (!tag) throw new ReleaseError("RELEASE_TAG (or GITHUB_REF_NAME) is not set");
    const version = parseReleaseTag(tag);
    if (!version) {
      throw new ReleaseError(
        `"${tag}" is not a release tag: expected v<MAJOR>.<MINOR>.<PATCH> (digits, no leading zeros, no suffix)`,
      );
    }
    const commit = optional("RELEASE_COMMIT", "") || required("GITHUB_SHA");
    const branch = optional("RELEASE_BRANCH", "main");
    const onBranch = await commitOnBranch({
      api: apiBase(),
      repository: repository(),
      branch,
      commit,
      token: optional("GITHUB_TOKEN", "") || undefined,
    });
    if (!onBranch) {
      throw new ReleaseError(`${tag} points at ${commit}, which is not on ${branch}`);
    }
    console.log(`tag: ${tag} (version ${version.version}) is on ${branch} at ${commit}`);
    await writeOutputs({ tag, version: version.version });
  });
}
