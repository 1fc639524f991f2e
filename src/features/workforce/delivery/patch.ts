/**
 * A code patch applied at its base commit through the forge: the files read at that commit, the
 * diff applied, each file with the mode it keeps. Delivery commits the result; the patch check
 * (before review) only records whether there is one. Nothing here writes to the forge.
 */
import { applyFilePatches } from "../../../platform/unified-diff.ts";
import type { CommitFile, Forge } from "./github.ts";
import { baseModeProblem, commitModeOf, patchDiff } from "./rules.ts";

export type AppliedPatch =
  /** The commit the files were read at (the full sha) and the files to commit on top of it. */
  | { baseSha: string; files: CommitFile[] }
  /** Why it cannot be applied; `baseSha`: the commit it does not apply at, once read. */
  | { refused: string; baseSha: string | null };

/** One line for a person: why `applied` was refused, at which commit. */
export function refusalOf(applied: { refused: string; baseSha: string | null }): string {
  return applied.baseSha === null
    ? applied.refused
    : `the patch does not apply at ${applied.baseSha.slice(0, 7)}: ${applied.refused}`;
}

/** Applies `payload` at `ref` (a commit or the default branch's head). Forge errors are thrown. */
export async function applyAtBase(
  forge: Forge,
  payload: string,
  ref: string,
): Promise<AppliedPatch> {
  const diff = patchDiff(payload);
  if ("refused" in diff) return { refused: diff.refused, baseSha: null };
  const parsed = diff.files;
  const base = await forge.commitAt(ref);
  if (!base) return { refused: `the base commit ${ref} is not in the repository`, baseSha: null };
  const modes = await forge.fileModes(base.treeSha);
  const modeProblem = baseModeProblem(parsed, modes);
  if (modeProblem) return { refused: modeProblem, baseSha: base.sha };
  const current = new Map<string, string | null>();
  for (const f of parsed) {
    for (const path of [f.oldPath, f.newPath]) {
      if (path === null || current.has(path)) continue;
      current.set(path, modes.has(path) ? await forge.readFile(path, base.sha) : null);
    }
  }
  const outcome = applyFilePatches(parsed, current);
  if ("error" in outcome) {
    return { refused: outcome.error, baseSha: base.sha };
  }
  return {
    baseSha: base.sha,
    files: outcome.changes.map((change) => ({
      ...change,
      mode: commitModeOf(change.path, parsed, modes),
    })),
  };
}
