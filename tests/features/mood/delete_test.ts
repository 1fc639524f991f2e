import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const ADD = `mutation M($mood: Int!) {
  addMoodLog(mood: $mood) { moodLog { id } ${USER_ERRORS} } }`;
const DELETE = `mutation D($id: String!) {
  deleteMoodLog(id: $id) { moodLog { id mood } badgesRevoked { code } ${USER_ERRORS} } }`;
const COUNT = `{ moodLogs { totalCount } me { badges { code } } }`;

Deno.test("deleteMoodLog: one's own logs only; first_mood_log goes with the last one", async () => {
  const s = await setup();
  try {
    const ids: string[] = [];
    for (const mood of [3, 4]) ids.push((await s.data(ADD, { mood })).addMoodLog.moodLog.id);
    const notFound = [{ code: "not_found", message: "no such mood log of yours", field: "id" }];
    // Another user's log, a malformed id: not_found, nothing deleted.
    assert.deepEqual((await s.data(DELETE, { id: ids[0] }, "bob")).deleteMoodLog.errors, notFound);
    assert.deepEqual((await s.data(DELETE, { id: "??" })).deleteMoodLog.errors, notFound);
    assert.equal((await s.data(COUNT)).moodLogs.totalCount, 2);

    const first = (await s.data(DELETE, { id: ids[0] })).deleteMoodLog;
    assert.deepEqual(first, { moodLog: { id: ids[0], mood: 3 }, badgesRevoked: [], errors: [] });
    assert.deepEqual((await s.data(DELETE, { id: ids[0] })).deleteMoodLog.errors, notFound);
    const last = (await s.data(DELETE, { id: ids[1] })).deleteMoodLog;
    assert.deepEqual(last.badgesRevoked, [{ code: "first_mood_log" }]);
    assert.deepEqual(await s.data(COUNT), { moodLogs: { totalCount: 0 }, me: { badges: [] } });
    // Logging again earns it again.
    await s.data(ADD, { mood: 5 });
    assert.deepEqual((await s.data(COUNT)).me.badges, [{ code: "first_mood_log" }]);
  } finally {
    await s.close();
  }
});
