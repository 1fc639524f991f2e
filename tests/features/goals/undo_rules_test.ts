import assert from "node:assert/strict";
import {
  eventChangeErrors,
  goalEventPatch,
  type GoalShape,
  statusAfterValueChange,
  undoCheckInErrors,
} from "../../../src/features/goals/rules.ts";
import { unjustifiedBadges } from "../../../src/features/badges/rules.ts";
import { activitySource, creditedSources } from "../../../src/features/challenges/rules.ts";

const codes = (errors: { code: string; field: string | null }[]) =>
  errors.map((e) => `${e.code}:${e.field}`);

Deno.test("undo rules: a check-in is undone within the days checkInHabit accepts", () => {
  const habit = { kind: "habit" as const };
  const today = "2026-03-10";
  assert.deepEqual(undoCheckInErrors(habit, today, today), []);
  assert.deepEqual(undoCheckInErrors(habit, "2026-03-03", today), []);
  assert.deepEqual(codes(undoCheckInErrors(habit, "2026-03-02", today)), ["undo_expired:date"]);
  assert.deepEqual(codes(undoCheckInErrors(habit, "2026-03-11", today)), ["invalid:date"]);
  assert.deepEqual(codes(undoCheckInErrors(habit, "2026-3-1", today)), ["invalid:date"]);
  assert.deepEqual(codes(undoCheckInErrors({ kind: "target" }, today, today)), [
    "not_allowed:goalId",
  ]);
});

Deno.test("undo rules: events change within 366 days, not on archived goals", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  const day = (n: number) => new Date(now.getTime() - n * 86_400_000);
  assert.deepEqual(eventChangeErrors({ status: "active" }, day(366), now), []);
  assert.deepEqual(codes(eventChangeErrors({ status: "completed" }, day(367), now)), [
    "undo_expired:eventId",
  ]);
  assert.deepEqual(codes(eventChangeErrors({ status: "archived" }, day(1), now)), [
    "not_allowed:eventId",
  ]);
  assert.deepEqual(goalEventPatch({ value: -2, note: " n " }, now), {
    patch: { value: -2, note: "n" },
    errors: [],
  });
  assert.deepEqual(goalEventPatch({ note: "" }, now).patch, { note: null });
  assert.deepEqual(goalEventPatch({ note: null }, now).patch, { note: null });
  assert.deepEqual(codes(goalEventPatch({}, now).errors), ["invalid:null"]);
  assert.deepEqual(codes(goalEventPatch({ value: 0 }, now).errors), ["invalid:value"]);
  assert.deepEqual(codes(goalEventPatch({ value: null }, now).errors), ["invalid:value"]);
  assert.deepEqual(codes(goalEventPatch({ value: 2e9 }, now).errors), ["invalid:value"]);
  assert.deepEqual(codes(goalEventPatch({ note: "x".repeat(501) }, now).errors), ["invalid:note"]);
  assert.deepEqual(codes(goalEventPatch({ occurredAt: day(-1) }, now).errors), [
    "invalid:occurredAt",
  ]);
  assert.deepEqual(codes(goalEventPatch({ occurredAt: day(367) }, now).errors), [
    "invalid:occurredAt",
  ]);
  assert.deepEqual(codes(goalEventPatch({ occurredAt: null }, now).errors), [
    "invalid:occurredAt",
  ]);
});

Deno.test("undo rules: a value change completes or reopens a target as it crosses its value", () => {
  const target = (status: GoalShape["status"], startValue = 0, targetValue = 10): GoalShape => ({
    kind: "target",
    status,
    startValue,
    targetValue,
    cadence: null,
    timesPerWeek: null,
    unit: null,
    dueDate: null,
  } as GoalShape);
  assert.equal(statusAfterValueChange(target("active"), 4, 10), "complete");
  assert.equal(statusAfterValueChange(target("active"), 4, 9), null);
  assert.equal(statusAfterValueChange(target("completed"), 10, 9), "reopen");
  // Completed by hand below the value: deleting an event does not reopen it.
  assert.equal(statusAfterValueChange(target("completed"), 5, 4), null);
  assert.equal(statusAfterValueChange(target("completed"), 12, 11), null);
  assert.equal(statusAfterValueChange(target("archived"), 10, 0), null);
  // Downward targets: 80 kg to 70 kg.
  assert.equal(statusAfterValueChange(target("completed", 80, 70), 70, 71), "reopen");
  assert.equal(statusAfterValueChange(target("active", 80, 70), 72, 69), "complete");
  assert.equal(statusAfterValueChange({ ...target("active"), kind: "habit" }, 0, 20), null);
});

Deno.test("badge rules: only the facts given are judged", () => {
  assert.deepEqual(unjustifiedBadges({}), []);
  assert.deepEqual(unjustifiedBadges({ hasCheckIn: true, longestDayStreak: 29 }), [
    "streak_30",
    "streak_100",
  ]);
  assert.deepEqual(unjustifiedBadges({ hasCheckIn: false, longestDayStreak: 0 }), [
    "first_check_in",
    "streak_7",
    "streak_30",
    "streak_100",
  ]);
  assert.deepEqual(
    unjustifiedBadges({
      hasGoal: false,
      hasProgressEvent: false,
      hasCompletedGoal: false,
      hasMoodLog: false,
    }),
    ["first_goal", "first_progress", "goal_completed", "first_mood_log"],
  );
});

Deno.test("challenge rules: a check-in is credited by its id, or by goal and day before it had one", () => {
  const checkIn = { kind: "check_in" as const, goalId: "g", date: "2026-03-02" };
  assert.equal(activitySource({ ...checkIn, checkInId: "c" }), "check_in:c");
  assert.equal(activitySource(checkIn), "check_in:g:2026-03-02");
  assert.deepEqual(creditedSources({ ...checkIn, checkInId: "c" }), [
    "check_in:c",
    "check_in:g:2026-03-02",
  ]);
  assert.deepEqual(creditedSources({ kind: "goal_event", eventId: "e" }), ["goal_event:e"]);
});
