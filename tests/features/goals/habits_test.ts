import assert from "node:assert/strict";
import { addGoal, CHECK_IN, DAY_MS, messagesOf } from "../../support/goals.ts";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const SET_ZONE = `mutation($z: String!) { updateMe(timeZone: $z) { ${USER_ERRORS} } }`;
const FREEZE = `mutation F($goalId: String!, $date: Date!) {
  useStreakFreeze(goalId: $goalId, date: $date) {
    goal { id currentStreak } freezesLeft alreadyCovered ${USER_ERRORS} } }`;

Deno.test("habits: daily check-ins build a streak; a repeat is idempotent; a gap breaks it", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const habit = await addGoal(g, { title: "Meditate", kind: "habit" });
    const check = async (date?: string) =>
      (await g.data(CHECK_IN, { goalId: habit.id, date })).checkInHabit;
    const first = await check();
    assert.deepEqual(first.errors, []);
    assert.equal(first.checkIn.date, "2026-01-05");
    assert.equal(first.goal.currentStreak, 1);
    assert.equal(first.goal.checkedInToday, true);
    assert.deepEqual(first.badgesEarned.map((b: { code: string }) => b.code), ["first_check_in"]);
    const repeat = await check("2026-01-05");
    assert.equal(repeat.alreadyCheckedIn, true);
    assert.equal(repeat.checkIn.id, first.checkIn.id);
    assert.deepEqual(repeat.badgesEarned, []);

    g.clock.advance(DAY_MS);
    const goal = `query($id: String!) { goal(id: $id) { currentStreak longestStreak checkedInToday
      currentValue percentComplete } }`;
    let now = (await g.data(goal, { id: habit.id })).goal;
    assert.equal(now.currentStreak, 1, "today not yet checked in keeps the streak");
    assert.equal(now.checkedInToday, false);
    assert.equal(now.percentComplete, 0);
    assert.equal((await check()).goal.currentStreak, 2);
    now = (await g.data(goal, { id: habit.id })).goal;
    assert.equal(now.currentValue, 1);
    assert.equal(now.percentComplete, 100);

    g.clock.advance(2 * DAY_MS); // 2026-01-08: the 7th was missed
    now = (await g.data(goal, { id: habit.id })).goal;
    assert.equal(now.currentStreak, 0);
    assert.equal(now.longestStreak, 2);
    assert.equal((await check()).goal.currentStreak, 1);
    // Backfilling the missed day joins the runs.
    assert.equal((await check("2026-01-07")).goal.currentStreak, 4);

    for (
      const [date, pattern] of [
        ["2026-01-09", /future/],
        ["2025-12-31", /last 7 days/],
      ] as [string, RegExp][]
    ) {
      const res = await check(date);
      assert.equal(res.checkIn, null);
      assert.match(res.errors[0].message, pattern);
      assert.deepEqual([res.errors[0].code, res.errors[0].field], ["invalid", "date"]);
    }
    for (const date of ["2026-13-01", "yesterday"]) {
      const res = await g.run(CHECK_IN, { goalId: habit.id, date });
      assert.equal(codeOf(res), "BAD_USER_INPUT", date);
      assert.match(res.body.errors[0].message, /date/);
    }
    const target = await addGoal(g, { title: "Save", kind: "target", targetValue: 5 });
    const wrong = (await g.data(CHECK_IN, { goalId: target.id })).checkInHabit;
    assert.match(wrong.errors[0].message, /only habits/);
    assert.equal(wrong.errors[0].code, "not_allowed");
    assert.equal((await g.data(goal, { id: habit.id })).goal.longestStreak, 4);
  } finally {
    await g.close();
  }
});

Deno.test("habits: days follow the user's time zone, across DST changes", async () => {
  // 11:30 UTC on 5 January is 00:30 on 6 January in Auckland (UTC+13).
  const g = await setup({ start: "2026-01-05T11:30:00Z" });
  try {
    assert.deepEqual((await g.data(SET_ZONE, { z: "Pacific/Auckland" })).updateMe.errors, []);
    const habit = await addGoal(g, { title: "Stretch", kind: "habit" });
    const check = async (date?: string) =>
      (await g.data(CHECK_IN, { goalId: habit.id, date })).checkInHabit;
    assert.equal((await check()).checkIn.date, "2026-01-06");
    assert.equal((await check("2026-01-05")).goal.currentStreak, 2);

    // New York springs forward on 8 March 2026 (a 23-hour day).
    await g.data(SET_ZONE, { z: "America/New_York" });
    const ny = await addGoal(g, { title: "Walk", kind: "habit" });
    const at = async (iso: string) => {
      g.clock.set(iso);
      return (await g.data(CHECK_IN, { goalId: ny.id })).checkInHabit;
    };
    assert.equal((await at("2026-03-08T04:30:00Z")).checkIn.date, "2026-03-07"); // 23:30 EST
    const early = await at("2026-03-08T05:30:00Z"); // 00:30 EST on the 8th
    assert.equal(early.checkIn.date, "2026-03-08");
    assert.equal(early.goal.currentStreak, 2);
    const late = await at("2026-03-10T03:59:00Z"); // 23:59 EDT on the 9th
    assert.equal(late.checkIn.date, "2026-03-09");
    assert.equal(late.goal.currentStreak, 3);
    // Falls back on 1 November 2026 (a 25-hour day): 00:30 EDT and 23:30 EST are the same day.
    const walk2 = await addGoal(g, { title: "Read", kind: "habit" });
    g.clock.set("2026-11-01T04:30:00Z");
    const a = (await g.data(CHECK_IN, { goalId: walk2.id })).checkInHabit;
    g.clock.set("2026-11-02T04:30:00Z");
    const b = (await g.data(CHECK_IN, { goalId: walk2.id })).checkInHabit;
    assert.equal(a.checkIn.date, "2026-11-01");
    assert.equal(b.checkIn.date, "2026-11-01");
    assert.equal(b.alreadyCheckedIn, true);
    g.clock.set("2026-11-02T05:30:00Z"); // 00:30 EST on the 2nd
    const c = (await g.data(CHECK_IN, { goalId: walk2.id })).checkInHabit;
    assert.equal(c.checkIn.date, "2026-11-02");
    assert.equal(c.goal.currentStreak, 2);
  } finally {
    await g.close();
  }
});

Deno.test("habits: weekly habits count ISO weeks that reach timesPerWeek", async () => {
  const g = await setup({ start: "2026-01-05T09:00:00Z" }); // a Monday
  try {
    const gym = await addGoal(g, {
      title: "Gym",
      kind: "habit",
      cadence: "weekly",
      timesPerWeek: 2,
    });
    const check = async (date?: string) =>
      (await g.data(CHECK_IN, { goalId: gym.id, date })).checkInHabit;
    assert.equal((await check()).goal.currentStreak, 0);
    g.clock.advance(2 * DAY_MS);
    assert.equal((await check()).goal.currentStreak, 1);
    const q =
      `query($id: String!) { goal(id: $id) { currentStreak currentValue percentComplete } }`;
    let now = (await g.data(q, { id: gym.id })).goal;
    assert.equal(now.currentValue, 2);
    assert.equal(now.percentComplete, 100);
    g.clock.advance(7 * DAY_MS); // the next week, nothing yet: still 1
    now = (await g.data(q, { id: gym.id })).goal;
    assert.equal(now.currentStreak, 1);
    assert.equal(now.currentValue, 0);
    await check();
    assert.equal((await check("2026-01-12")).goal.currentStreak, 2);
    g.clock.advance(14 * DAY_MS); // two weeks later: the week in between was missed
    assert.equal((await g.data(q, { id: gym.id })).goal.currentStreak, 0);
  } finally {
    await g.close();
  }
});

Deno.test("habits: a 7-day streak earns a freeze that covers one missed day", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const habit = await addGoal(g, { title: "Journal", kind: "habit" });
    const other = await addGoal(g, { title: "Other", kind: "habit" });
    const freezes = async () => (await g.data(`{ me { streakFreezes } }`)).me.streakFreezes;
    let last;
    for (let day = 0; day < 7; day++) {
      last = (await g.data(CHECK_IN, { goalId: habit.id })).checkInHabit;
      assert.equal(last.freezeEarned, day === 6, `day ${day}`);
      g.clock.advance(DAY_MS);
    }
    assert.equal(last.goal.currentStreak, 7);
    assert.deepEqual(last.badgesEarned.map((b: { code: string }) => b.code), ["streak_7"]);
    assert.equal(await freezes(), 1);
    // A repeat on the same day earns nothing more.
    g.clock.advance(-DAY_MS);
    assert.equal((await g.data(CHECK_IN, { goalId: habit.id })).checkInHabit.freezeEarned, false);
    g.clock.advance(2 * DAY_MS); // 2026-01-13; the 12th was missed
    const freeze = async (date: string, goalId = habit.id, as?: string) =>
      (await g.data(FREEZE, { goalId, date }, as)).useStreakFreeze;

    for (
      const [date, pattern] of [
        ["2026-01-13", /past day/],
        ["2026-01-14", /past day/],
        ["2026-01-05", /last 7 days/],
        ["2026-01-11", /not missed/],
      ] as [string, RegExp][]
    ) {
      const res = await freeze(date);
      assert.match(messagesOf(res), pattern, date);
      assert.equal(res.errors[0].field, "date");
      assert.equal(res.freezesLeft, 1);
    }
    assert.equal(
      codeOf(await g.run(FREEZE, { goalId: habit.id, date: "13.01.2026" })),
      "BAD_USER_INPUT",
    );
    const fresh = await addGoal(g, { title: "Fresh", kind: "habit" });
    const before = (await freeze("2026-01-12", fresh.id)).errors;
    assert.match(before[0].message, /before the habit started/);

    const used = await freeze("2026-01-12");
    assert.deepEqual(used.errors, []);
    assert.equal(used.freezesLeft, 0);
    assert.equal(used.goal.currentStreak, 8);
    assert.equal(used.alreadyCovered, false);
    // A retry answers the covered day, spending nothing more.
    const again = await freeze("2026-01-12");
    assert.deepEqual(again, { ...used, alreadyCovered: true });
    const none = await freeze("2026-01-10", other.id);
    assert.match(none.errors[0].message, /no streak freezes left/);
    assert.deepEqual([none.errors[0].code, none.errors[0].field], ["no_freezes_left", null]);
    assert.equal(await freezes(), 0);
    // The refused freeze left no covered day behind.
    const q = `query($id: String!) { goal(id: $id) { currentStreak longestStreak } }`;
    assert.deepEqual((await g.data(q, { id: other.id })).goal, {
      currentStreak: 0,
      longestStreak: 0,
    });
    assert.equal((await g.data(CHECK_IN, { goalId: habit.id })).checkInHabit.goal.currentStreak, 9);
  } finally {
    await g.close();
  }
});
