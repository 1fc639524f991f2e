/** `streak.at_risk`: the hourly `goals.streak_at_risk` schedule, in each user's time zone. */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN } from "../../support/social.ts";

const SET_ZONE = `mutation($tz: String!) { updateMe(timeZone: $tz) { errors { code } } }`;
const ADD_WEEKLY = `mutation($title: String!) {
  addGoal(title: $title, kind: habit, cadence: weekly, timesPerWeek: 2) {
    goal { id } errors { code } } }`;
const MUTE = `mutation { setNotificationPreference(kind: "streak.at_risk", enabled: false) {
  errors { code } } }`;

/** A user in `timeZone` with a daily habit checked in on `days`. */
async function habitUser(
  s: TestSetup,
  who: string,
  timeZone: string,
  title: string,
  days: string[],
) {
  assert.deepEqual((await s.as(who).data(SET_ZONE, { tz: timeZone })).updateMe.errors, []);
  const habit = (await s.as(who).data(ADD_HABIT, { title })).addGoal.goal;
  for (const date of days) {
    const done = (await s.as(who).data(CHECK_IN, { goalId: habit.id, date })).checkInHabit;
    assert.deepEqual(done.errors, [], `${who} checks in on ${date}`);
  }
}

/** Stored `streak.at_risk` notifications as [subject, content], oldest first. */
async function reminders(s: TestSetup) {
  const rows = await s.t.deps.db.sql<{ subject: string; content: string }[]>`
    select u.subject, n.content from notifications n join users u on u.id = n.user_id
    where n.kind = 'streak.at_risk' order by n.id`;
  return rows.map((r) => [r.subject, r.content]);
}

Deno.test("streak.at_risk: once at the evening hour of each user's zone, only for a due habit with a streak not checked in", async () => {
  // Monday 2026-03-02, 10:00 UTC: 19:00 in Tokyo, 05:00 in New York.
  const s = await setup({ start: "2026-03-02T10:00:00Z" });
  try {
    await habitUser(s, "tok", "Asia/Tokyo", "Run", ["2026-03-01"]);
    await habitUser(s, "nyc", "America/New_York", "Read", ["2026-03-01"]);
    await habitUser(s, "utc", "UTC", "Walk", ["2026-03-01"]);
    await habitUser(s, "done", "UTC", "Swim", ["2026-03-01", "2026-03-02"]);
    await habitUser(s, "muted", "UTC", "Stretch", ["2026-03-01"]);
    assert.deepEqual((await s.as("muted").data(MUTE)).setNotificationPreference.errors, []);
    await habitUser(s, "fresh", "UTC", "Draw", []); // no streak to lose
    // Weekly, twice a week: last week met (a streak), but Monday leaves the whole week to do it.
    assert.deepEqual((await s.as("weekly").data(SET_ZONE, { tz: "UTC" })).updateMe.errors, []);
    const gym = (await s.as("weekly").data(ADD_WEEKLY, { title: "Gym" })).addGoal.goal;
    for (const date of ["2026-02-27", "2026-02-28"]) {
      assert.deepEqual(
        (await s.as("weekly").data(CHECK_IN, { goalId: gym.id, date })).checkInHabit.errors,
        [],
      );
    }

    const fire = async (at: string) => {
      s.clock.set(at);
      await s.t.app.jobs.fireSchedule("goals.streak_at_risk", new Date(at));
      await s.t.app.jobs.runUntilIdle();
    };
    await fire("2026-03-02T10:00:00Z");
    assert.deepEqual(await reminders(s), [], "19:00 in Tokyo is not yet the evening hour");
    await fire("2026-03-02T11:00:00Z");
    const tokyo = ["tok", 'Your streak on "Run" is at risk: check in before the day ends.'];
    assert.deepEqual(await reminders(s), [tokyo], "20:00 in Tokyo");
    await fire("2026-03-02T11:30:00Z");
    assert.deepEqual(await reminders(s), [tokyo], "a second run in the hour sends nothing more");

    await fire("2026-03-02T20:00:00Z");
    const utc = ["utc", 'Your streak on "Walk" is at risk: check in before the day ends.'];
    assert.deepEqual(
      await reminders(s),
      [tokyo, utc],
      "in UTC only the habit not checked in, with a streak, due today, not muted",
    );

    // 01:00 UTC on the 3rd is 20:00 on the 2nd in New York (EST).
    await fire("2026-03-03T01:00:00Z");
    const ny = ["nyc", 'Your streak on "Read" is at risk: check in before the day ends.'];
    assert.deepEqual(await reminders(s), [tokyo, utc, ny]);
    await fire("2026-03-03T02:00:00Z");
    assert.equal((await reminders(s)).length, 3, "once a day");

    // Sunday 2026-03-08 with nothing done this week: skipping it would miss the week.
    await fire("2026-03-08T20:00:00Z");
    assert.deepEqual((await reminders(s)).slice(3), [
      ["weekly", 'Your streak on "Gym" is at risk: check in before the day ends.'],
    ], "the weekly habit is due on the last day it can still be met; broken daily streaks are not");
  } finally {
    await s.close();
  }
});
