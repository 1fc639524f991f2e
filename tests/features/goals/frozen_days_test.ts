import assert from "node:assert/strict";
import { addGoal, CHECK_IN, DAY_MS } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";

const FREEZE = `mutation F($goalId: String!, $date: Date!) {
  useStreakFreeze(goalId: $goalId, date: $date) { freezesLeft errors { code } } }`;
const BUCKETS = `query P($goalId: String!, $groupBy: ProgressGroupBy!, $from: Date, $to: Date) {
  goalProgressData(goalId: $goalId, groupBy: $groupBy, from: $from, to: $to) {
    buckets { periodStart count frozenDays } } }`;

Deno.test("progress: buckets mark the days a streak freeze covers", async () => {
  // Monday 5 January, in the user's zone (Tokyo: the day starts 9 hours before UTC's).
  const g = await setup({ start: "2026-01-05T02:00:00Z" });
  try {
    await g.data(`mutation { updateMe(timeZone: "Asia/Tokyo") { errors { code } } }`);
    const habit = await addGoal(g, { title: "Stretch", kind: "habit" });
    const target = await addGoal(g, { title: "Read", kind: "target", targetValue: 10 });
    for (let day = 0; day < 7; day++) {
      await g.data(CHECK_IN, { goalId: habit.id });
      g.clock.advance(DAY_MS);
    }
    // Monday the 12th is missed; on the 13th a freeze covers it.
    g.clock.advance(DAY_MS);
    const used = (await g.data(FREEZE, { goalId: habit.id, date: "2026-01-12" })).useStreakFreeze;
    assert.deepEqual(used, { freezesLeft: 0, errors: [] });
    await g.data(CHECK_IN, { goalId: habit.id });

    const buckets = async (goalId: string, groupBy: string, from: string) =>
      (await g.data(BUCKETS, { goalId, groupBy, from, to: "2026-01-13" })).goalProgressData
        .buckets;
    assert.deepEqual(await buckets(habit.id, "day", "2026-01-10"), [
      { periodStart: "2026-01-10", count: 1, frozenDays: 0 },
      { periodStart: "2026-01-11", count: 1, frozenDays: 0 },
      { periodStart: "2026-01-12", count: 0, frozenDays: 1 },
      { periodStart: "2026-01-13", count: 1, frozenDays: 0 },
    ]);
    assert.deepEqual(await buckets(habit.id, "week", "2026-01-05"), [
      { periodStart: "2026-01-05", count: 7, frozenDays: 0 },
      { periodStart: "2026-01-12", count: 1, frozenDays: 1 },
    ]);
    assert.deepEqual(await buckets(habit.id, "month", "2026-01-01"), [
      { periodStart: "2026-01-01", count: 8, frozenDays: 1 },
    ]);
    // Targets take no freezes.
    assert.deepEqual(
      (await buckets(target.id, "day", "2026-01-12")).map((b: { frozenDays: number }) =>
        b.frozenDays
      ),
      [0, 0],
    );
  } finally {
    await g.close();
  }
});
