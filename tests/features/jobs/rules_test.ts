/** The jobs admin surface's pure rules: searches of the failed jobs and their `like` pattern. */
import assert from "node:assert/strict";
import {
  bulkKindError,
  couldBeJobId,
  JOB_SEARCH_MAX,
  parseJobSearch,
} from "../../../src/features/jobs/rules.ts";
import { containsPattern } from "../../../src/platform/jobs/store.ts";

Deno.test("jobs rules: a search is trimmed, empty is none, and bounded", () => {
  assert.deepEqual(parseJobSearch(undefined), { search: null, problem: null });
  assert.deepEqual(parseJobSearch("   "), { search: null, problem: null });
  assert.deepEqual(parseJobSearch("  SMTP refused "), { search: "SMTP refused", problem: null });
  assert.equal(parseJobSearch("é".repeat(JOB_SEARCH_MAX)).search, "é".repeat(JOB_SEARCH_MAX));
  assert.deepEqual(parseJobSearch("x".repeat(JOB_SEARCH_MAX + 1)), {
    search: null,
    problem: 'Argument "search" is longer than 200 characters',
  });
  assert.deepEqual(parseJobSearch("a\u0000b"), {
    search: null,
    problem: 'Argument "search" contains a control character (U+0000)',
  });
});

Deno.test("jobs rules: like characters in a search stand for themselves", () => {
  assert.equal(containsPattern("timeout"), "%timeout%");
  assert.equal(containsPattern("100%_done\\x"), "%100\\%\\_done\\\\x%");
});

Deno.test("jobs rules: ids and kinds", () => {
  assert.equal(couldBeJobId("deadjob000000000000001"), true);
  assert.equal(couldBeJobId("x"), false);
  assert.equal(couldBeJobId("../../etc/passwd-xxxxxxxx"), false);
  assert.equal(bulkKindError(undefined, []), null);
  assert.equal(bulkKindError("sync", ["sync"], "retrying"), null);
  assert.equal(
    bulkKindError("sink", [], "retrying")?.message,
    'There is no job kind named "sink": no handler has that name and no job waiting for a retry ' +
      "has it.",
  );
});
