/**
 * The earlier application revision whose code must still run on a database HEAD migrated: the
 * latest release tag (`vX.Y.Z`) before HEAD, or while there are no tags the revision just before
 * the newest migration (the code that does not know it). Found synchronously, so that a test can
 * be registered as ignored, with the reason in its name, where the git history is missing.
 */

const ROOT = new URL("../../", import.meta.url).pathname;

export type PreviousRevision = { rev: string; why: string } | { skip: string };

function git(args: string[]): string | undefined {
  try {
    const out = new Deno.Command("git", { args, cwd: ROOT, stdout: "piped", stderr: "null" })
      .outputSync();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined; // git is not installed
  }
}

export function previousRevision(): PreviousRevision {
  const shallow = git(["rev-parse", "--is-shallow-repository"]);
  if (shallow === undefined) return { skip: "no git history (not a clone, or git is missing)" };
  if (shallow === "true") {
    return { skip: "shallow clone: earlier revisions are missing (clone with full history)" };
  }
  const tag = git([
    "describe",
    "--tags",
    "--abbrev=0",
    "--match",
    "v[0-9]*.[0-9]*.[0-9]*",
    "HEAD^",
  ]);
  if (tag) return { rev: git(["rev-parse", `${tag}^{commit}`])!, why: `release ${tag}` };
  const newest = git([
    "log",
    "-1",
    "--first-parent",
    "--format=%H",
    "HEAD",
    "--",
    "migrations/*.sql",
  ]);
  const before = newest ? git(["rev-parse", "--verify", "--quiet", `${newest}^1`]) : undefined;
  if (!before) return { skip: "no revision before the newest migration" };
  return { rev: before, why: `no release tag yet: the code before migration commit ${newest}` };
}

/** A file's text at a revision; undefined when the revision has no such file. */
export function revisionFile(rev: string, path: string): string | undefined {
  return git(["show", `${rev}:${path}`]);
}

/** Writes the revision's tree into `dir` (a fresh temporary folder). */
export async function extractRevision(rev: string, dir: string): Promise<void> {
  const archive = `${dir}.tar`;
  try {
    const out = await new Deno.Command("git", {
      args: ["archive", "--format=tar", "-o", archive, rev],
      cwd: ROOT,
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`git archive ${rev}: ${new TextDecoder().decode(out.stderr)}`);
    }
    const untar = await new Deno.Command("tar", { args: ["-xf", archive, "-C", dir] }).output();
    if (!untar.success) throw new Error(`tar -xf ${archive} failed`);
  } finally {
    await Deno.remove(archive).catch(() => {});
  }
}
