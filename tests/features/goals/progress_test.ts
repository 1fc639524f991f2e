import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN } from "../../support/goals.ts";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const PROGRESS =
  `query P($goalId: String!, $groupBy: ProgressGroupBy!, $from: String, $to: String) {
  goalProgressData(goalId: $goalId, groupBy: $groupBy, from: $from, to: $to) {
    goal { id } groupBy from to timeZone
    buckets { periodStart sum count cumulativeValue }
    pace { requiredPerDay actualPerDay remaining daysLeft projectedCompletionDate onTrack }
    currentStreak longestStreak completionRate } }`;

Deno.test("progress: addGoalEvent moves a target and completes it on reaching the target", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const goal = await addGoal(g, { title: "Run", kind: "target", unit: "km", targetValue: 20 });
    const add = async (vars: Record<string, unknown>) =>
      (await g.data(ADD_EVENT, { goalId: goal.id, ...vars })).addGoalEvent;
    const first = await add({ value: 5, note: " easy run " });
    assert.deepEqual(first.errors, []);
    assert.equal(first.event.note, "easy run");
    assert.equal(first.event.occurredAt, "2026-01-05T12:00:00.000Z");
    assert.equal(first.goal.currentValue, 5);
    assert.equal(first.goal.percentComplete, 25);
    assert.deepEqual(first.badgesEarned.map((b: { code: string }) => b.code), ["first_progress"]);
    const back = await add({ value: 4, occurredAt: "2026-01-04T08:00:00+01:00" });
    assert.equal(back.event.occurredAt, "2026-01-04T07:00:00.000Z");
    assert.equal(back.goal.currentValue, 9);

    for (
      const [vars, pattern] of [
        [{ value: 0 }, /must not be 0/],
        [{ value: 2e9 }, /value must be a number/],
        [{ value: 1, note: "n".repeat(501) }, /note/],
        [{ value: 1, occurredAt: "2026-01-06T12:00:00Z" }, /future/],
        [{ value: 1, occurredAt: "2024-01-01T00:00:00Z" }, /within the last/],
        [{ value: 1, occurredAt: "last tuesday" }, /ISO 8601/],
        [{ value: 1, occurredAt: "2026-01-05" }, /ISO 8601/],
      ] as [Record<string, unknown>, RegExp][]
    ) {
      const res = await add(vars);
      assert.equal(res.event, null, JSON.stringify(vars));
      assert.match(res.errors.join(";"), pattern, JSON.stringify(vars));
    }
    assert.equal(codeOf(await g.run(ADD_EVENT, { goalId: goal.id, value: "5" })), "BAD_USER_INPUT");
    const habit = await addGoal(g, { title: "Floss", kind: "habit" });
    const onHabit = (await g.data(ADD_EVENT, { goalId: habit.id, value: 1 })).addGoalEvent;
    assert.match(onHabit.errors[0], /checkInHabit/);

    const done = await add({ value: 11 });
    assert.equal(done.goalCompleted, true);
    assert.equal(done.goal.status, "completed");
    assert.equal(done.goal.percentComplete, 100);
    assert.deepEqual(done.badgesEarned.map((b: { code: string }) => b.code), ["goal_completed"]);
    const more = await add({ value: 1 });
    assert.equal(more.goalCompleted, false);
    assert.equal(more.goal.currentValue, 21);

    const q =
      `query($id: String!) { goal(id: $id) { currentValue recentEvents(first: 2) { value } } }`;
    const detail = (await g.data(q, { id: goal.id })).goal;
    assert.equal(detail.currentValue, 21);
    assert.deepEqual(detail.recentEvents.map((e: { value: number }) => e.value), [1, 11]);
    assert.equal(
      codeOf(
        await g.run(`query($id: String!) { goal(id: $id) { recentEvents(first: 51) { id } } }`, {
          id: goal.id,
        }),
      ),
      "BAD_USER_INPUT",
    );
  } finally {
    await g.close();
  }
});

Deno.test("progress: a decreasing target counts down", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const goal = await addGoal(g, {
      title: "Weight",
      kind: "target",
      unit: "kg",
      startValue: 80,
      targetValue: 70,
    });
    const res = (await g.data(ADD_EVENT, { goalId: goal.id, value: -2.5 })).addGoalEvent;
    assert.equal(res.goal.currentValue, 77.5);
    assert.equal(res.goal.percentComplete, 25);
  } finally {
    await g.close();
  }
});

Deno.test("progress: goalProgressData buckets events in the user's zone, with pace", async () => {
  const g = await setup({ start: "2026-01-20T12:00:00Z" });
  try {
    await g.data(`mutation { updateMe(timeZone: "America/Los_Angeles") { errors } }`);
    const goal = await addGoal(g, {
      title: "Read pages",
      kind: "target",
      startValue: 10,
      targetValue: 1010,
      dueDate: "2026-03-01",
    });
    const add = (value: number, occurredAt: string) =>
      g.data(ADD_EVENT, { goalId: goal.id, value, occurredAt });
    await add(100, "2025-12-31T12:00:00Z"); // before the range
    await add(30, "2026-01-10T07:59:00Z"); // 23:59 on the 9th in Los Angeles
    await add(20, "2026-01-10T08:00:00Z"); // 00:00 on the 10th
    await add(50, "2026-01-10T20:00:00Z");
    await add(70, "2026-01-19T18:00:00Z");

    const days = (await g.data(PROGRESS, {
      goalId: goal.id,
      groupBy: "DAY",
      from: "2026-01-09",
      to: "2026-01-12",
    })).goalProgressData;
    assert.equal(days.timeZone, "America/Los_Angeles");
    assert.deepEqual(days.buckets, [
      { periodStart: "2026-01-09", sum: 30, count: 1, cumulativeValue: 140 },
      { periodStart: "2026-01-10", sum: 70, count: 2, cumulativeValue: 210 },
      { periodStart: "2026-01-11", sum: 0, count: 0, cumulativeValue: 210 },
      { periodStart: "2026-01-12", sum: 0, count: 0, cumulativeValue: 210 },
    ]);
    assert.equal(days.completionRate, null);
    assert.equal(days.currentStreak, 1); // the 19th, today (20th) not yet
    assert.equal(days.longestStreak, 2); // the 9th and 10th

    const weeks = (await g.data(PROGRESS, {
      goalId: goal.id,
      groupBy: "WEEK",
      from: "2026-01-07",
      to: "2026-01-20",
    })).goalProgressData;
    assert.equal(weeks.from, "2026-01-05");
    assert.deepEqual(
      weeks.buckets.map((b: { periodStart: string; sum: number }) => [
        b.periodStart,
        b.sum,
      ]),
      [["2026-01-05", 100], ["2026-01-12", 0], ["2026-01-19", 70]],
    );

    const months = (await g.data(PROGRESS, {
      goalId: goal.id,
      groupBy: "MONTH",
      from: "2025-12-15",
    })).goalProgressData;
    assert.deepEqual(months.buckets, [
      { periodStart: "2025-12-01", sum: 100, count: 1, cumulativeValue: 110 },
      { periodStart: "2026-01-01", sum: 170, count: 4, cumulativeValue: 280 },
    ]);
    assert.equal(months.to, "2026-01-20");

    // Pace: 710 left by 1 March (40 days, today included); 170 over the last 14 days.
    const pace = days.pace;
    assert.equal(pace.remaining, 730);
    assert.equal(pace.daysLeft, 40);
    assert.equal(pace.requiredPerDay, 17.805);
    assert.equal(pace.actualPerDay, 12.143);
    assert.equal(pace.onTrack, false);
    assert.equal(pace.projectedCompletionDate, "2026-03-22");
  } finally {
    await g.close();
  }
});

Deno.test("progress: habits report check-ins, streaks and completion rate", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const habit = await addGoal(g, { title: "Walk", kind: "habit" });
    for (const date of ["2026-01-05", "2026-01-06", "2026-01-08"]) {
      g.clock.set(`${date}T12:00:00Z`);
      await g.data(CHECK_IN, { goalId: habit.id });
    }
    g.clock.set("2026-01-09T12:00:00Z");
    const data = (await g.data(PROGRESS, {
      goalId: habit.id,
      groupBy: "DAY",
      from: "2026-01-01",
    })).goalProgressData;
    assert.equal(data.buckets.length, 9);
    assert.deepEqual(data.buckets.slice(4).map((b: { count: number }) => b.count), [1, 1, 0, 1, 0]);
    assert.equal(data.buckets.at(-1).cumulativeValue, 3);
    assert.equal(data.pace, null);
    assert.equal(data.currentStreak, 1);
    assert.equal(data.longestStreak, 2);
    assert.equal(data.completionRate, 0.6); // 3 of 5 days since the habit started
  } finally {
    await g.close();
  }
});

Deno.test("progress: bad ranges are refused", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const goal = await addGoal(g, { title: "Run", kind: "target", targetValue: 5 });
    for (
      const vars of [
        { groupBy: "DAY", from: "2026-01-05", to: "2026-01-01" },
        { groupBy: "DAY", from: "2026-1-5" },
        { groupBy: "DAY", to: "2026-02-30" },
        { groupBy: "DAY", from: "2020-01-01" },
        { groupBy: "YEAR" },
      ]
    ) {
      const res = await g.run(PROGRESS, { goalId: goal.id, ...vars });
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    const defaults = (await g.data(PROGRESS, { goalId: goal.id, groupBy: "DAY" }))
      .goalProgressData;
    assert.equal(defaults.buckets.length, 30);
    assert.equal(defaults.to, "2026-01-05");
  } finally {
    await g.close();
  }
});
