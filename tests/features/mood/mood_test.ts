import assert from "node:assert/strict";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const ADD_MOOD = `mutation M($mood: Int!, $note: String, $tags: [String!], $loggedAt: String) {
  addMoodLog(mood: $mood, note: $note, tags: $tags, loggedAt: $loggedAt) {
    moodLog { id mood note tags loggedAt } badgesEarned { code } errors } }`;
const MOODS = `query L($from: String, $to: String) { moodLogs(from: $from, to: $to) {
  id mood tags loggedAt } }`;

Deno.test("mood: logs are validated, listed by range and private", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const first = (await g.data(ADD_MOOD, {
      mood: 4,
      note: " good day ",
      tags: ["Work", "sleep", "work"],
    })).addMoodLog;
    assert.deepEqual(first.errors, []);
    assert.equal(first.moodLog.note, "good day");
    assert.deepEqual(first.moodLog.tags, ["work", "sleep"]);
    assert.equal(first.moodLog.loggedAt, "2026-01-05T12:00:00.000Z");
    assert.deepEqual(first.badgesEarned.map((b: { code: string }) => b.code), ["first_mood_log"]);
    const older = (await g.data(ADD_MOOD, { mood: 2, loggedAt: "2026-01-01T08:00:00Z" }))
      .addMoodLog;
    assert.deepEqual(older.badgesEarned, []);

    for (
      const [vars, pattern] of [
        [{ mood: 0 }, /1 to 5/],
        [{ mood: 6 }, /1 to 5/],
        [{ mood: 3, note: "x".repeat(501) }, /note/],
        [{ mood: 3, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, /at most 10 tags/],
        [{ mood: 3, tags: [""] }, /each tag/],
        [{ mood: 3, tags: ["<script>"] }, /each tag/],
        [{ mood: 3, tags: ["t".repeat(31)] }, /each tag/],
        [{ mood: 3, loggedAt: "2026-01-06T12:00:00Z" }, /future/],
        [{ mood: 3, loggedAt: "2024-01-01T00:00:00Z" }, /within the last/],
        [{ mood: 3, loggedAt: "soon" }, /ISO 8601/],
      ] as [Record<string, unknown>, RegExp][]
    ) {
      const res = (await g.data(ADD_MOOD, vars)).addMoodLog;
      assert.equal(res.moodLog, null, JSON.stringify(vars));
      assert.match(res.errors.join(";"), pattern, JSON.stringify(vars));
    }
    assert.equal(codeOf(await g.run(ADD_MOOD, { mood: 2.5 })), "BAD_USER_INPUT");

    const recent = (await g.data(MOODS, {})).moodLogs;
    assert.deepEqual(recent.map((m: { mood: number }) => m.mood), [4, 2]);
    const ranged = (await g.data(MOODS, {
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-02T00:00:00Z",
    })).moodLogs;
    assert.deepEqual(ranged.map((m: { mood: number }) => m.mood), [2]);
    for (
      const vars of [
        { from: "yesterday" },
        { from: "2026-01-05T00:00:00Z", to: "2026-01-01T00:00:00Z" },
        { from: "2020-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
      ]
    ) {
      assert.equal(codeOf(await g.run(MOODS, vars)), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    assert.deepEqual((await g.data(MOODS, {}, "bob")).moodLogs, []);
  } finally {
    await g.close();
  }
});
