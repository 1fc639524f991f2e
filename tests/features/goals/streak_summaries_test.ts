/**
 * Stored streak summaries (migration 0012) must never serve a stale streak: every change to a
 * goal's days, requirement or owner's time zone is seen by the next read, including writes made
 * outside the app's code paths.
 */
import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN, DAY_MS } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";

const STREAK = `query($id: String!) { goal(id: $id) { currentStreak longestStreak } }`;
const UPDATE = `mutation($id: String!, $n: Int) {
  updateGoal(goalId: $id, timesPerWeek: $n) { errors { code } } }`;

Deno.test("streak summaries: backfills, deletes made outside the app, and requirement changes are seen at once", async () => {
  const g = await setup({ start: "2026-01-10T12:00:00Z" }); // a Saturday
  const sql = g.t.deps.db.sql;
  try {
    const floss = await addGoal(g, { title: "Floss", kind: "habit" });
    const streak = async (id: string) => (await g.data(STREAK, { id })).goal;
    for (const date of ["2026-01-07", "2026-01-09", "2026-01-10"]) {
      await g.data(CHECK_IN, { goalId: floss.id, date });
    }
    assert.deepEqual(await streak(floss.id), { currentStreak: 2, longestStreak: 2 });
    const summaryOf = async () =>
      (await sql<{ computedAt: string; version: string }[]>`
        select s.computed_at::text as "computedAt", s.activity_version::text as version
        from goal_streak_summaries s join goals g on g.id = s.goal_id
        where g.public_id = ${floss.id}`)[0];
    const stored = await summaryOf();
    assert.ok(stored, "a read stores the summary");
    await streak(floss.id);
    assert.deepEqual(await summaryOf(), stored, "an unchanged goal reuses its summary");

    await g.data(CHECK_IN, { goalId: floss.id, date: "2026-01-08" });
    assert.deepEqual(await streak(floss.id), { currentStreak: 4, longestStreak: 4 });

    await sql`
      delete from habit_check_ins where day = '2026-01-08'
        and goal_id = (select id from goals where public_id = ${floss.id})`;
    assert.deepEqual(await streak(floss.id), { currentStreak: 2, longestStreak: 2 });

    const gym = await addGoal(g, {
      title: "Gym",
      kind: "habit",
      cadence: "weekly",
      timesPerWeek: 2,
    });
    for (const date of ["2026-01-05", "2026-01-06"]) {
      await g.data(CHECK_IN, { goalId: gym.id, date });
    }
    assert.deepEqual(await streak(gym.id), { currentStreak: 1, longestStreak: 1 });
    assert.deepEqual((await g.data(UPDATE, { id: gym.id, n: 3 })).updateGoal.errors, []);
    assert.deepEqual(await streak(gym.id), { currentStreak: 0, longestStreak: 0 });
    await g.data(UPDATE, { id: gym.id, n: 2 });
    assert.deepEqual(await streak(gym.id), { currentStreak: 1, longestStreak: 1 });
  } finally {
    await g.close();
  }
});

Deno.test("streak summaries: a target's days follow the owner's current time zone; its total follows every event", async () => {
  const g = await setup({ start: "2026-01-06T12:00:00Z" });
  try {
    const run = await addGoal(g, { title: "Run", kind: "target", targetValue: 100 });
    for (const occurredAt of ["2026-01-05T23:30:00Z", "2026-01-06T00:30:00Z"]) {
      const res = (await g.data(ADD_EVENT, { goalId: run.id, value: 1, occurredAt }))
        .addGoalEvent;
      assert.deepEqual(res.errors, []);
    }
    const streak = async () => (await g.data(STREAK, { id: run.id })).goal;
    assert.deepEqual(await streak(), { currentStreak: 2, longestStreak: 2 });
    // In Los Angeles both events fall on January 5th.
    await g.data(`mutation { updateMe(timeZone: "America/Los_Angeles") { errors { code } } }`);
    assert.deepEqual(await streak(), { currentStreak: 1, longestStreak: 1 });
    await g.data(`mutation { updateMe(timeZone: "UTC") { errors { code } } }`);
    assert.deepEqual(await streak(), { currentStreak: 2, longestStreak: 2 });
    g.clock.advance(2 * DAY_MS);
    assert.deepEqual(await streak(), { currentStreak: 0, longestStreak: 2 });

    const value = async () =>
      (await g.data(`query($id: String!) { goal(id: $id) { currentValue } }`, { id: run.id }))
        .goal.currentValue;
    assert.equal(await value(), 2);
    await g.t.deps.db.sql`
      insert into goal_events (public_id, goal_id, user_id, value, occurred_at)
      select 'direct-insert-1', id, user_id, 40, now() from goals where public_id = ${run.id}`;
    assert.equal(await value(), 42, "the stored total is not served after a new event");
  } finally {
    await g.close();
  }
});
