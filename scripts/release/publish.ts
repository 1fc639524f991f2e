/**
 * Step 4b of a release: the GitHub release of the tag, with the given files as assets. A rerun
 * reuses the release (`GET /repos/{o}/{r}/releases/tags/{tag}`) and uploads only the assets it
 * does not have yet, so it is safe to repeat.
 *
 * `deno run -A scripts/release/publish.ts <tag> <file>...` with RELEASE_TOKEN, GITHUB_REPOSITORY,
 * GITHUB_API_URL, optional RELEASE_COMMIT (the commit a new tag would be created at) and optional
 * RELEASE_LATEST (`true` or `false`, from `latest.ts`: whether a new release is marked latest;
 * unset leaves it to GitHub, which marks the newest one).
 */
import { basename } from "node:path";
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
} from "./common.ts";

const UPLOAD_TIMEOUT_MS = 10 * 60_000;

export interface Release {
  id: number;
  tag_name: string;
  html_url: string;
  upload_url: string;
  assets: { id: number; name: string; state?: string }[];
}

/** The upload address of `name` from a release's `upload_url` template (`...{?name,label}`). */
export function assetUploadUrl(template: string, name: string): string {
  const base = template.replace(/\{[^}]*\}$/, "");
  return `${base}?name=${encodeURIComponent(name)}`;
}

/** The file names the release does not have yet, in the given order. */
export function missingAssets(release: Pick<Release, "assets">, names: string[]): string[] {
  const present = new Set(release.assets.map((asset) => asset.name));
  return names.filter((name) => !present.has(name));
}

/**
 * The body of `POST /repos/{o}/{r}/releases` for a release tag; `latest` (when known) says whether
 * GitHub marks it the latest release: a patch of an older line must not take that from a newer one.
 */
export function newReleaseBody(
  tag: string,
  commit?: string,
  latest?: boolean,
): Record<string, unknown> {
  return {
    tag_name: tag,
    name: tag,
    ...(commit ? { target_commitish: commit } : {}),
    draft: false,
    prerelease: false,
    generate_release_notes: true,
    ...(latest === undefined ? {} : { make_latest: String(latest) }),
  };
}

/** RELEASE_LATEST: `true`, `false`, or undefined when unset. */
export function latestFlag(value: string | undefined): boolean | undefined {
  const flag = value?.trim();
  if (!flag) return undefined;
  if (flag === "true" || flag === "false") return flag === "true";
  throw new ReleaseError(`RELEASE_LATEST must be true or false, got "${flag}"`);
}

interface Forge {
  api: string;
  repository: string;
  token: string;
}

/** The release of `tag`, created when there is none. */
export async function findOrCreateRelease(
  forge: Forge,
  tag: string,
  commit?: string,
  latest?: boolean,
): Promise<{ release: Release; created: boolean }> {
  const headers = githubHeaders(forge.token);
  const base = `${forge.api}/repos/${forge.repository}/releases`;
  const existing = await fetchBounded(`${base}/tags/${encodeURIComponent(tag)}`, { headers });
  if (existing.ok) return { release: await existing.json(), created: false };
  if (existing.status !== 404) {
    throw new ReleaseError(
      `looking up the release of ${tag} failed: ${existing.status} ${await errorDetail(existing)}`,
    );
  }
  await existing.body?.cancel();
  const response = await fetchBounded(base, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(newReleaseBody(tag, commit, latest)),
  });
  if (response.status !== 201) {
    throw new ReleaseError(
      `creating the release of ${tag} failed: ${response.status} ${await errorDetail(response)}`,
    );
  }
  return { release: await response.json(), created: true };
}

/** Uploads one asset to the release. */
export async function uploadAsset(
  forge: Forge,
  release: Release,
  name: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<void> {
  const response = await fetchBounded(assetUploadUrl(release.upload_url, name), {
    method: "POST",
    headers: { ...githubHeaders(forge.token), "Content-Type": "application/octet-stream" },
    body: bytes,
  }, UPLOAD_TIMEOUT_MS);
  if (response.status !== 201) {
    throw new ReleaseError(
      `uploading ${name} failed: ${response.status} ${await errorDetail(response)}`,
    );
  }
  await response.body?.cancel();
}

/** Publishes the files (paths) as the release of `tag`; returns what was uploaded and skipped. */
export async function publishRelease(
  forge: Forge,
  tag: string,
  files: string[],
  commit?: string,
  latest?: boolean,
): Promise<{ release: Release; created: boolean; uploaded: string[]; skipped: string[] }> {
  const byName = new Map(files.map((path) => [basename(path), path]));
  if (byName.size !== files.length) throw new ReleaseError("two files have the same name");
  const { release, created } = await findOrCreateRelease(forge, tag, commit, latest);
  const names = [...byName.keys()];
  const uploaded = missingAssets(release, names);
  for (const name of uploaded) {
    await uploadAsset(forge, release, name, await Deno.readFile(byName.get(name)!));
  }
  const skipped = names.filter((name) => !uploaded.includes(name));
  return { release, created, uploaded, skipped };
}

if (import.meta.main) {
  await runMain("publish", async () => {
    const [tag, ...files] = Deno.args;
    if (!tag || files.length === 0) throw new ReleaseError("usage: publish.ts <tag> <file>...");
    const forge = { api: apiBase(), repository: repository(), token: required("RELEASE_TOKEN") };
    const result = await publishRelease(
      forge,
      tag,
      files,
      optional("RELEASE_COMMIT", "") || undefined,
      latestFlag(Deno.env.get("RELEASE_LATEST")),
    );
    console.log(
      `publish: ${result.created ? "created" : "reused"} ${result.release.html_url}; ` +
        `uploaded ${result.uploaded.length}, already present ${result.skipped.length}`,
    );
  });
}
