import assert from "node:assert/strict";
import { addGoal, CHECK_IN } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";

Deno.test("events: goal actions publish domain events through the job system", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const seen: [string, unknown][] = [];
    const events = ["goals.goal_created", "habits.checked_in", "badges.badge_earned"] as const;
    for (const event of events) {
      g.t.app.jobs.subscribe(event, `test.${event}`, (payload) => {
        seen.push([event, payload]);
        return Promise.resolve();
      });
    }
    const habit = await addGoal(g, { title: "Walk", kind: "habit" });
    await g.data(CHECK_IN, { goalId: habit.id });
    await g.t.app.jobs.runUntilIdle();
    const names = seen.map(([e]) => e).sort();
    assert.deepEqual(names, [
      "badges.badge_earned",
      "badges.badge_earned",
      "goals.goal_created",
      "habits.checked_in",
    ]);
    const checked = seen.find(([e]) => e === "habits.checked_in")![1] as Record<string, unknown>;
    assert.equal(checked.goalId, habit.id);
    assert.equal(checked.date, "2026-01-05");
    assert.equal(checked.streak, 1);
  } finally {
    await g.close();
  }
});
