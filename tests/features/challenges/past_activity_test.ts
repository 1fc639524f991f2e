/** The challenges use case of recorded history: `creditPastActivity`. */
import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";
import { createCommunity, SOCIAL } from "../../support/social.ts";
import { creditPastActivity } from "../../../src/features/challenges/service.ts";

const CREATE = `mutation C($communityId: String!, $startsAt: DateTime!, $endsAt: DateTime!) {
  createCommunityChallenge(communityId: $communityId, title: "Spring", metric: check_ins,
    startsAt: $startsAt, endsAt: $endsAt) { challenge { id } ${USER_ERRORS} } }`;
const JOIN_C = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { id } ${USER_ERRORS} } }`;
const SCORE = `query O($id: String!) { communityChallenge(id: $id) {
  viewerParticipation { score } } me { points } }`;

Deno.test("challenges: past activity earns points once and counts where a challenge ran", async () => {
  const s = await setup(SOCIAL);
  try {
    const community = await createCommunity(s, "alice", { name: "Runners" });
    const challenge = (await s.data(CREATE, {
      communityId: community.id,
      startsAt: "2026-03-02T12:00:00Z",
      endsAt: "2026-03-09T12:00:00Z",
    })).createCommunityChallenge.challenge;
    assert.deepEqual(
      (await s.data(JOIN_C, { id: challenge.id })).joinCommunityChallenge.errors,
      [],
    );
    s.clock.set("2026-03-04T12:00:00Z");
    const deps = { db: s.t.deps.db, clock: s.clock };
    const actor = { userId: await s.userId("alice") };
    const at = (iso: string) => new Date(iso);

    const future = await creditPastActivity(deps, actor, {
      activities: [
        { kind: "check_in", goalId: "g1", date: "2026-03-03", at: at("2026-03-03T12:00:00Z") },
        { kind: "check_in", goalId: "g1", date: "2026-03-05", at: at("2026-03-05T12:00:00Z") },
      ],
    });
    assert.deepEqual(future.errors.map((e) => [e.code, e.field]), [
      ["invalid", "activities.1.at"],
    ]);
    assert.deepEqual((await s.data(SCORE, { id: challenge.id })).me.points, 0);

    const activities = [
      // Before the challenge started: points only.
      { kind: "check_in", goalId: "g1", date: "2026-03-01", at: at("2026-03-01T12:00:00Z") },
      { kind: "check_in", goalId: "g1", date: "2026-03-03", at: at("2026-03-03T12:00:00Z") },
      { kind: "check_in", goalId: "g2", date: "2026-03-03", at: at("2026-03-03T13:00:00Z") },
      // A progress event does not count in a check-ins challenge.
      { kind: "goal_event", eventId: "e1", value: 7, at: at("2026-03-03T14:00:00Z") },
    ] as const;
    const credited = await creditPastActivity(deps, actor, { activities });
    assert.deepEqual([credited.credited, credited.errors], [4, []]);
    const read = await s.data(SCORE, { id: challenge.id });
    assert.equal(read.me.points, 3 * 10 + 5);
    assert.deepEqual(read.communityChallenge.viewerParticipation, { score: 2 });

    const again = await creditPastActivity(deps, actor, { activities });
    assert.equal(again.credited, 0, "each activity is credited once");
    assert.deepEqual(await s.data(SCORE, { id: challenge.id }), read);
  } finally {
    await s.close();
  }
});
