/**
 * Hidden and bidirectional characters in content ("Trojan Source"): found, and split out so the
 * console shows each as a visible marker instead of letting it reorder or hide text. Pure (no DOM).
 */

/** Bidirectional controls: embeddings, overrides, isolates and the implicit marks. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** Characters that take no space: zero-width ones, word joiner, invisible operators, BOM, soft
 * hyphen, combining grapheme joiner, Mongolian vowel separator, Hangul fillers, tag characters. */
const INVISIBLE =
  /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200D\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/u;
const ANY = new RegExp(`${BIDI.source}|${INVISIBLE.source}`, "gu");

export interface HiddenText {
  /** Whether bidirectional controls are present. */
  bidi: boolean;
  /** Whether invisible characters are present. */
  invisible: boolean;
}

/** Which kinds of hidden characters `text` holds. */
export function hiddenTextOf(text: string): HiddenText {
  return { bidi: BIDI.test(text), invisible: INVISIBLE.test(text) };
}

/** `U+202E` for the code point `char` starts with. */
export function codePointName(char: string): string {
  return "U+" + char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
}

/** The marker shown in place of a hidden character. */
export const marker = (char: string): string => `⟪${codePointName(char)}⟫`;

/** `text` cut into plain runs (strings) and hidden characters ({ hidden: "U+202E" }). */
export function hiddenSegments(text: string): (string | { hidden: string })[] {
  const out: (string | { hidden: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(ANY)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    out.push({ hidden: codePointName(match[0]) });
    last = match.index + match[0].length;
  }
  if (last < text.length || !out.length) out.push(text.slice(last));
  return out;
}

/** `text` with every hidden character replaced by its marker. */
export function revealHidden(text: string): string {
  return text.replace(ANY, marker);
}
