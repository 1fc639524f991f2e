/**
 * The version of this build: one source for both programs' `--version`, the `version` of `/health`,
 * the `listening` log line and the build-info metric (`goals_build_info`, `runner_build_info`).
 *
 * A build stamps it: `scripts/bundle.ts` replaces the marker literal below, in the bundles it
 * writes, with the version it is given: the release's tag without its `v` (scripts/release/
 * build.ts), or `BUILD_VERSION` for `deno task bundle`, `deno task compile` and the Dockerfile.
 * Unstamped (running the sources, or a bundle built without a version) it is {@link DEV_VERSION}.
 */

/** The version of anything not built for a release. */
export const DEV_VERSION = "0.0.0-dev";

// The marker: scripts/bundle.ts's STAMP_MARKER. Typed `string`, so no check folds it away.
const STAMPED: string = "@@GOALS_BUILD_VERSION@@";

export const VERSION: string = STAMPED.startsWith("@@") ? DEV_VERSION : STAMPED;

/** A version a build may be stamped with: letters, digits, `.`, `+`, `-`, `_` (e.g. `1.4.0`). */
export function isStampableVersion(version: string): boolean {
  return /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/.test(version);
}
