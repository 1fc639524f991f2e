import assert from "node:assert/strict";
import {
  charCount,
  storableJson,
  storableJsonText,
  storableText,
  TEXT_MAX_CHARS,
  textProblem,
} from "../../src/platform/text.ts";
import { nestingDepth } from "../../src/graphql/nesting-limit.ts";
import { variablesTextProblem } from "../../src/graphql/text-rule.ts";

Deno.test("text rule: control characters, lone surrogates and length in code points", () => {
  assert.equal(textProblem("plain text, tabs\tand\r\nnewlines 😀"), null);
  assert.match(textProblem("a\u0000b")!, /U\+0000/);
  assert.match(textProblem("\u001b[0m")!, /U\+001B/);
  assert.match(textProblem("del\u007f")!, /U\+007F/);
  assert.match(textProblem("\ud800")!, /lone surrogate/);
  assert.match(textProblem("\udc00x")!, /lone surrogate/);
  assert.equal(textProblem("😀".repeat(TEXT_MAX_CHARS)), null, "emoji count once each");
  assert.match(textProblem("x".repeat(TEXT_MAX_CHARS + 1))!, /longer than/);
  assert.equal(charCount("a😀b"), 3);
});

Deno.test("text rule: storable text and JSON replace what PostgreSQL refuses with U+FFFD", () => {
  assert.equal(storableText("a\u0000b\ud800"), "a\ufffdb\ufffd");
  assert.deepEqual(storableJson({ "k\u0000": ["\u0000", 1, null, { x: "\udfff" }] }), {
    "k\ufffd": ["\ufffd", 1, null, { x: "\ufffd" }],
  });
  const text = storableJsonText({
    "id\u0000": "a\u0000b",
    pair: "😀",
    lone: "\ud83d",
    kept: "\\u0000",
  });
  assert.ok(!/(^|[^\\])(\\\\)*\\u0000/.test(text), text);
  const back = JSON.parse(text);
  assert.deepEqual(back, { "id\ufffd": "a\ufffdb", pair: "😀", lone: "\ufffd", kept: "\\u0000" });
  assert.equal(storableJsonText(undefined), undefined);
  assert.equal(storableJsonText([1, "x"]), '[1,"x"]');
});

Deno.test("nesting limit: brackets are counted outside strings and comments, without recursion", () => {
  assert.equal(nestingDepth("{ me { id } }"), 2);
  assert.equal(nestingDepth('{ a(x: "[[[[") }'), 2);
  assert.equal(nestingDepth('{ a(x: """ {{{ \\""" [[[ """) }'), 2);
  assert.equal(nestingDepth("# {{{{\n{ a }"), 1);
  assert.equal(nestingDepth(`{ a(x: ${"[".repeat(100_000)}${"]".repeat(100_000)}) }`), 100_002);
});

Deno.test("text rule: variables nested far deeper than the stack are walked without recursion", () => {
  let deep: unknown = "bad\u0000";
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const problem = variablesTextProblem({ v: deep })!;
  assert.match(problem, /^Variable "\$v\.a\.a.*" contains a control character/);
  assert.ok(problem.length < 400, "the path in the message is cut short");
  assert.equal(variablesTextProblem({ v: [["fine"]], n: 5, b: null }), null);
});
