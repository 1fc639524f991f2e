import assert from "node:assert/strict";
import {
  canTransition,
  checkInDateError,
  checkInErrors as checkInUserErrors,
  currentStreak,
  earnsFreeze,
  freezeDateError,
  freezeErrors as freezeUserErrors,
  goalEventInput as goalEventUserInput,
  goalPatch as goalUserPatch,
  type GoalShape,
  newGoalErrors as newGoalUserErrors,
  pace,
  percentComplete,
  progressRange,
  statusesLeadingTo,
  targetReached,
} from "../../../src/features/goals/rules.ts";
import type { UserError } from "../../../src/platform/user-error.ts";

// The rules answer user errors; most checks here look at their messages.
const messages = (errors: UserError[]) => errors.map((e) => e.message);
const newGoalErrors = (...a: Parameters<typeof newGoalUserErrors>) =>
  messages(newGoalUserErrors(...a));
const checkInErrors = (...a: Parameters<typeof checkInUserErrors>) =>
  messages(checkInUserErrors(...a));
const freezeErrors = (...a: Parameters<typeof freezeUserErrors>) =>
  messages(freezeUserErrors(...a));
const goalPatch = (...a: Parameters<typeof goalUserPatch>) => {
  const r = goalUserPatch(...a);
  return { ...r, errors: messages(r.errors) };
};
const goalEventInput = (...a: Parameters<typeof goalEventUserInput>) => {
  const r = goalEventUserInput(...a);
  return { ...r, errors: messages(r.errors) };
};

Deno.test("rules: user errors carry code invalid/not_allowed and the argument at fault", () => {
  assert.deepEqual(newGoalUserErrors({ title: "A", kind: "habit", unit: "km" }, "2026-01-05"), [
    {
      code: "invalid",
      message: "unit, startValue and targetValue apply to targets only",
      field: "unit",
    },
  ]);
  assert.deepEqual(checkInUserErrors(target(), "2026-03-06", "2026-03-04"), [
    {
      code: "not_allowed",
      message: "only habits take check-ins; use addGoalEvent",
      field: "goalId",
    },
    { code: "invalid", message: "date must not be in the future", field: "date" },
  ]);
  assert.deepEqual(goalUserPatch(target(), { startValue: 100 }, "2026-01-05").errors, [
    { code: "invalid", message: "targetValue must differ from startValue", field: "startValue" },
  ]);
});

const target = (over: Partial<GoalShape> = {}): GoalShape => ({
  kind: "target",
  status: "active",
  unit: "km",
  startValue: 0,
  targetValue: 100,
  dueDate: null,
  cadence: null,
  timesPerWeek: null,
  ...over,
});
const habit = (over: Partial<GoalShape> = {}): GoalShape =>
  target({
    kind: "habit",
    unit: null,
    startValue: null,
    targetValue: null,
    cadence: "daily",
    ...over,
  });

Deno.test("rules: new goals are validated per kind", () => {
  assert.deepEqual(
    newGoalErrors({ title: "Run", kind: "target", targetValue: 5 }, "2026-01-05"),
    [],
  );
  assert.deepEqual(newGoalErrors({ title: "Run", kind: "habit" }, "2026-01-05"), []);
  assert.equal(newGoalErrors({ title: " ", kind: "habit" }, "2026-01-05").length, 1);
  assert.match(
    newGoalErrors({ title: "A", kind: "habit", cadence: "weekly", timesPerWeek: 0 }, "2026-01-05")
      .join(),
    /between 1 and 7/,
  );
  assert.match(
    newGoalErrors(
      { title: "A", kind: "target", targetValue: 5, dueDate: "2026-01-04" },
      "2026-01-05",
    )
      .join(),
    /past/,
  );
});

Deno.test("rules: status transitions", () => {
  assert.ok(canTransition("active", "completed"));
  assert.ok(canTransition("archived", "active"));
  assert.ok(!canTransition("archived", "completed"));
  assert.deepEqual(statusesLeadingTo("completed").sort(), ["active", "completed"]);
});

Deno.test("rules: percent complete for targets (both directions) and habits", () => {
  assert.equal(percentComplete(target(), 25), 25);
  assert.equal(percentComplete(target(), 150), 100);
  assert.equal(percentComplete(target(), -5), 0);
  assert.equal(percentComplete(target({ startValue: 80, targetValue: 70 }), 77.5), 25);
  assert.equal(percentComplete(habit(), 1), 100);
  assert.equal(percentComplete(habit({ cadence: "weekly", timesPerWeek: 3 }), 1), 33.3);
  assert.ok(targetReached(target({ startValue: 80, targetValue: 70 }), 69));
  assert.ok(!targetReached(target(), 99.9));
});

Deno.test("rules: current streak survives an unchecked today, not a missed day", () => {
  const runs = { lastIndex: 100, lastLength: 5, longest: 9 };
  assert.equal(currentStreak(runs, 100), 5);
  assert.equal(currentStreak(runs, 101), 5);
  assert.equal(currentStreak(runs, 102), 0);
  assert.equal(currentStreak({ lastIndex: null, lastLength: 0, longest: 0 }, 5), 0);
  assert.ok(earnsFreeze(7) && earnsFreeze(14) && !earnsFreeze(0) && !earnsFreeze(8));
});

Deno.test("rules: check-in and freeze dates", () => {
  assert.equal(checkInDateError("2026-01-05", "2026-01-05"), null);
  assert.match(checkInDateError("2026-01-06", "2026-01-05")!, /future/);
  assert.equal(checkInDateError("2025-12-29", "2026-01-05"), null);
  assert.match(checkInDateError("2025-12-28", "2026-01-05")!, /7 days/);
  assert.match(freezeDateError("2026-01-05", "2026-01-05")!, /past day/);
  assert.equal(freezeDateError("2026-01-04", "2026-01-05"), null);
  assert.match(freezeDateError("2025-12-28", "2026-01-05")!, /7 days/);
});

Deno.test("rules: progress ranges are aligned, defaulted and bounded", () => {
  assert.deepEqual(progressRange("day", "2026-01-30"), { from: "2026-01-01", to: "2026-01-30" });
  assert.deepEqual(progressRange("week", "2026-01-30", "2026-01-14"), {
    from: "2026-01-12",
    to: "2026-01-30",
  });
  assert.deepEqual(progressRange("month", "2026-01-30", "2025-11-15"), {
    from: "2025-11-01",
    to: "2026-01-30",
  });
  assert.ok("error" in progressRange("day", "2026-01-30", "2024-01-01"));
  assert.ok("error" in progressRange("day", "2026-01-30", "2026-02-01", "2026-01-01"));
});

Deno.test("rules: pace compares the required and the actual rate", () => {
  const goal = target({ dueDate: "2026-01-14" });
  const p = pace(goal, 50, 28, "2026-01-05")!;
  assert.equal(p.remaining, 50);
  assert.equal(p.daysLeft, 9);
  assert.equal(p.requiredPerDay, 5);
  assert.equal(p.actualPerDay, 2);
  assert.equal(p.onTrack, false);
  assert.equal(p.projectedCompletionDate, "2026-01-30");
  const done = pace(goal, 100, 0, "2026-01-05")!;
  assert.equal(done.onTrack, true);
  assert.equal(done.projectedCompletionDate, "2026-01-05");
  const stalled = pace(target(), 10, 0, "2026-01-05")!;
  assert.equal(stalled.requiredPerDay, null);
  assert.equal(stalled.projectedCompletionDate, null);
  const down = pace(target({ startValue: 80, targetValue: 70 }), 78, -14, "2026-01-05")!;
  assert.equal(down.remaining, 8);
  assert.equal(down.projectedCompletionDate, "2026-01-13");
  assert.equal(pace(habit(), 1, 1, "2026-01-05"), null);
});

Deno.test("rules: goalPatch checks an update against the goal and the user's today", () => {
  const today = "2026-03-04";
  const habit = { ...target({ kind: "habit", unit: null, targetValue: null, startValue: null }) };
  habit.cadence = "weekly";
  habit.timesPerWeek = 3;
  const ok = goalPatch(
    target(),
    { title: "  Run 100 km ", unit: "mi", dueDate: "2026-04-01" },
    today,
  );
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.patch, { title: "Run 100 km", unit: "mi", dueDate: "2026-04-01" });
  assert.deepEqual(goalPatch(target(), { status: "active" }, today).errors, []);
  assert.deepEqual(
    goalPatch(target({ status: "archived" }), { status: "completed" }, today).errors,
    [
      "a goal cannot go from archived to completed",
    ],
  );
  assert.deepEqual(goalPatch(habit, { unit: "km" }, today).errors, [
    "unit, startValue and targetValue apply to targets only",
  ]);
  assert.deepEqual(goalPatch(target(), { targetValue: null }, today).errors, [
    "targetValue cannot be cleared",
  ]);
  assert.deepEqual(goalPatch(target({ startValue: 0 }), { targetValue: 0 }, today).errors, [
    "targetValue must differ from startValue",
  ]);
  assert.deepEqual(goalPatch(target(), { dueDate: "2026-03-01" }, today).errors, [
    "dueDate must not be in the past",
  ]);
  // An unchanged past due date is not an error (the goal keeps what it had).
  assert.deepEqual(
    goalPatch(target({ dueDate: "2026-01-01" }), { dueDate: "2026-01-01" }, today).errors,
    [],
  );
  assert.deepEqual(goalPatch(target(), { timesPerWeek: 2 }, today).errors, [
    "timesPerWeek applies to weekly habits only",
  ]);
  assert.deepEqual(goalPatch(habit, { timesPerWeek: 9 }, today).errors, [
    "timesPerWeek must be between 1 and 7",
  ]);
  assert.deepEqual(goalPatch(target(), { title: "   " }, today).errors, [
    "title must not be empty",
  ]);
  assert.deepEqual(goalPatch(target(), { description: "" }, today).patch, { description: null });
});

Deno.test("rules: goalEventInput checks the value, note and when it happened", () => {
  const now = new Date("2026-03-04T12:00:00Z");
  const ok = goalEventInput(target(), { value: 2.5, note: "  felt good ", occurredAt: null }, now);
  assert.deepEqual(ok, { value: 2.5, note: "felt good", occurredAt: now, errors: [] });
  const back = goalEventInput(
    target(),
    { value: -1, occurredAt: new Date("2026-03-01T08:00:00+02:00") },
    now,
  );
  assert.deepEqual(back.errors, []);
  assert.equal(back.occurredAt.toISOString(), "2026-03-01T06:00:00.000Z");
  assert.deepEqual(goalEventInput(target({ kind: "habit" }), { value: 1 }, now).errors, [
    "habits record progress with checkInHabit",
  ]);
  assert.deepEqual(goalEventInput(target({ status: "archived" }), { value: 1 }, now).errors, [
    "the goal is archived",
  ]);
  assert.deepEqual(goalEventInput(target(), { value: 0 }, now).errors, ["value must not be 0"]);
  assert.deepEqual(goalEventInput(target(), { value: 1e12 }, now).errors, [
    "value must be a number between -1e9 and 1e9",
  ]);
  assert.deepEqual(goalEventInput(target(), { value: 1, note: "x".repeat(501) }, now).errors, [
    "note must be at most 500 characters",
  ]);
  assert.deepEqual(
    goalEventInput(target(), { value: 1, occurredAt: new Date("2026-03-04T12:06:00Z") }, now)
      .errors,
    ["occurredAt must not be in the future"],
  );
  assert.deepEqual(
    goalEventInput(target(), { value: 1, occurredAt: new Date("2025-01-01T00:00:00Z") }, now)
      .errors,
    ["occurredAt must be within the last 366 days"],
  );
});

Deno.test("rules: check-ins and freezes need an active habit and a day in the window", () => {
  const habit = target({ kind: "habit" });
  assert.deepEqual(checkInErrors(habit, "2026-03-04", "2026-03-04"), []);
  assert.deepEqual(checkInErrors(target(), "2026-03-04", "2026-03-04"), [
    "only habits take check-ins; use addGoalEvent",
  ]);
  assert.deepEqual(checkInErrors({ ...habit, status: "completed" }, "2026-03-05", "2026-03-04"), [
    "the habit is completed",
    "date must not be in the future",
  ]);
  assert.deepEqual(freezeErrors(habit, "2026-03-03", "2026-03-04", "2026-02-01"), []);
  assert.deepEqual(freezeErrors(target(), "2026-03-03", "2026-03-04", "2026-02-01"), [
    "streak freezes apply to habits only",
  ]);
  assert.deepEqual(freezeErrors(habit, "2026-03-04", "2026-03-04", "2026-02-01"), [
    "date must be a past day: only a missed day can be covered",
  ]);
  assert.deepEqual(freezeErrors(habit, "2026-03-02", "2026-03-04", "2026-03-03"), [
    "date is before the habit started",
  ]);
});
