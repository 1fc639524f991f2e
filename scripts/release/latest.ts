/**
 * Step 1b of a release: whether the tag is the highest release, which alone moves the image's
 * `:latest` and the GitHub release marked latest. A patch of an older line (v1.2.5 after v1.3.0)
 * is released as usual but moves neither, and is not deployed (release.yml).
 *
 * `deno run -A scripts/release/latest.ts` with RELEASE_TAG (default GITHUB_REF_NAME),
 * GITHUB_REPOSITORY, GITHUB_API_URL and optional GITHUB_TOKEN. Lists the repository's `v*` tags
 * (`GET /repos/{o}/{r}/git/matching-refs/tags/v`) and writes `latest=true` or `latest=false` to
 * GITHUB_OUTPUT; exit 1 with the reason when the tag is no release tag or the tags cannot be read.
 */
import {
  apiBase,
  errorDetail,
  fetchBounded,
  githubHeaders,
  optional,
  ReleaseError,
  repository,
  runMain,
  writeOutputs,
} from "./common.ts";
import { parseReleaseTag, type ReleaseVersion } from "./tag.ts";

/** Negative when `a` is the lower version, positive when the higher, 0 when equal. */
export function compareVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * Whether `tag` is the highest release among `tags` (the repository's tags, `tag` itself among
 * them or not): no release tag in the list has a higher version. Tags that are not strict
 * `vMAJOR.MINOR.PATCH` releases (`v2.0.0-rc.1`, `nightly`) are ignored. Throws when `tag` itself
 * is no release tag.
 */
export function isHighestRelease(tag: string, tags: readonly string[]): boolean {
  const version = parseReleaseTag(tag);
  if (!version) throw new ReleaseError(`"${tag}" is not a release tag`);
  return tags.every((other) => {
    const parsed = parseReleaseTag(other);
    return parsed === null || compareVersions(parsed, version) <= 0;
  });
}

/** The `next` address of a `Link` header, or null. */
export function nextPage(link: string | null): string | null {
  for (const part of (link ?? "").split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return null;
}

/** The names of the repository's tags that start with `v`, every page followed. */
export async function releaseTagNames(options: {
  api: string;
  repository: string;
  token?: string;
}): Promise<string[]> {
  const names: string[] = [];
  let url: string | null = `${options.api}/repos/${options.repository}/git/matching-refs/tags/v`;
  for (let page = 0; url && page < 100; page++) {
    const response = await fetchBounded(url, { headers: githubHeaders(options.token) });
    if (!response.ok) {
      throw new ReleaseError(
        `listing the tags failed: ${response.status} ${await errorDetail(response)}`,
      );
    }
    const refs = await response.json() as { ref?: unknown }[];
    if (!Array.isArray(refs)) throw new ReleaseError("listing the tags: the answer is no list");
    for (const { ref } of refs) {
      if (typeof ref === "string" && ref.startsWith("refs/tags/")) {
        names.push(ref.slice("refs/tags/".length));
      }
    }
    url = nextPage(response.headers.get("link"));
  }
  return names;
}

if (import.meta.main) {
  await runMain("latest", async () => {
    const tag = optional("RELEASE_TAG", optional("GITHUB_REF_NAME", ""));
    if (!tag) throw new ReleaseError("RELEASE_TAG (or GITHUB_REF_NAME) is not set");
    if (!parseReleaseTag(tag)) throw new ReleaseError(`"${tag}" is not a release tag`);
    const tags = await releaseTagNames({
      api: apiBase(),
      repository: repository(),
      token: optional("GITHUB_TOKEN", "") || undefined,
    });
    const latest = isHighestRelease(tag, tags);
    const higher = tags.filter((other) => {
      const parsed = parseReleaseTag(other);
      return parsed !== null && compareVersions(parsed, parseReleaseTag(tag)!) > 0;
    });
    console.log(
      latest
        ? `latest: ${tag} is the highest release; :latest moves to it`
        : `latest: ${tag} is not the highest release (${higher.join(", ")} exist); :latest stays`,
    );
    await writeOutputs({ latest: String(latest) });
  });
}
