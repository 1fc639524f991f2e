import assert from "node:assert/strict";
import {
  moodError,
  moodLogInput,
  moodRange,
  normalizeTags,
} from "../../../src/features/mood/rules.ts";

Deno.test("mood rules: mood is an integer 1 to 5; tags are trimmed, lower-cased and deduplicated", () => {
  assert.equal(moodError(3), null);
  assert.ok(moodError(0) && moodError(2.5));
  assert.deepEqual(normalizeTags([" Work ", "work", "Family time"]), {
    tags: ["work", "family time"],
  });
  assert.ok("error" in normalizeTags(["a;b"]));
});

Deno.test("rules: moodLogInput checks mood, note, tags and when it was logged", () => {
  const now = new Date("2026-03-04T12:00:00Z");
  assert.deepEqual(moodLogInput({ mood: 4, note: " ok ", tags: ["Work", "work"] }, now), {
    mood: 4,
    note: "ok",
    tags: ["work"],
    loggedAt: now,
    errors: [],
  });
  const errors = (input: Parameters<typeof moodLogInput>[0]) =>
    moodLogInput(input, now).errors.map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(moodLogInput({ mood: 6 }, now).errors, [
    { code: "invalid", message: "mood must be an integer from 1 to 5", field: "mood" },
  ]);
  assert.deepEqual(errors({ mood: 3, note: "x".repeat(501) }), [
    "note: note must be at most 500 characters",
  ]);
  assert.deepEqual(errors({ mood: 3, tags: ["a/b"] }), [
    "tags: each tag must be 1 to 30 letters, digits, spaces, '_' or '-'",
  ]);
  assert.deepEqual(errors({ mood: 3, loggedAt: new Date("2026-03-05T00:00:00Z") }), [
    "loggedAt: loggedAt must not be in the future",
  ]);
});

Deno.test("rules: moodRange defaults to the last 30 days and refuses wide or reversed ranges", () => {
  const now = new Date("2026-03-04T12:00:00Z");
  const range = moodRange({}, now);
  assert.ok(!("error" in range));
  assert.equal(range.to.getTime(), now.getTime() + 1);
  assert.equal(range.to.getTime() - range.from.getTime(), 30 * 86_400_000);
  assert.deepEqual(
    moodRange(
      { from: new Date("2026-03-04T00:00:00Z"), to: new Date("2026-03-01T00:00:00Z") },
      now,
    ),
    { error: "from must not be after to" },
  );
  assert.deepEqual(moodRange({ from: new Date("2024-01-01T00:00:00Z") }, now), {
    error: "the range may span at most 366 days",
  });
});
