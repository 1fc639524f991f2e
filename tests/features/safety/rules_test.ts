import assert from "node:assert/strict";
import {
  blockError,
  notOpenError,
  reportDetails,
  resolutionNote,
  selfReportError,
} from "../../../src/features/safety/rules.ts";
import { blockedRequestError } from "../../../src/features/partners/rules.ts";
import { lookupKey, prefixRange, searchPrefixError } from "../../../src/features/users/rules.ts";

Deno.test("search prefixes: username characters only, 2 to 30, no pattern syntax", () => {
  for (const ok of ["al", "Al_", "a.b-c", "x".repeat(30), "__"]) {
    assert.equal(searchPrefixError(ok), null);
  }
  for (const bad of ["", "a", "%", "a%", "a*", "a b", "x".repeat(31), "ål", "a\u0000", "a\\"]) {
    assert.ok(searchPrefixError(bad), bad);
  }
  assert.deepEqual(prefixRange("Al_"), { from: "al_", to: "al_~" });
  // Every username character sorts below the range's end.
  for (const c of "abcdefghijklmnopqrstuvwxyz0123456789_.-") assert.ok(`al${c}` < "al~");
});

Deno.test("lookups: a username that cannot exist is no key", () => {
  assert.equal(lookupKey("Alice"), "alice");
  for (const bad of ["al", "a%c", "_".repeat(31), "alice'--", ""]) {
    assert.equal(lookupKey(bad), null);
  }
});

Deno.test("blocks and reports: oneself, details, notes", () => {
  assert.equal(blockError("1", "2"), null);
  assert.equal(blockError("1", "1")?.code, "invalid");
  assert.equal(blockedRequestError(true).code, "blocked");
  assert.deepEqual(blockedRequestError(false), {
    code: "not_found",
    message: "no such user",
    field: "userId",
  });
  assert.deepEqual(reportDetails("spam", "  "), { details: null, errors: [] });
  assert.deepEqual(reportDetails("spam", " why "), { details: "why", errors: [] });
  assert.equal(reportDetails("other", null).errors[0].field, "details");
  assert.equal(reportDetails("other", "because").errors.length, 0);
  assert.equal(reportDetails("spam", "é".repeat(1000)).errors.length, 0);
  assert.equal(reportDetails("spam", "é".repeat(1001)).errors[0].code, "invalid");
  assert.equal(selfReportError("1", "1", "postId")?.message, "you cannot report your own post");
  assert.equal(selfReportError("1", "2", "userId"), null);
  assert.deepEqual(resolutionNote(" done "), { note: "done", errors: [] });
  assert.equal(resolutionNote("x".repeat(1001)).errors[0].field, "note");
  assert.equal(notOpenError("dismissed").code, "not_open");
});
