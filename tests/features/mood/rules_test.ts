import assert from "node:assert/strict";
import { moodError, normalizeTags } from "../../../src/features/mood/rules.ts";

Deno.test("mood rules: mood is an integer 1 to 5; tags are trimmed, lower-cased and deduplicated", () => {
  assert.equal(moodError(3), null);
  assert.ok(moodError(0) && moodError(2.5));
  assert.deepEqual(normalizeTags([" Work ", "work", "Family time"]), {
    tags: ["work", "family time"],
  });
  assert.ok("error" in normalizeTags(["a;b"]));
});
