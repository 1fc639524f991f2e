import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN, messagesOf } from "../../support/goals.ts";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const PROGRESS = `query P($goalId: String!, $groupBy: ProgressGroupBy!, $from: Date, $to: Date) {
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
      ] as [Record<string, unknown>, RegExp][]
    ) {
      const res = await add(vars);
      assert.equal(res.event, null, JSON.stringify(vars));
      assert.match(messagesOf(res), pattern, JSON.stringify(vars));
      assert.equal(res.errors[0].code, "invalid");
      assert.ok(["value", "note", "occurredAt"].includes(res.errors[0].field));
    }
    assert.equal(codeOf(await g.run(ADD_EVENT, { goalId: goal.id, value: "5" })), "BAD_USER_INPUT");
    // A malformed DateTime is refused before any resolver runs, naming the variable.
    for (const occurredAt of ["last tuesday", "2026-01-05", "2026-01-05T08:00:00"]) {
      const bad = await g.run(ADD_EVENT, { goalId: goal.id, value: 1, occurredAt });
      assert.equal(bad.status, 200);
      assert.equal(codeOf(bad), "BAD_USER_INPUT", occurredAt);
      assert.match(bad.body.errors[0].message, /occurredAt/);
    }
    const habit = await addGoal(g, { title: "Floss", kind: "habit" });
    const onHabit = (await g.data(ADD_EVENT, { goalId: habit.id, value: 1 })).addGoalEvent;
    assert.match(onHabit.errors[0].message, /checkInHabit/);
    assert.deepEqual([onHabit.errors[0].code, onHabit.errors[0].field], ["not_allowed", "goalId"]);
    assert.equal(
      (await g.data(`query($id: String!) { goal(id: $id) { currentValue } }`, { id: goal.id }))
        .goal.currentValue,
      9,
      "refused events change nothing",
    );

    g.clock.advance(1000);
    const done = await add({ value: 11 });
    assert.equal(done.goalCompleted, true);
    assert.equal(done.goal.status, "completed");
    assert.equal(done.goal.percentComplete, 100);
    assert.deepEqual(done.badgesEarned.map((b: { code: string }) => b.code), ["goal_completed"]);
    g.clock.advance(1000);
    const more = await add({ value: 1 });
    assert.equal(more.goalCompleted, false);
    assert.equal(more.goal.currentValue, 21);

    const q = `query($id: String!, $first: Int, $after: String, $last: Int, $before: String) {
      goal(id: $id) { currentValue events(first: $first, after: $after, last: $last,
        before: $before) { totalCount nodes { value }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    const page = async (vars: Record<string, unknown>) =>
      (await g.data(q, { id: goal.id, ...vars })).goal;
    const values = (c: { nodes: { value: number }[] }) => c.nodes.map((e) => e.value);
    const detail = await page({ first: 2 });
    assert.equal(detail.currentValue, 21);
    // Newest first: 1, 11, 5 (today), then 4 (backdated to the 4th).
    assert.deepEqual(values(detail.events), [1, 11]);
    assert.equal(detail.events.totalCount, 4);
    assert.equal(detail.events.pageInfo.hasNextPage, true);
    const next = (await page({ first: 2, after: detail.events.pageInfo.endCursor })).events;
    assert.deepEqual(values(next), [5, 4]);
    assert.equal(next.pageInfo.hasNextPage, false);
    // Backward: the last two, then the two before them.
    const tail = (await page({ last: 2 })).events;
    assert.deepEqual(values(tail), [5, 4]);
    assert.equal(tail.pageInfo.hasPreviousPage, true);
    assert.equal(tail.totalCount, 4);
    const head = (await page({ last: 2, before: tail.pageInfo.startCursor })).events;
    assert.deepEqual(values(head), [1, 11]);
    assert.equal(head.pageInfo.hasPreviousPage, false);
    assert.equal(head.pageInfo.hasNextPage, true);
    assert.equal(codeOf(await g.run(q, { id: goal.id, first: 1, last: 1 })), "BAD_USER_INPUT");
    assert.equal(codeOf(await g.run(q, { id: goal.id, after: "nonsense" })), "BAD_USER_INPUT");
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
    await g.data(`mutation { updateMe(timeZone: "America/Los_Angeles") { errors { code } } }`);
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
      groupBy: "day",
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
      groupBy: "week",
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
      groupBy: "month",
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
      groupBy: "day",
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
        { groupBy: "day", from: "2026-01-05", to: "2026-01-01" },
        { groupBy: "day", from: "2026-1-5" },
        { groupBy: "day", to: "2026-02-30" },
        { groupBy: "day", from: "2020-01-01" },
        { groupBy: "YEAR" },
        { groupBy: "DAY" },
      ]
    ) {
      const res = await g.run(PROGRESS, { goalId: goal.id, ...vars });
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    const defaults = (await g.data(PROGRESS, { goalId: goal.id, groupBy: "day" }))
      .goalProgressData;
    assert.equal(defaults.buckets.length, 30);
    assert.equal(defaults.to, "2026-01-05");
  } finally {
    await g.close();
  }
});
