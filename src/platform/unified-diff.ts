/**
 * Unified diffs of repository files, in git's format: made from a before and an after of each
 * file (the runner's workspace), parsed, and applied to the files at a commit (delivery). One
 * module for both programs, so what the runner checks applies is what delivery applies.
 */
import { applyPatch, createTwoFilesPatch, parsePatch, type StructuredPatch } from "diff";

/** One file change of a commit: new content, or `null` to delete the file. */
export interface FileChange {
  path: string;
  content: string | null;
}

/** A repository-relative path that stays inside the repository. */
export function safeRepoPath(path: string): boolean {
  if (!path || path.length > 400 || path.startsWith("/") || path.includes("\\")) return false;
  return path.split("/").every((part) =>
    part !== "" && part !== "." && part !== ".." && part !== ".git" && !hasControl(part)
  );
}

function hasControl(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

function stripPrefix(name: string | undefined): string | null {
  if (!name || name === "/dev/null") return null;
  const clean = name.split("\t")[0].trim();
  return clean.startsWith("a/") || clean.startsWith("b/") ? clean.slice(2) : clean;
}

export interface ParsedFilePatch {
  /** Path before the change (null for a new file). */
  oldPath: string | null;
  /** Path after the change (null for a deletion). */
  newPath: string | null;
  patch: StructuredPatch;
}

/**
 * The file patches of a unified diff, or null when the payload is not one (no `---`/`+++`
 * header followed by a hunk, a parse error, or a path outside the repository). A git header
 * creating or deleting an empty file counts without a hunk.
 */
export function parseUnifiedDiff(payload: string): ParsedFilePatch[] | null {
  if (!/^--- .+\r?\n\+\+\+ .+\r?\n@@ /m.test(payload)) return null;
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(payload);
  } catch {
    return null;
  }
  const files = patches.filter((p) => p.hunks.length > 0 || p.isCreate || p.isDelete).map((
    patch,
  ) => ({
    oldPath: patch.isCreate ? null : stripPrefix(patch.oldFileName),
    newPath: patch.isDelete ? null : stripPrefix(patch.newFileName),
    patch,
  }));
  if (!files.length) return null;
  const paths = files.flatMap((f) => [f.oldPath, f.newPath]).filter((p) => p !== null);
  if (!paths.length || !paths.every(safeRepoPath)) return null;
  return files;
}

/** The paths a parsed diff touches (old and new names), each once, in order. */
export function touchedPaths(files: ParsedFilePatch[]): string[] {
  return [...new Set(files.flatMap((f) => [f.oldPath, f.newPath]).filter((p) => p !== null))];
}

/**
 * Applies parsed file patches to the current contents (`null` = the file does not exist).
 * Returns the changes, or the first reason a patch does not apply.
 */
export function applyFilePatches(
  files: ParsedFilePatch[],
  current: Map<string, string | null>,
): { changes: FileChange[] } | { error: string } {
  const changes: FileChange[] = [];
  for (const f of files) {
    const source = f.oldPath === null ? "" : current.get(f.oldPath) ?? null;
    if (source === null) return { error: `${f.oldPath} does not exist at the base commit` };
    if (f.oldPath === null && f.newPath !== null && (current.get(f.newPath) ?? null) !== null) {
      return { error: `${f.newPath} already exists at the base commit` };
    }
    const patched = applyPatch(source, f.patch);
    if (patched === false) {
      return { error: `the patch does not apply to ${f.oldPath ?? f.newPath}` };
    }
    if (f.newPath === null) {
      changes.push({ path: f.oldPath!, content: null });
      continue;
    }
    if (f.oldPath !== null && f.oldPath !== f.newPath) {
      changes.push({ path: f.oldPath, content: null });
    }
    changes.push({ path: f.newPath, content: patched });
  }
  return { changes };
}

/** One file's two sides: `null` where it does not exist. */
export interface FileVersions {
  path: string;
  before: string | null;
  after: string | null;
  /** The file's git mode (`100644`, `100755`); new files get `100644`. */
  mode?: string;
}

/** A git-style unified diff (`diff --git` headers, 3 lines of context) of the changed files. */
export function createUnifiedDiff(files: FileVersions[]): string {
  let out = "";
  for (const f of files) {
    if (f.before === f.after) continue;
    const mode = f.mode ?? "100644";
    const header = [`diff --git a/${f.path} b/${f.path}`];
    if (f.before === null) header.push(`new file mode ${mode}`);
    if (f.after === null) header.push(`deleted file mode ${mode}`);
    const body = createTwoFilesPatch(
      f.before === null ? "/dev/null" : `a/${f.path}`,
      f.after === null ? "/dev/null" : `b/${f.path}`,
      f.before ?? "",
      f.after ?? "",
      undefined,
      undefined,
      { context: 3 },
    ).replace(/^=+\n/, "");
    out += `${header.join("\n")}\n${body}`;
  }
  return out;
}
