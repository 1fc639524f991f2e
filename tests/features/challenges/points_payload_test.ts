/**
 * Points and challenge scores are credited by the mutation that earns them: its payload holds the
 * new totals, `me.points` and the leaderboard agree the moment it answers, and the subscribers of
 * the domain events (run afterwards) change nothing.
 */
import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, ADD_TARGET, createCommunity, JOIN, SOCIAL } from "../../support/social.ts";

const SCORES = `challenges { title viewerParticipation { score rank } }`;
const CHECK_IN = `mutation C($goalId: String!, $date: Date) {
  checkInHabit(goalId: $goalId, date: $date) {
    checkIn { id } alreadyCheckedIn points ${SCORES} ${USER_ERRORS} } }`;
const ADD_EVENT = `mutation E($goalId: String!, $value: Float!) {
  addGoalEvent(goalId: $goalId, value: $value) { event { id } points ${SCORES} ${USER_ERRORS} } }`;
const UPDATE_EVENT = `mutation U($id: String!, $value: Float!) {
  updateGoalEvent(eventId: $id, value: $value) { points ${SCORES} ${USER_ERRORS} } }`;
const DELETE_EVENT = `mutation D($id: String!) {
  deleteGoalEvent(eventId: $id) { points ${SCORES} ${USER_ERRORS} } }`;
const UNDO = `mutation U($goalId: String!) {
  undoCheckIn(goalId: $goalId) { points ${USER_ERRORS} } }`;
const DELETE_GOAL = `mutation D($goalId: String!) {
  deleteGoal(goalId: $goalId) { points ${USER_ERRORS} } }`;
const CREATE = `mutation C($communityId: String!, $title: String!, $metric: ChallengeMetric!,
  $entryCost: Int) {
  createCommunityChallenge(communityId: $communityId, title: $title, metric: $metric,
    startsAt: "2026-03-02T00:00:00Z", endsAt: "2026-03-09T00:00:00Z", entryCost: $entryCost) {
    challenge { id } points ${USER_ERRORS} } }`;
const JOIN_C = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { viewerParticipation { entryCostPaid } } points ${USER_ERRORS} } }`;
const LEAVE_C = `mutation L($id: String!) { leaveCommunityChallenge(challengeId: $id) {
  points ${USER_ERRORS} } }`;
const NOW = `query N($c: String!) { me { points } communityChallenges(communityId: $c) {
  nodes { title viewerParticipation { score } } } }`;

/** `me.points` and amy's score in each challenge of the community, read in one request. */
async function now(s: TestSetup, communityId: string) {
  const data = await s.as("amy").data(NOW, { c: communityId });
  return {
    points: data.me.points,
    scores: Object.fromEntries(
      data.communityChallenges.nodes.map((
        n: { title: string; viewerParticipation: { score: number } | null },
      ) => [n.title, n.viewerParticipation?.score ?? null]),
    ),
  };
}

/** Runs `body` on a fresh setup with a public community that amy joined. */
async function inClub(body: (s: TestSetup, c: { id: string }) => Promise<void>) {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "owner", { name: "Points club", visibility: "public" });
    await s.as("amy").data(JOIN, { id: c.id });
    await body(s, c);
  } finally {
    await s.close();
  }
}

Deno.test("points: a check-in and a progress event are credited at once, in the payload and in me", () =>
  inClub(async (s, c) => {
    const created = [];
    for (const [title, metric] of [["Days", "check_ins"], ["Miles", "goal_event_value"]]) {
      const res = (await s.as("owner").data(CREATE, { communityId: c.id, title, metric }))
        .createCommunityChallenge;
      assert.deepEqual([res.errors, res.points], [[], 0]);
      created.push(res.challenge.id);
      assert.deepEqual(
        (await s.as("amy").data(JOIN_C, { id: res.challenge.id }))
          .joinCommunityChallenge.errors,
        [],
      );
    }
    const amy = s.as("amy");
    const habit = (await amy.data(ADD_HABIT, { title: "Walk" })).addGoal.goal;
    const target = (await amy.data(ADD_TARGET, { title: "Run" })).addGoal.goal;

    // A check-in: 10 points and a score of 1, in the payload and everywhere else, no job run.
    const checkIn = (await amy.data(CHECK_IN, { goalId: habit.id })).checkInHabit;
    assert.deepEqual(checkIn.errors, []);
    assert.equal(checkIn.points, 10);
    assert.deepEqual(checkIn.challenges, [
      { title: "Days", viewerParticipation: { score: 1, rank: 1 } },
    ]);
    assert.deepEqual(await now(s, c.id), { points: 10, scores: { Days: 1, Miles: 0 } });
    // The same day again changes nothing and answers the same totals.
    const again = (await amy.data(CHECK_IN, { goalId: habit.id })).checkInHabit;
    assert.deepEqual(
      [again.alreadyCheckedIn, again.points, again.challenges],
      [true, 10, checkIn.challenges],
    );

    // A progress event: 5 points and its value in the sum challenge.
    const event = (await amy.data(ADD_EVENT, { goalId: target.id, value: 2.5 })).addGoalEvent;
    assert.deepEqual([event.errors, event.points, event.challenges], [[], 15, [
      { title: "Miles", viewerParticipation: { score: 2.5, rank: 1 } },
    ]]);
    assert.deepEqual(await now(s, c.id), { points: 15, scores: { Days: 1, Miles: 2.5 } });

    // The subscribers of the domain events run afterwards and credit nothing twice.
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(await now(s, c.id), { points: 15, scores: { Days: 1, Miles: 2.5 } });
    const [{ n }] = await s.t.deps.db.sql`select count(*)::int as n from point_ledger
      where user_id = ${await s.userId("amy")}`;
    assert.equal(n, 2);

    // Edits and undos answer their totals too.
    const updated = (await amy.data(UPDATE_EVENT, { id: event.event.id, value: 4 }))
      .updateGoalEvent;
    assert.deepEqual([updated.errors, updated.points, updated.challenges], [[], 15, [
      { title: "Miles", viewerParticipation: { score: 4, rank: 1 } },
    ]]);
    const deleted = (await amy.data(DELETE_EVENT, { id: event.event.id })).deleteGoalEvent;
    assert.deepEqual([deleted.errors, deleted.points, deleted.challenges], [[], 10, []]);
    const undone = (await amy.data(UNDO, { goalId: habit.id })).undoCheckIn;
    assert.deepEqual([undone.errors, undone.points], [[], 0]);
    assert.deepEqual(await now(s, c.id), { points: 0, scores: { Days: 0, Miles: 0 } });

    // A refused mutation answers the current points and no challenge.
    const refused = (await amy.data(CHECK_IN, { goalId: target.id })).checkInHabit;
    assert.deepEqual([refused.errors.map((e: { code: string }) => e.code), refused.points], [
      ["not_allowed"],
      0,
    ]);
    assert.deepEqual(refused.challenges, []);
    const other = (await s.as("bob").data(ADD_EVENT, { goalId: target.id, value: 1 }))
      .addGoalEvent;
    assert.deepEqual([other.errors[0].code, other.points, other.challenges], ["not_found", 0, []]);
  }));

Deno.test("points: entry costs, refunds and deleted goals are in the payloads", () =>
  inClub(async (s, c) => {
    const amy = s.as("amy");
    const habit = (await amy.data(ADD_HABIT, { title: "Walk" })).addGoal.goal;
    const checkIn = async (date: string) =>
      (await amy.data(CHECK_IN, { goalId: habit.id, date })).checkInHabit.points;
    assert.deepEqual([await checkIn("2026-03-02"), await checkIn("2026-03-01")], [10, 20]);
    const paid = (await s.as("owner").data(CREATE, {
      communityId: c.id,
      title: "Paid",
      metric: "check_ins",
      entryCost: 15,
    })).createCommunityChallenge.challenge;
    const joined = (await amy.data(JOIN_C, { id: paid.id })).joinCommunityChallenge;
    assert.deepEqual([joined.errors, joined.points], [[], 5]);
    assert.equal((await amy.data(`{ me { points } }`)).me.points, 5);
    const left = (await amy.data(LEAVE_C, { id: paid.id })).leaveCommunityChallenge;
    assert.deepEqual([left.errors, left.points], [[], 20]);
    const gone = (await amy.data(DELETE_GOAL, { goalId: habit.id })).deleteGoal;
    assert.deepEqual([gone.errors, gone.points], [[], 0]);
    assert.equal((await amy.data(`{ me { points } }`)).me.points, 0);
  }));

Deno.test("points: concurrent check-ins of one user are each credited once", () =>
  inClub(async (s) => {
    const amy = s.as("amy");
    const habits = [];
    for (let i = 0; i < 4; i++) {
      habits.push((await amy.data(ADD_HABIT, { title: `Habit ${i}` })).addGoal.goal);
    }
    // Each habit twice, all at once: four check-ins, four credits.
    const answers = await Promise.all(
      [...habits, ...habits].map((h) => amy.data(CHECK_IN, { goalId: h.id })),
    );
    assert.ok(answers.every((a) => a.checkInHabit.errors.length === 0));
    assert.equal(answers.filter((a) => !a.checkInHabit.alreadyCheckedIn).length, 4);
    assert.equal((await amy.data(`{ me { points } }`)).me.points, 40);
    await s.t.app.jobs.runUntilIdle();
    assert.equal((await amy.data(`{ me { points } }`)).me.points, 40);
  }));
