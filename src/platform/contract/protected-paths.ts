/**
 * Paths a `code_patch` may not touch: CI configuration and code ownership, which a pushed branch
 * could use to run code with the repository's secrets before anyone reviews it. The runner's edit
 * tools and the service's delivery both refuse them; `PROTECTED_PATHS` adds to the list.
 *
 * A pattern ending in `/` is a folder at the repository's root (everything under it); a pattern
 * without `/` is a file name at any depth; any other pattern is one path from the root. `*`
 * matches within one path segment. Matching ignores case.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  ".github/",
  ".gitlab/",
  ".gitlab-ci.yml",
  ".circleci/",
  ".travis.yml",
  ".buildkite/",
  ".drone.yml",
  ".woodpecker/",
  ".woodpecker.yml",
  ".ci/",
  "Jenkinsfile",
  "azure-pipelines.yml",
  "bitbucket-pipelines.yml",
  "CODEOWNERS",
  ".gitmodules",
];

function segmentPattern(segment: string): RegExp {
  const escaped = segment.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join("[^/]*")}$`, "i");
}

/** The first pattern `path` (repository-relative, `/`-separated) falls under, or null. */
export function protectedBy(path: string, patterns: readonly string[]): string | null {
  const parts = path.split("/");
  for (const pattern of patterns) {
    const folder = pattern.endsWith("/");
    const segments = pattern.replace(/\/+$/, "").split("/").map(segmentPattern);
    if (!folder && segments.length === 1) {
      if (segments[0].test(parts.at(-1)!)) return pattern;
      continue;
    }
    const within = folder ? parts.length > segments.length : parts.length === segments.length;
    if (within && segments.every((segment, i) => segment.test(parts[i]))) return pattern;
  }
  return null;
}

/** The default list with the configured additions (comma- or newline-separated). */
export function protectedPathPatterns(extra: string | undefined): string[] {
  const added = (extra ?? "").split(/[,\n]/).map((p) => p.trim().replace(/^\/+/, "")).filter(
    Boolean,
  );
  return [...new Set([...DEFAULT_PROTECTED_PATHS, ...added])];
}
