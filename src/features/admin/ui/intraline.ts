/**
 * Changed characters inside changed lines, as git's diff-highlight marks them: where a run of
 * removed lines is followed by as many added lines, each pair is compared and the part between
 * their common start and common end is marked. A pair with nothing in common is left unmarked
 * (the whole line changed). Pure: one pass over the lines of a unified diff.
 */

/** `[start, end)` of the changed part of a line's text (after its sign), or null. */
export type Span = [number, number] | null;

/**
 * The changed span of each line of a diff: `kinds` says which lines are removed (`del`) and
 * added (`add`), `texts` holds each line's text without its sign.
 */
export function changedSpans(kinds: readonly string[], texts: readonly string[]): Span[] {
  const spans: Span[] = kinds.map(() => null);
  let i = 0;
  while (i < kinds.length) {
    if (kinds[i] !== "del") {
      i++;
      continue;
    }
    let removedEnd = i;
    while (kinds[removedEnd] === "del") removedEnd++;
    let addedEnd = removedEnd;
    while (kinds[addedEnd] === "add") addedEnd++;
    const count = removedEnd - i;
    if (addedEnd - removedEnd === count) {
      for (let k = 0; k < count; k++) {
        [spans[i + k], spans[removedEnd + k]] = pairSpans(texts[i + k], texts[removedEnd + k]);
      }
    }
    i = addedEnd;
  }
  return spans;
}

function pairSpans(a: string, b: string): [Span, Span] {
  const shorter = Math.min(a.length, b.length);
  let start = 0;
  while (start < shorter && a[start] === b[start]) start++;
  let end = 0;
  while (end < shorter - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  if (start === 0 && end === 0) return [null, null];
  return [[start, a.length - end], [start, b.length - end]];
}
