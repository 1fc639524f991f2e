/**
 * What the edit form shows of an edit, computed off the page's main thread (edit-worker.ts): the
 * edit distance and ratio as the service measures them (spec 8, the same bounded function), the
 * changed lines with three lines of context, and the refusal of a broken patch or email. Pure,
 * so the tests run it directly.
 */
import { structuredPatch } from "diff";
import { editDistance } from "../../../platform/contract/edit-distance.ts";
import { editRefusal } from "./edit-check.ts";
import { HEAVY_EDIT_RATIO } from "./rules.ts";

export interface EditWork {
  /** Answers carry it back, so the form keeps only the answer to its latest text. */
  seq: number;
  kind: string;
  original: string;
  edited: string;
}

export interface ChangeHunk {
  oldStart: number;
  newStart: number;
  /** Lines with their sign (" ", "-", "+"), as in a unified diff. */
  lines: string[];
}

export interface EditResult {
  seq: number;
  editDistance: number;
  editRatio: number;
  heavy: boolean;
  /** Null when the texts differ in too many places to list line by line in time. */
  hunks: ChangeHunk[] | null;
  refusal: string | null;
}

/** How long the line comparison may take before the form shows the measure alone. */
export const HUNKS_TIMEOUT_MS = 1_000;

export function editWork(work: EditWork): EditResult {
  const { original, edited } = work;
  const { distance } = editDistance(original, edited);
  const longer = Math.max(original.length, edited.length);
  const ratio = longer === 0 ? 0 : distance / longer;
  const patch = structuredPatch("original", "edited", original, edited, "", "", {
    context: 3,
    timeout: HUNKS_TIMEOUT_MS,
  });
  return {
    seq: work.seq,
    editDistance: distance,
    editRatio: ratio,
    heavy: ratio > HEAVY_EDIT_RATIO,
    hunks: patch?.hunks.map((h) => ({
      oldStart: h.oldStart,
      newStart: h.newStart,
      lines: h.lines,
    })) ?? null,
    refusal: editRefusal(work.kind, original, edited),
  };
}
