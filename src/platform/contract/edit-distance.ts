/**
 * The edit distance of an approval with edits (spec 8), bounded in time: the exact Levenshtein
 * distance costs the product of the two lengths, seconds for two 200,000-character payloads, and
 * it runs on the event loop.
 *
 * The common start and end are dropped first (that changes nothing). What is left is measured
 * exactly while it is small enough ({@link EXACT_MAX_CELLS}); above that, the texts are compared
 * line by line and each changed block is measured exactly when small, or counted as
 * `max(removed, added)` characters when not. That sum is never below the true distance and equals
 * it for edits confined to lines; when even the line comparison would take long (thousands of
 * changed lines), each line is edited into the line at the same place in the other text, again a
 * sum never below the distance (and never above the longer text's length, the most any edit can
 * be). A text rewritten from end to end stays heavy, a small edit to a huge text light, and at
 * most a few tenths of a second of CPU are spent.
 *
 * The service measures approvals with it and the admin console's edit worker shows it, so the
 * ratio an operator sees is the one stored.
 */
import { diffLines } from "diff";
import { distance } from "fastest-levenshtein";

/** Cells (length × length) measured exactly per approval: tens of milliseconds of CPU. */
export const EXACT_MAX_CELLS = 200_000_000;
/** Changed lines past which the line comparison stops and the bound is the longer length. */
export const LINE_EDITS_MAX = 2_000;

export interface EditDistance {
  distance: number;
  /** False when the distance is the bound described above. */
  exact: boolean;
}

export function editDistance(original: string, edited: string): EditDistance {
  const [a, b] = withoutCommonEnds(original, edited);
  if (a.length * b.length <= EXACT_MAX_CELLS) return { distance: distance(a, b), exact: true };
  const changes = diffLines(a, b, { maxEditLength: LINE_EDITS_MAX });
  if (!changes) return { distance: lineByLine(a, b), exact: false };
  let total = 0;
  let budget = EXACT_MAX_CELLS;
  let removed = "";
  let added = "";
  const closeBlock = () => {
    const cells = removed.length * added.length;
    if (cells <= budget) {
      budget -= cells;
      total += distance(removed, added);
    } else {
      total += Math.max(removed.length, added.length);
    }
    removed = added = "";
  };
  for (const change of changes) {
    if (change.removed) removed += change.value;
    else if (change.added) added += change.value;
    else closeBlock();
  }
  closeBlock();
  return { distance: total, exact: false };
}

/**
 * The n-th line of one text edited into the n-th line of the other, the lines one has more added
 * or removed: a bound for texts whose lines changed almost everywhere.
 */
function lineByLine(a: string, b: string): number {
  const linesOf = (text: string) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const [linesA, linesB] = [linesOf(a), linesOf(b)];
  let total = 0;
  let budget = EXACT_MAX_CELLS;
  for (let i = 0; i < Math.max(linesA.length, linesB.length); i++) {
    const [x, y] = [linesA[i] ?? "", linesB[i] ?? ""];
    const cells = x.length * y.length;
    budget -= cells;
    total += budget >= 0 ? distance(x, y) : Math.max(x.length, y.length);
  }
  return Math.min(total, Math.max(a.length, b.length));
}

function withoutCommonEnds(a: string, b: string): [string, string] {
  let start = 0;
  const shorter = Math.min(a.length, b.length);
  while (start < shorter && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)
  ) end++;
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}
