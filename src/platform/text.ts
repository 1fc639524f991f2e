/**
 * The one text rule for strings that come from outside (docs/graphql.md, "Text"): text is
 * well-formed Unicode (no lone surrogates), holds no C0 control character other than tab, newline
 * and carriage return (nor DEL), and is at most {@link TEXT_MAX_CHARS} characters, counted in code
 * points. Features keep their own, shorter limits; this is the floor under all of them.
 *
 * Content that must be kept whatever it holds (a signed machine payload, a raw provider event) is
 * made storable instead of being refused ({@link storableJsonEscapes}):
 * PostgreSQL's text and jsonb cannot hold U+0000 or a lone surrogate.
 */
import { ARTIFACT_PAYLOAD_MAX } from "./contract/runs.ts";

/**
 * Longest string any caller may send, in characters: the longest artifact payload the runner may
 * send, so that any artifact that can arrive can be edited and approved.
 */
export const TEXT_MAX_CHARS = ARTIFACT_PAYLOAD_MAX;

// Tab (09), newline (0A) and carriage return (0D) are text; the rest of C0 and DEL are not.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Characters (code points) of `value`. */
export function charCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** Why `value` is not acceptable text, or null when it is. */
export function textProblem(value: string, maxChars = TEXT_MAX_CHARS): string | null {
  const control = CONTROL.exec(value);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return `contains a control character (U+${code})`;
  }
  if (!value.isWellFormed()) return "is not valid Unicode (a lone surrogate)";
  // Code points never outnumber UTF-16 units, so only long strings need counting.
  if (value.length > maxChars && charCount(value) > maxChars) {
    return `is longer than ${maxChars} characters`;
  }
  return null;
}

// A JSON escape of U+0000, of a surrogate pair (kept) or of a lone surrogate, preceded by a run of
// backslashes: an odd run means the escape is real, an even one that the backslashes are escaped.
const ESCAPE = /(\\+)u(0000|d[89ab][0-9a-f]{2}(?:\\ud[c-f][0-9a-f]{2})?|d[c-f][0-9a-f]{2})/gi;

/**
 * JSON text with the escapes jsonb and text columns refuse (`\u0000`, a lone surrogate) turned into
 * `\ufffd`; escaped surrogate pairs are kept. A linear pass over the text, whatever its nesting.
 */
export function storableJsonEscapes(text: string): string {
  if (!text.includes("\\u")) return text;
  return text.replace(ESCAPE, (match, slashes: string, code: string) => {
    if (slashes.length % 2 === 0 || code.length > 4) return match;
    return `${slashes}ufffd`;
  });
}

/**
 * `JSON.stringify(value)` as jsonb accepts it (see {@link storableJsonEscapes}); JSON.stringify
 * escapes lone surrogates and U+0000 itself. Used as the driver's json serializer, so every json
 * and jsonb parameter is storable whatever it holds.
 */
export function storableJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? text : storableJsonEscapes(text);
}
