/** The goals use cases of recorded history: `importCheckIns` and `importGoalEvents`. */
import assert from "node:assert/strict";
import { addGoal } from "../../support/goals.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { importCheckIns, importGoalEvents } from "../../../src/features/goals/service.ts";

const deps = (g: TestSetup) => ({
  db: g.t.deps.db,
  clock: g.clock,
  badges: g.t.app.features.badges.api,
  feed: g.t.app.features.feed.api,
});

const STREAK = `query($id: String!) { goal(id: $id) { currentStreak longestStreak } }`;

Deno.test("goals import: a habit's past check-ins in one call, each day judged as on that day", async () => {
  const g = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    const habit = await addGoal(g, { title: "Meditate", kind: "habit" });
    const actor = { userId: await g.userId("alice"), timeZone: "UTC" };
    const days = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-09", "2026-03-10"];
    const future = await importCheckIns(deps(g), actor, {
      goalId: habit.id,
      days: [...days, "2026-03-11"],
    });
    assert.deepEqual(future.errors.map((e) => [e.code, e.field]), [["invalid", "days.5"]]);
    const bad = await importCheckIns(deps(g), actor, { goalId: habit.id, days: ["March 1"] });
    assert.deepEqual(bad.errors.map((e) => e.code), ["invalid"]);
    const none = await importCheckIns(deps(g), actor, { goalId: "nope", days });
    assert.deepEqual(none.errors.map((e) => e.code), ["not_found"]);

    // Older than the check-in backfill window: valid, as each day is judged on that day.
    const imported = await importCheckIns(deps(g), actor, { goalId: habit.id, days });
    assert.deepEqual(imported.errors, []);
    assert.equal(imported.imported, 5);
    assert.equal(
      (await importCheckIns(deps(g), actor, { goalId: habit.id, days })).imported,
      0,
      "days already checked in are left as they are",
    );
    const goal = (await g.data(STREAK, { id: habit.id })).goal;
    assert.deepEqual(goal, { currentStreak: 2, longestStreak: 3 });
  } finally {
    await g.close();
  }
});

Deno.test("goals import: a target's past progress events, parsed as addGoalEvent parses them", async () => {
  const g = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    const target = await addGoal(g, {
      title: "Run",
      kind: "target",
      unit: "km",
      targetValue: 100,
    });
    const habit = await addGoal(g, { title: "Stretch", kind: "habit" });
    const actor = { userId: await g.userId("alice"), timeZone: "UTC" };
    const at = (iso: string) => new Date(iso);
    const refused = await importGoalEvents(deps(g), actor, {
      goalId: target.id,
      events: [
        { value: 0, occurredAt: at("2026-01-02T08:00:00Z") },
        { value: 5, occurredAt: at("2026-03-11T08:00:00Z") },
      ],
    });
    assert.deepEqual(refused.errors.map((e) => [e.code, e.field]), [
      ["invalid", "events.0.value"],
      ["invalid", "events.1.occurredAt"],
    ]);
    const onHabit = await importGoalEvents(deps(g), actor, {
      goalId: habit.id,
      events: [{ value: 1, occurredAt: at("2026-03-01T08:00:00Z") }],
    });
    assert.deepEqual(onHabit.errors.map((e) => e.code), ["not_allowed"]);

    const imported = await importGoalEvents(deps(g), actor, {
      goalId: target.id,
      events: [
        { value: 7, note: "  tempo  ", occurredAt: at("2026-02-01T08:00:00Z") },
        { value: 5, occurredAt: at("2025-06-01T08:00:00Z") },
      ],
    });
    assert.deepEqual(imported.errors, []);
    assert.deepEqual(imported.events.map((e) => [e.value, e.note]), [[5, null], [7, "tempo"]]);
    const current = `query($id: String!) { goal(id: $id) { currentValue } }`;
    assert.equal((await g.data(current, { id: target.id })).goal.currentValue, 12);
  } finally {
    await g.close();
  }
});
