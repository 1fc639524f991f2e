/**
 * Every create is safe to retry with an `idempotencyKey` (docs/graphql.md, "Retrying mutations"):
 * the same request twice (one after the other, at once, twice in a batch) makes one record and
 * answers the same payload, in both database modes.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { assertRetrySafe, rows } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";

const HOUR_MS = 3_600_000;

const ADD_MOOD = `mutation M($mood: Int!, $note: String, $tags: [String!], $key: String) {
  addMoodLog(mood: $mood, note: $note, tags: $tags, idempotencyKey: $key) {
    moodLog { id mood note tags loggedAt createdAt } badgesEarned { code } ${USER_ERRORS} } }`;

Deno.test("retries: addMoodLog with a key logs once; without one, twice; keys expire after a day", async () => {
  const s = await setup();
  try {
    const count = () => rows(s, "mood_logs");
    const first = await assertRetrySafe(s, {
      mutation: "addMoodLog",
      query: ADD_MOOD,
      vars: { mood: 4, note: "fine", tags: ["work"] },
      otherVars: { mood: 3, note: "fine", tags: ["work"] },
      object: "moodLog",
      count,
      otherUser: "bob",
    });
    // The replay is the first answer, badges included.
    assert.deepEqual(first.badgesEarned, [{ code: "first_mood_log" }]);
    // Null counts as absent, and the members' order does not matter.
    const same = (await s.data(ADD_MOOD, {
      tags: ["work"],
      note: "fine",
      mood: 4,
      key: "addMoodLog-seq",
    })).addMoodLog;
    assert.deepEqual(same, first);

    // Without a key every request is a new one.
    const before = await count();
    await s.data(ADD_MOOD, { mood: 2 });
    await s.data(ADD_MOOD, { mood: 2 });
    assert.equal(await count(), before + 2);

    // A refused request keeps no key: its retry is judged afresh.
    const refused = (await s.data(ADD_MOOD, { mood: 9, key: "fix-me" })).addMoodLog;
    assert.deepEqual(refused.errors.map((e: { code: string }) => e.code), ["invalid"]);
    const fixed = (await s.data(ADD_MOOD, { mood: 5, key: "fix-me" })).addMoodLog;
    assert.deepEqual(fixed.errors, []);
    assert.equal(fixed.moodLog.mood, 5);

    // A day later the key is forgotten: the same request is a new one, and the schedule prunes.
    s.clock.advance(24 * HOUR_MS + 1);
    const later =
      (await s.data(ADD_MOOD, { mood: 4, note: "fine", tags: ["work"], key: "addMoodLog-seq" }))
        .addMoodLog;
    assert.deepEqual(later.errors, []);
    assert.notEqual(later.moodLog.id, first.moodLog.id);
    const keys = () => rows(s, "idempotency_keys");
    assert.ok(await keys() > 1);
    const prune = s.t.app.features.privacy.schedules!.find((x) =>
      x.name === "privacy.prune_idempotency_keys"
    )!;
    await prune.run(s.clock.now());
    assert.equal(await keys(), 1, "only the key of the day remains");
  } finally {
    await s.close();
  }
});

const ADD_GOAL = `mutation G($title: String!, $target: Float, $key: String) {
  addGoal(title: $title, kind: target, startValue: 10, targetValue: $target, idempotencyKey: $key) {
    goal { id title targetValue currentValue createdAt } badgesEarned { code } ${USER_ERRORS} } }`;
const ADD_EVENT = `mutation E($goalId: String!, $value: Float!, $key: String) {
  addGoalEvent(goalId: $goalId, value: $value, idempotencyKey: $key) {
    event { id value occurredAt } goal { id currentValue } goalCompleted badgesEarned { code }
    ${USER_ERRORS} } }`;

Deno.test("retries: addGoal and addGoalEvent with a key create once (no doubled progress)", async () => {
  const s = await setup();
  try {
    const goal = await assertRetrySafe(s, {
      mutation: "addGoal",
      query: ADD_GOAL,
      vars: { title: "Run", target: 100 },
      otherVars: { title: "Run", target: 50 },
      object: "goal",
      count: () => rows(s, "goals"),
      otherUser: "bob",
    });
    assert.deepEqual(goal.badgesEarned, [{ code: "first_goal" }]);
    const bobs = (await s.data(ADD_GOAL, { title: "Bob's", target: 100 }, "bob")).addGoal.goal;

    // The offline queue's replay: 10 + 2.5 is 12.5, however often it is sent.
    const progress = { goalId: goal.goal.id, value: 2.5, key: "queued-1" };
    const once = (await s.data(ADD_EVENT, progress)).addGoalEvent;
    assert.equal(once.goal.currentValue, 12.5);
    assert.deepEqual((await s.data(ADD_EVENT, progress)).addGoalEvent, once);
    const now = `query($id: String!) { goal(id: $id) { currentValue } }`;
    assert.equal((await s.data(now, { id: goal.goal.id })).goal.currentValue, 12.5);

    await assertRetrySafe(s, {
      mutation: "addGoalEvent",
      query: ADD_EVENT,
      vars: { goalId: goal.goal.id, value: 1 },
      otherVars: { goalId: goal.goal.id, value: 2 },
      object: "event",
      count: () => rows(s, "goal_events"),
      otherUser: "bob",
      otherUserVars: { goalId: bobs.id, value: 1 },
    });
    assert.equal((await s.data(now, { id: goal.goal.id })).goal.currentValue, 15.5);
  } finally {
    await s.close();
  }
});
