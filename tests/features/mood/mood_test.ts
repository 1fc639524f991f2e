import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const ADD_MOOD = `mutation M($mood: Int!, $note: String, $tags: [String!], $loggedAt: DateTime) {
  addMoodLog(mood: $mood, note: $note, tags: $tags, loggedAt: $loggedAt) {
    moodLog { id mood note tags loggedAt } badgesEarned { code } ${USER_ERRORS} } }`;
const MOODS = `query L($from: DateTime, $to: DateTime, $first: Int, $after: String, $last: Int,
  $before: String) {
  moodLogs(from: $from, to: $to, first: $first, after: $after, last: $last, before: $before) {
    totalCount nodes { id mood tags loggedAt }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
const moods = (c: { nodes: { mood: number }[] }) => c.nodes.map((m) => m.mood);

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
      const [vars, pattern, field] of [
        [{ mood: 0 }, /1 to 5/, "mood"],
        [{ mood: 6 }, /1 to 5/, "mood"],
        [{ mood: 3, note: "x".repeat(501) }, /note/, "note"],
        [
          { mood: 3, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) },
          /at most 10 tags/,
          "tags",
        ],
        [{ mood: 3, tags: [""] }, /each tag/, "tags"],
        [{ mood: 3, tags: ["<script>"] }, /each tag/, "tags"],
        [{ mood: 3, tags: ["t".repeat(31)] }, /each tag/, "tags"],
        [{ mood: 3, loggedAt: "2026-01-06T12:00:00Z" }, /future/, "loggedAt"],
        [{ mood: 3, loggedAt: "2024-01-01T00:00:00Z" }, /within the last/, "loggedAt"],
      ] as [Record<string, unknown>, RegExp, string][]
    ) {
      const res = (await g.data(ADD_MOOD, vars)).addMoodLog;
      assert.equal(res.moodLog, null, JSON.stringify(vars));
      assert.equal(res.errors.length, 1, JSON.stringify(vars));
      assert.match(res.errors[0].message, pattern, JSON.stringify(vars));
      assert.deepEqual([res.errors[0].code, res.errors[0].field], ["invalid", field]);
    }
    assert.equal(codeOf(await g.run(ADD_MOOD, { mood: 2.5 })), "BAD_USER_INPUT");
    const soon = await g.run(ADD_MOOD, { mood: 3, loggedAt: "soon" });
    assert.equal(codeOf(soon), "BAD_USER_INPUT");
    assert.match(soon.body.errors[0].message, /loggedAt/);

    const recent = (await g.data(MOODS, {})).moodLogs;
    assert.deepEqual(moods(recent), [4, 2]);
    assert.equal(recent.totalCount, 2);
    const ranged = (await g.data(MOODS, {
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-02T00:00:00Z",
    })).moodLogs;
    assert.deepEqual(moods(ranged), [2]);
    assert.equal(ranged.totalCount, 1);
    for (
      const vars of [
        { from: "yesterday" },
        { from: "2026-01-05" },
        { from: "2026-01-05T00:00:00Z", to: "2026-01-01T00:00:00Z" },
        { from: "2020-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
      ]
    ) {
      assert.equal(codeOf(await g.run(MOODS, vars)), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    assert.deepEqual((await g.data(MOODS, {}, "bob")).moodLogs.nodes, []);
  } finally {
    await g.close();
  }
});

Deno.test("mood: moodLogs pages both ways with no cap", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    for (let i = 1; i <= 5; i++) {
      g.clock.advance(60_000);
      const res = (await g.data(ADD_MOOD, { mood: i })).addMoodLog;
      assert.deepEqual(res.errors, []);
    }
    const first = (await g.data(MOODS, { first: 2 })).moodLogs;
    assert.deepEqual(moods(first), [5, 4]);
    assert.equal(first.totalCount, 5);
    assert.equal(first.pageInfo.hasNextPage, true);
    const rest = (await g.data(MOODS, { first: 10, after: first.pageInfo.endCursor })).moodLogs;
    assert.deepEqual(moods(rest), [3, 2, 1]);
    assert.equal(rest.pageInfo.hasNextPage, false);
    assert.equal(rest.pageInfo.hasPreviousPage, true);
    const last = (await g.data(MOODS, { last: 2 })).moodLogs;
    assert.deepEqual(moods(last), [2, 1]);
    assert.equal(last.pageInfo.hasPreviousPage, true);
    const before = (await g.data(MOODS, { last: 2, before: last.pageInfo.startCursor })).moodLogs;
    assert.deepEqual(moods(before), [4, 3]);
    assert.equal(before.pageInfo.hasNextPage, true);
  } finally {
    await g.close();
  }
});
