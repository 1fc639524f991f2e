import assert from "node:assert/strict";
import {
  addDays,
  isDate,
  isoWeekStart,
  localDate,
  periodIndex,
  periodIndexStart,
} from "../../../src/features/goals/dates.ts";
import {
  canTransition,
  checkInDateError,
  currentStreak,
  earnsFreeze,
  freezeDateError,
  type GoalShape,
  newGoalErrors,
  pace,
  parseInstant,
  percentComplete,
  progressRange,
  statusesLeadingTo,
  targetReached,
} from "../../../src/features/goals/rules.ts";

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

Deno.test("dates: local days across zones and DST changes", () => {
  assert.equal(localDate(new Date("2026-01-05T11:30:00Z"), "Pacific/Auckland"), "2026-01-06");
  assert.equal(localDate(new Date("2026-01-05T11:30:00Z"), "UTC"), "2026-01-05");
  assert.equal(localDate(new Date("2026-01-05T04:59:00Z"), "America/New_York"), "2026-01-04");
  // Spring forward (23-hour day) and fall back (25-hour day) in New York.
  assert.equal(localDate(new Date("2026-03-08T04:59:00Z"), "America/New_York"), "2026-03-07");
  assert.equal(localDate(new Date("2026-03-09T03:59:00Z"), "America/New_York"), "2026-03-08");
  assert.equal(localDate(new Date("2026-11-02T04:59:00Z"), "America/New_York"), "2026-11-01");
  assert.equal(localDate(new Date("2026-11-02T05:00:00Z"), "America/New_York"), "2026-11-02");
  // Zones with half-hour offsets and no DST.
  assert.equal(localDate(new Date("2026-06-30T18:29:00Z"), "Asia/Kolkata"), "2026-06-30");
  assert.equal(localDate(new Date("2026-06-30T18:30:00Z"), "Asia/Kolkata"), "2026-07-01");
  // Date arithmetic never slips on DST dates.
  assert.equal(addDays("2026-03-07", 1), "2026-03-08");
  assert.equal(addDays("2026-03-08", 1), "2026-03-09");
  assert.equal(addDays("2024-02-28", 1), "2024-02-29");
  assert.equal(isoWeekStart("2026-01-11"), "2026-01-05");
  assert.equal(isoWeekStart("2026-01-05"), "2026-01-05");
  assert.equal(isoWeekStart("2026-01-01"), "2025-12-29");
  assert.equal(periodIndex("2026-01-12", "week") - periodIndex("2026-01-11", "week"), 1);
  assert.equal(periodIndexStart(periodIndex("2026-01-14", "week"), "week"), "2026-01-12");
  assert.equal(isDate("2026-02-29"), false);
  assert.equal(isDate("2028-02-29"), true);
  assert.equal(isDate("2026-1-1"), false);
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
  assert.deepEqual(progressRange("DAY", "2026-01-30"), { from: "2026-01-01", to: "2026-01-30" });
  assert.deepEqual(progressRange("WEEK", "2026-01-30", "2026-01-14"), {
    from: "2026-01-12",
    to: "2026-01-30",
  });
  assert.deepEqual(progressRange("MONTH", "2026-01-30", "2025-11-15"), {
    from: "2025-11-01",
    to: "2026-01-30",
  });
  assert.ok("error" in progressRange("DAY", "2026-01-30", "2024-01-01"));
  assert.ok("error" in progressRange("DAY", "2026-01-30", "2026-02-01", "2026-01-01"));
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

Deno.test("rules: instants", () => {
  assert.equal(
    parseInstant("2026-01-05T08:00:00+01:00")?.toISOString(),
    "2026-01-05T07:00:00.000Z",
  );
  assert.equal(parseInstant("2026-01-05"), null);
  assert.equal(parseInstant("2026-13-05T08:00:00Z"), null);
});
