/** Hidden and bidirectional characters in content: found by kind, cut out, shown as markers. */
import assert from "node:assert/strict";
import {
  codePointName,
  hiddenSegments,
  hiddenTextOf,
  revealHidden,
} from "../../../src/features/admin/ui/hidden-text.ts";

Deno.test("hidden text: bidirectional controls and invisible characters are told apart", () => {
  assert.deepEqual(hiddenTextOf("plain text, accents é, Arabic مرحبا"), {
    bidi: false,
    invisible: false,
  });
  for (const c of ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2069"]) {
    assert.deepEqual(hiddenTextOf(`a${c}b`), { bidi: true, invisible: false }, codePointName(c));
  }
  for (const c of ["\u200E", "\u200F", "\u061C"]) {
    assert.equal(hiddenTextOf(c).bidi, true, codePointName(c));
  }
  for (const c of ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD", "\u{E0041}"]) {
    assert.deepEqual(hiddenTextOf(`a${c}b`), { bidi: false, invisible: true }, codePointName(c));
  }
  assert.deepEqual(hiddenTextOf("\u202E\u200B"), { bidi: true, invisible: true });
});

Deno.test("hidden text: the Trojan Source comment is cut into text and named characters", () => {
  const line = "/* } \u202E if (isAdmin) \u2066 begin admins only */";
  assert.deepEqual(hiddenSegments(line), [
    "/* } ",
    { hidden: "U+202E" },
    " if (isAdmin) ",
    { hidden: "U+2066" },
    " begin admins only */",
  ]);
  assert.deepEqual(hiddenSegments("no hidden text"), ["no hidden text"]);
  assert.deepEqual(hiddenSegments(""), [""]);
  assert.deepEqual(hiddenSegments("\u200B\u{E0041}"), [{ hidden: "U+200B" }, {
    hidden: "U+E0041",
  }]);
});

Deno.test("hidden text: revealed as visible markers, the rest untouched", () => {
  assert.equal(revealHidden("a\u202Eb\u200Bc"), "a⟪U+202E⟫b⟪U+200B⟫c");
  assert.equal(revealHidden("abc مرحبا"), "abc مرحبا");
  assert.equal(codePointName("\u061C"), "U+061C");
});
