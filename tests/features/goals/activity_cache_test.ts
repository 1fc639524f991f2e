/**
 * The `goals` list keeps what a goal's activity derives (figures, streaks, pages of events) per
 * activity version. Whatever changes the activity, and whoever writes it (here: SQL written
 * straight to the database, as another instance or an operator would), the next read shows it;
 * so does a new day. The cache itself: versions, variants and its bound.
 */
import assert from "node:assert/strict";
import { createGoalActivityCache } from "../../../src/features/goals/activity-cache.ts";
import { addGoal, DAY_MS } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";

const LIST = `{ goals(first: 10) { nodes { id currentValue percentComplete currentStreak
  longestStreak checkedInToday subGoals { id } events(first: 5) { nodes { id value note } } } } }`;

Deno.test("activity cache: writes by anyone, and a new day, show in the next read", async () => {
  const s = await setup({ start: "2026-03-10T15:00:00Z" });
  try {
    const target = await addGoal(s, { title: "Run", kind: "target", targetValue: 10 });
    const habit = await addGoal(s, { title: "Read", kind: "habit" });
    await s.data(
      `mutation($id: String!) { addGoalEvent(goalId: $id, value: 2) { errors { code } } }`,
      {
        id: target.id,
      },
    );
    await s.data(`mutation($id: String!) { checkInHabit(goalId: $id) { errors { code } } }`, {
      id: habit.id,
    });
    const list = async () => {
      const nodes = (await s.data(LIST)).goals.nodes;
      return {
        target: nodes.find((n: { id: string }) => n.id === target.id),
        habit: nodes.find((n: { id: string }) => n.id === habit.id),
      };
    };
    const first = await list();
    assert.equal(first.target.currentValue, 2);
    assert.deepEqual(first.target.events.nodes.map((e: { value: number }) => e.value), [2]);
    assert.equal(first.habit.checkedInToday, true);
    assert.equal(first.habit.currentStreak, 1);
    // The same read again is answered alike (from what was kept).
    assert.deepEqual(await list(), first);

    const sql = s.t.deps.db.sql;
    const [{ id: targetId, user_id: userId }] = await sql<{ id: string; user_id: string }[]>`
      select id, user_id from goals where public_id = ${target.id}`;
    const [{ id: habitId }] = await sql<{ id: string }[]>`
      select id from goals where public_id = ${habit.id}`;

    // A second after the first event: the newest of the page.
    const later = new Date(s.clock.now().getTime() + 1000);
    await sql`insert into goal_events (public_id, goal_id, user_id, value, note, occurred_at)
      values ('ev_direct_1', ${targetId}, ${userId}, 3, 'by hand', ${later})`;
    let now = await list();
    assert.equal(now.target.currentValue, 5);
    assert.equal(now.target.percentComplete, 50);
    assert.deepEqual(now.target.events.nodes[0], { id: "ev_direct_1", value: 3, note: "by hand" });

    await sql`update goal_events set note = 'edited' where public_id = 'ev_direct_1'`;
    assert.equal((await list()).target.events.nodes[0].note, "edited");

    await sql`delete from goal_events where public_id = 'ev_direct_1'`;
    now = await list();
    assert.equal(now.target.currentValue, 2);
    assert.equal(now.target.events.nodes.length, 1);

    await sql`delete from habit_check_ins where goal_id = ${habitId}`;
    now = await list();
    assert.equal(now.habit.checkedInToday, false);
    assert.equal(now.habit.currentStreak, 0);
    assert.equal(now.habit.longestStreak, 0);

    const yesterday = new Date(s.clock.now().getTime() - DAY_MS).toISOString().slice(0, 10);
    await sql`insert into streak_freeze_uses (goal_id, user_id, day)
      values (${habitId}, ${userId}, ${yesterday})`;
    now = await list();
    assert.equal(now.habit.currentStreak, 1);
    assert.equal(now.habit.longestStreak, 1);

    // A goal's own fields the figures depend on (no activity change) count too.
    await sql`update goals set start_value = 4 where id = ${targetId}`;
    assert.equal((await list()).target.currentValue, 6);

    await sql`insert into habit_check_ins (public_id, goal_id, user_id, day)
      values ('ci_direct_1', ${habitId}, ${userId}, ${
      new Date(s.clock.now()).toISOString().slice(0, 10)
    })`;
    now = await list();
    assert.equal(now.habit.checkedInToday, true);
    assert.equal(now.habit.currentStreak, 2);

    // The next day (same activity): today is no longer checked in; the streak still stands.
    s.clock.advance(DAY_MS);
    now = await list();
    assert.equal(now.habit.checkedInToday, false);
    assert.equal(now.habit.currentStreak, 2);
    s.clock.advance(2 * DAY_MS);
    assert.equal((await list()).habit.currentStreak, 0);
  } finally {
    await s.close();
  }
});

Deno.test("activity cache: only the version read finds a value; an older one never replaces a newer", () => {
  const cache = createGoalActivityCache();
  cache.set("1", "5", "stats", "at 5");
  assert.equal(cache.get("1", "5", "stats"), "at 5");
  assert.equal(cache.get("1", "6", "stats"), undefined);
  assert.equal(cache.get("1", "5", "events"), undefined);
  cache.set("1", "6", "stats", "at 6");
  assert.equal(cache.get("1", "5", "stats"), undefined);
  cache.set("1", "5", "stats", "late reader at 5");
  assert.equal(cache.get("1", "6", "stats"), "at 6");
  assert.equal(cache.get("1", "5", "stats"), undefined);
  // Versions compare as numbers, not as text.
  cache.set("1", "10", "stats", "at 10");
  assert.equal(cache.get("1", "10", "stats"), "at 10");
  cache.set("1", "9", "stats", "at 9");
  assert.equal(cache.get("1", "10", "stats"), "at 10");
});

Deno.test("activity cache: bounded in goals and in variants per goal, least recently used first", () => {
  const cache = createGoalActivityCache({ maxGoals: 2, maxVariants: 2 });
  cache.set("1", "1", "a", 1);
  cache.set("1", "1", "b", 2);
  assert.equal(cache.get("1", "1", "a"), 1);
  cache.set("1", "1", "c", 3);
  assert.equal(cache.get("1", "1", "b"), undefined);
  assert.equal(cache.get("1", "1", "a"), 1);
  assert.equal(cache.get("1", "1", "c"), 3);
  cache.set("2", "1", "a", 4);
  assert.equal(cache.get("1", "1", "a"), 1);
  cache.set("3", "1", "a", 5);
  assert.equal(cache.size, 2);
  assert.equal(cache.get("2", "1", "a"), undefined);
  assert.equal(cache.get("1", "1", "a"), 1);
  assert.equal(cache.get("3", "1", "a"), 5);
});

Deno.test("activity cache: bounded in the rows its pages hold", () => {
  const cache = createGoalActivityCache({ maxGoals: 100, maxItems: 25 });
  const page = (n: number) => Array.from({ length: n }, (_, i) => i);
  cache.set("1", "1", "events", page(10));
  cache.set("2", "1", "events", page(10));
  assert.equal(cache.size, 2);
  // A third page of 10 rows (11 items) goes over 25: the least recently used goal goes.
  cache.set("3", "1", "events", page(10));
  assert.equal(cache.get("1", "1", "events"), undefined);
  assert.deepEqual(cache.get("3", "1", "events"), page(10));
  // A goal's added variant counts too: 11 + 11 + 4 items.
  cache.set("3", "1", "older events", page(3));
  assert.equal(cache.get("2", "1", "events"), undefined);
  assert.deepEqual(cache.get("3", "1", "older events"), page(3));
  assert.deepEqual(cache.get("3", "1", "events"), page(10));
  // A page larger than the whole bound is not kept.
  cache.set("4", "1", "events", page(30));
  assert.equal(cache.get("4", "1", "events"), undefined);
});

const FIELDS = `id currentValue percentComplete currentStreak longestStreak checkedInToday
  subGoals { id } events(first: 3) { nodes { id value note } pageInfo { hasNextPage } }`;

Deno.test("activity cache: the list (read ahead, cold and warm) answers as each goal alone does", async () => {
  const s = await setup({ start: "2026-03-10T15:00:00Z" });
  try {
    const target = await addGoal(s, { title: "Run", kind: "target", targetValue: 10 });
    const habit = await addGoal(s, { title: "Read", kind: "habit" });
    const empty = await addGoal(s, { title: "Later", kind: "target", targetValue: 3 });
    await addGoal(s, { title: "Part", kind: "target", targetValue: 1, parentGoalId: target.id });
    for (const value of [1, 2, 3, 4]) {
      await s.data(
        `mutation($id: String!, $v: Float!) { addGoalEvent(goalId: $id, value: $v) {
        errors { code } } }`,
        { id: target.id, v: value },
      );
      s.clock.advance(60_000);
    }
    for (let day = 0; day < 3; day++) {
      await s.data(`mutation($id: String!) { checkInHabit(goalId: $id) { errors { code } } }`, {
        id: habit.id,
      });
      s.clock.advance(DAY_MS);
    }
    const alone: { id: string }[] = [];
    for (const { id } of [target, habit, empty]) {
      alone.push(
        (await s.data(`query($id: String!) { goal(id: $id) { ${FIELDS} } }`, { id })).goal,
      );
    }
    const list = async () => {
      const nodes = (await s.data(`{ goals(first: 10) { nodes { ${FIELDS} } } }`)).goals.nodes;
      return alone.map((g) => nodes.find((n: { id: string }) => n.id === g.id));
    };
    assert.deepEqual(await list(), alone, "cold");
    assert.deepEqual(await list(), alone, "warm");
  } finally {
    await s.close();
  }
});
