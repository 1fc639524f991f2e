/**
 * The one text rule for strings that come from outside (docs/graphql.md, "Text"): text is
 * well-formed Unicode (no lone surrogates), holds no C0 control character other than tab, newline
 * and carriage return (nor DEL), and is at most {@link TEXT_MAX_CHARS} characters, counted in code
 * points. Features keep their own, shorter limits; this is the floor under all of them.
 *
 * Content that must be kept whatever it holds (a signed machine payload, a raw provider event) is
 * made storable with {@link storableText} instead of being refused: PostgreSQL's text and jsonb
 * cannot hold U+0000 or a lone surrogate.
 */

/** Longest string any caller may send, in characters. */
export const TEXT_MAX_CHARS = 100_000;

// Tab (09), newline (0A) and carriage return (0D) are text; the rest of C0 and DEL are not.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// deno-lint-ignore no-control-regex
const UNSTORABLE = /\u0000/g;

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

/** `value` with what PostgreSQL cannot store (U+0000, lone surrogates) replaced by U+FFFD. */
export function storableText(value: string): string {
  return value.toWellFormed().replace(UNSTORABLE, "\uFFFD");
}

/** A JSON value with every string and key made {@link storableText}. */
export function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value && typeof value === "object" && value.constructor === Object) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [storableText(k), storableJson(v)]),
    );
  }
  return value;
}

// A JSON escape of U+0000 or of a lone surrogate (JSON.stringify escapes lone surrogates and
// leaves pairs as they are), preceded by any run of backslashes: an odd run means the escape is
// real, an even one that the backslashes are themselves escaped.
const UNSTORABLE_ESCAPE = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/g;

/**
 * `JSON.stringify(value)` as jsonb accepts it: the escapes jsonb refuses (`\u0000`, a lone
 * surrogate) become `\ufffd`. Used as the driver's json serializer, so every json and jsonb
 * parameter is storable whatever it holds.
 */
export function storableJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined || !text.includes("\\u")) return text;
  return text.replace(
    UNSTORABLE_ESCAPE,
    (match, slashes: string) => slashes.length % 2 ? `${slashes}ufffd` : match,
  );
}
