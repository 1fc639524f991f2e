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
