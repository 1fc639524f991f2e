import assert from "node:assert/strict";
import {
  charCount,
  storableJsonEscapes,
  storableJsonText,
  TEXT_MAX_CHARS,
  textProblem,
} from "../../src/platform/text.ts";
import { nestingDepth } from "../../src/platform/nesting.ts";
import { parseJson, parseStorableJson } from "../../src/platform/contract/body.ts";
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

Deno.test("text rule: storable JSON turns the escapes PostgreSQL refuses into U+FFFD", () => {
  const text = storableJsonText({
    "id\u0000": "a\u0000b",
    pair: "😀",
    lone: "\ud83d",
    low: "x\udc00",
    kept: "\\u0000",
  });
  const back = JSON.parse(text);
  assert.deepEqual(back, {
    "id\ufffd": "a\ufffdb",
    pair: "😀",
    lone: "\ufffd",
    low: "x\ufffd",
    kept: "\\u0000",
  });
  assert.equal(storableJsonText(undefined), undefined);
  assert.equal(storableJsonText([1, "x"]), '[1,"x"]');
  // Incoming text: escaped pairs (any case) are kept, lone halves and NULs replaced.
  assert.equal(
    storableJsonEscapes('["\\uD83D\\uDE00","\\ud83d","\\u0000","\\\\u0000","\\\\\\u0000"]'),
    '["\\uD83D\\uDE00","\\ufffd","\\ufffd","\\\\u0000","\\\\\\ufffd"]',
  );
});

Deno.test("json bodies: not UTF-8, not JSON and nested too deep are refused with a reason", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert.deepEqual(parseJson(bytes('{"a":[1]}')), { ok: true, value: { a: [1] } });
  assert.deepEqual(parseJson(new Uint8Array([0x22, 0xff, 0x22])), {
    ok: false,
    reason: "the body is not UTF-8",
  });
  assert.deepEqual(parseJson(bytes("{")), { ok: false, reason: "the body is not JSON" });
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  assert.match((parseJson(bytes(deep)) as { reason: string }).reason, /deeper than 100/);
  assert.deepEqual(parseStorableJson(bytes('{"k\\u0000":"\\ud800"}')), {
    ok: true,
    value: { "k\ufffd": "\ufffd" },
  });
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
