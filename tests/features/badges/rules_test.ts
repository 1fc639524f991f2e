import assert from "node:assert/strict";
import { badgesFor } from "../../../src/features/badges/rules.ts";

Deno.test("badges rules: daily streaks earn streak badges, weekly ones do not", () => {
  assert.deepEqual(badgesFor({ type: "habit_checked_in", streak: 30, period: "day" }), [
    "first_check_in",
    "streak_7",
    "streak_30",
  ]);
  assert.deepEqual(badgesFor({ type: "habit_checked_in", streak: 30, period: "week" }), [
    "first_check_in",
  ]);
});
