import assert from "node:assert/strict";
import {
  completionPeriods,
  completionRate,
  newGoalRow,
  paceWindowStart,
  startValueOf,
} from "../../../src/features/goals/rules.ts";

Deno.test("newGoalRow: text is trimmed (blank = none) and the kind's defaults are filled in", () => {
  const base = { parentId: null, visibility: "private" as const };
  assert.deepEqual(
    newGoalRow({ ...base, title: "  Run ", kind: "target", description: "  ", unit: " km " }),
    {
      ...base,
      title: "Run",
      description: null,
      kind: "target",
      unit: "km",
      startValue: 0,
      targetValue: null,
      dueDate: null,
      cadence: null,
      timesPerWeek: null,
    },
  );
  const habit = newGoalRow({
    ...base,
    title: "Read",
    kind: "habit",
    startValue: 5,
    timesPerWeek: 3,
  });
  assert.equal(habit.startValue, null);
  assert.equal(habit.cadence, "daily");
  assert.equal(habit.timesPerWeek, null, "timesPerWeek is for weekly habits only");
  const weekly = newGoalRow({
    ...base,
    title: "Gym",
    kind: "habit",
    cadence: "weekly",
    timesPerWeek: 3,
  });
  assert.equal(weekly.timesPerWeek, 3);
  assert.equal(startValueOf({ startValue: null }), 0);
  assert.equal(startValueOf({ startValue: 7 }), 7);
});

Deno.test("completionPeriods: from the habit's first period to today, by day or ISO week", () => {
  const daily = { cadence: "daily" as const };
  assert.deepEqual(
    completionPeriods(daily, "2026-01-03", "2026-01-01", "2026-01-31", "2026-01-10"),
    {
      start: "2026-01-03",
      end: "2026-01-10",
      possible: 8,
    },
  );
  assert.equal(
    completionPeriods(daily, "2026-02-01", "2026-01-01", "2026-01-31", "2026-02-10"),
    null,
  );
  // 2026-01-07 is a Wednesday: its ISO week starts on Monday 2026-01-05.
  assert.deepEqual(
    completionPeriods(
      { cadence: "weekly" },
      "2026-01-07",
      "2026-01-01",
      "2026-01-31",
      "2026-01-20",
    ),
    { start: "2026-01-05", end: "2026-01-20", possible: 3 },
  );
  assert.equal(completionRate(2, 3), 0.667);
  assert.equal(completionRate(5, 3), 1);
  assert.equal(
    paceWindowStart(new Date("2026-01-15T12:00:00Z")).toISOString(),
    "2026-01-01T12:00:00.000Z",
  );
});
