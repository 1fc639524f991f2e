/**
 * Step 4a of a release: `SHA256SUMS` for the release assets, in `sha256sum`'s format (so
 * `sha256sum --check SHA256SUMS` verifies a download).
 *
 * `deno run -A scripts/release/checksums.ts <dir>` writes `<dir>/SHA256SUMS` for every file in
 * `<dir>`.
 */
import { ReleaseError, runMain } from "./common.ts";

export const CHECKSUMS_FILE = "SHA256SUMS";

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `<hex>  <name>` lines sorted by name, one per file, newline-terminated. */
export function checksumsText(entries: { name: string; sha256: string }[]): string {
  return [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, sha256 }) => `${sha256}  ${name}\n`)
    .join("");
}

/** Writes `SHA256SUMS` into `dir` for its other files; returns the text written. */
export async function writeChecksums(dir: string): Promise<string> {
  const entries: { name: string; sha256: string }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || entry.name === CHECKSUMS_FILE) continue;
    entries.push({
      name: entry.name,
      sha256: await sha256Hex(await Deno.readFile(`${dir}/${entry.name}`)),
    });
  }
  if (entries.length === 0) throw new ReleaseError(`no files to checksum in ${dir}`);
  const text = checksumsText(entries);
  await Deno.writeTextFile(`${dir}/${CHECKSUMS_FILE}`, text);
  return text;
}

if (import.meta.main) {
  await runMain("checksums", async () => {
    const [dir] = Deno.args;
    if (!dir) throw new ReleaseError("usage: checksums.ts <dir>");
    console.log((await writeChecksums(dir)).trimEnd());
  });
}
