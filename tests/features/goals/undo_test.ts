import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { createCommunity, SOCIAL } from "../../support/social.ts";
import { ADD_EVENT, addGoal, CHECK_IN } from "../../support/goals.ts";
import {
  activityRows,
  assertBadgesRecount,
  assertPointsRecount,
  assertScoreRecount,
  assertStreaksRecount,
} from "../../support/recount.ts";

const UNDO = `mutation U($goalId: String!, $date: Date) {
  undoCheckIn(goalId: $goalId, date: $date) {
    checkIn { id date } goal { id currentStreak longestStreak checkedInToday }
    badgesRevoked { code } ${USER_ERRORS} } }`;
const UNDO_AGAIN = `mutation U($goalId: String!, $date: Date) {
  undoCheckIn(goalId: $goalId, date: $date) {
    checkIn { id } goal { id } badgesRevoked { code } alreadyUndone ${USER_ERRORS} } }`;
const UPDATE_EVENT = `mutation U($eventId: String!, $value: Float, $note: String,
  $occurredAt: DateTime) {
  updateGoalEvent(eventId: $eventId, value: $value, note: $note, occurredAt: $occurredAt) {
    event { id value note occurredAt } goal { id status currentValue completedAt }
    goalCompleted goalReopened badgesEarned { code } badgesRevoked { code } ${USER_ERRORS} } }`;
const DELETE_EVENT = `mutation D($eventId: String!) {
  deleteGoalEvent(eventId: $eventId) {
    event { id value } goal { id status currentValue }
    goalCompleted goalReopened badgesEarned { code } badgesRevoked { code } ${USER_ERRORS} } }`;
const DELETE_GOAL = `mutation D($goalId: String!) {
  deleteGoal(goalId: $goalId) { deletedGoalIds badgesRevoked { code } ${USER_ERRORS} } }`;
const CREATE_CHALLENGE = `mutation C($communityId: String!, $metric: ChallengeMetric!,
  $entryCost: Int) {
  createCommunityChallenge(communityId: $communityId, title: "March", metric: $metric,
    startsAt: "2026-03-02T00:00:00Z", endsAt: "2026-03-09T00:00:00Z", entryCost: $entryCost) {
    challenge { id } ${USER_ERRORS} } }`;
const JOIN_CHALLENGE = `mutation J($id: String!) {
  joinCommunityChallenge(challengeId: $id) { ${USER_ERRORS} } }`;
const FEED_KINDS = `{ unifiedFeed(first: 100) { edges { node { kind } } } }`;

const day = (s: TestSetup, back: number) =>
  new Date(s.clock.now().getTime() - back * 86_400_000).toISOString().slice(0, 10);

/** alice in a running challenge of `metric` (entry cost 0 unless given). */
async function inChallenge(s: TestSetup, metric: string, entryCost = 0) {
  const c = await createCommunity(s, "alice", { name: `Club ${crypto.randomUUID().slice(0, 6)}` });
  const res = (await s.data(CREATE_CHALLENGE, { communityId: c.id, metric, entryCost }))
    .createCommunityChallenge;
  assert.deepEqual(res.errors, []);
  return res.challenge.id as string;
}

async function feedKinds(s: TestSetup): Promise<string[]> {
  return (await s.data(FEED_KINDS)).unifiedFeed.edges.map((e: { node: { kind: string } }) =>
    e.node.kind
  );
}

Deno.test("undoCheckIn: streaks, points, leaderboard points, challenge score, badges and feed follow", async () => {
  const s = await setup(SOCIAL);
  try {
    const challenge = await inChallenge(s, "check_ins");
    assert.deepEqual((await s.data(JOIN_CHALLENGE, { id: challenge })).joinCommunityChallenge, {
      errors: [],
    });
    const habit = await addGoal(s, { title: "Run", kind: "habit" });
    for (let back = 6; back >= 0; back--) {
      const res = (await s.data(CHECK_IN, { goalId: habit.id, date: day(s, back) })).checkInHabit;
      assert.deepEqual(res.errors, []);
    }
    await s.t.app.jobs.runUntilIdle();
    const alice = await s.userId("alice");
    assert.equal((await activityRows(s, alice)).checkIns, 7);
    await assertPointsRecount(s, alice);
    await assertScoreRecount(s, alice, 7);
    await assertBadgesRecount(s, alice, 7);

    // Undo a day in the middle: the run splits, streak_7 is no longer shown by the rows.
    const res = (await s.data(UNDO, { goalId: habit.id, date: day(s, 3) })).undoCheckIn;
    assert.deepEqual(res.errors, []);
    assert.equal(res.checkIn.date, day(s, 3));
    assert.deepEqual(res.goal, {
      id: habit.id,
      currentStreak: 3,
      longestStreak: 3,
      checkedInToday: true,
    });
    assert.deepEqual(res.badgesRevoked, [{ code: "streak_7" }]);
    assert.deepEqual(await assertStreaksRecount(s, "alice", habit.id), {
      currentStreak: 3,
      longestStreak: 3,
    });
    await assertPointsRecount(s, alice);
    await assertScoreRecount(s, alice, 6);
    await assertBadgesRecount(s, alice, 3);
    assert.equal((await feedKinds(s)).filter((k) => k === "check_in").length, 6);

    // Undo today (the default), before its credit ran; then check in again and undo again.
    assert.deepEqual((await s.data(UNDO, { goalId: habit.id })).undoCheckIn.errors, []);
    assert.deepEqual((await s.data(CHECK_IN, { goalId: habit.id })).checkInHabit.errors, []);
    assert.deepEqual((await s.data(UNDO, { goalId: habit.id })).undoCheckIn.errors, []);
    await s.t.app.jobs.runUntilIdle();
    await assertPointsRecount(s, alice);
    await assertScoreRecount(s, alice, 5);
    // Checked in again after the undo: credited once more.
    assert.deepEqual((await s.data(CHECK_IN, { goalId: habit.id })).checkInHabit.errors, []);
    await s.t.app.jobs.runUntilIdle();
    await assertPointsRecount(s, alice);
    await assertScoreRecount(s, alice, 6);

    // Refusals change nothing.
    const before = await activityRows(s, alice);
    const refused = async (vars: Record<string, unknown>, as = "alice") =>
      (await s.data(UNDO, vars, as)).undoCheckIn;
    // A day without a check-in (undone already): the habit as it is, with alreadyUndone.
    const none = (await s.data(UNDO_AGAIN, { goalId: habit.id, date: day(s, 3) })).undoCheckIn;
    assert.deepEqual(none, {
      checkIn: null,
      goal: { id: habit.id },
      badgesRevoked: [],
      alreadyUndone: true,
      errors: [],
    });
    assert.equal(
      (await refused({ goalId: habit.id, date: day(s, 8) })).errors[0].code,
      "undo_expired",
    );
    assert.equal((await refused({ goalId: habit.id, date: day(s, -1) })).errors[0].code, "invalid");
    assert.deepEqual((await refused({ goalId: habit.id }, "bob")).errors, [{
      code: "not_found",
      message: "no such goal of yours",
      field: "goalId",
    }]);
    assert.equal((await refused({ goalId: "not an id" })).errors[0].code, "not_found");
    const target = await addGoal(s, { title: "Read", kind: "target", targetValue: 5 });
    assert.equal((await refused({ goalId: target.id })).errors[0].code, "not_allowed");
    assert.equal(
      codeOf(await s.run(UNDO, { goalId: habit.id, date: "2026-02-30" })),
      "BAD_USER_INPUT",
    );
    assert.deepEqual(await activityRows(s, alice), { ...before, goals: before.goals + 1 });
  } finally {
    await s.close();
  }
});

Deno.test("undoCheckIn: points already spent are kept, the ledger records the shortfall", async () => {
  const s = await setup(SOCIAL);
  try {
    const habit = await addGoal(s, { title: "Run", kind: "habit" });
    for (const back of [1, 0]) await s.data(CHECK_IN, { goalId: habit.id, date: day(s, back) });
    await s.t.app.jobs.runUntilIdle();
    const challenge = await inChallenge(s, "check_ins", 20);
    assert.deepEqual((await s.data(JOIN_CHALLENGE, { id: challenge })).joinCommunityChallenge, {
      errors: [],
    });
    assert.deepEqual((await s.data(UNDO, { goalId: habit.id })).undoCheckIn.errors, []);
    const alice = await s.userId("alice");
    assert.equal((await s.data(`{ me { points } }`)).me.points, 0);
    await assertPointsRecount(s, alice, 20);
  } finally {
    await s.close();
  }
});

Deno.test("updateGoalEvent and deleteGoalEvent: value, status, score, points and badges follow", async () => {
  const s = await setup(SOCIAL);
  try {
    const challenge = await inChallenge(s, "goal_event_value");
    await s.data(JOIN_CHALLENGE, { id: challenge });
    const target = await addGoal(s, { title: "Read", kind: "target", targetValue: 10 });
    const add = async (value: number) =>
      (await s.data(ADD_EVENT, { goalId: target.id, value })).addGoalEvent;
    const four = (await add(4)).event;
    const six = await add(6);
    assert.equal(six.goalCompleted, true);
    await s.t.app.jobs.runUntilIdle();
    const alice = await s.userId("alice");
    await assertScoreRecount(s, alice, 10);
    await assertBadgesRecount(s, alice, 1);

    // Lowering the completing event reopens the target and takes back goal_completed.
    const lowered = (await s.data(UPDATE_EVENT, { eventId: six.event.id, value: 2, note: " x " }))
      .updateGoalEvent;
    assert.deepEqual(lowered.errors, []);
    assert.equal(lowered.event.value, 2);
    assert.equal(lowered.event.note, "x");
    assert.deepEqual(lowered.goal, {
      id: target.id,
      status: "active",
      currentValue: 6,
      completedAt: null,
    });
    assert.equal(lowered.goalReopened, true);
    assert.deepEqual(lowered.badgesRevoked, [{ code: "goal_completed" }]);
    assert.equal((await feedKinds(s)).includes("goal_completed"), false);
    await assertScoreRecount(s, alice, 6);
    await assertPointsRecount(s, alice);
    await assertBadgesRecount(s, alice, 1);

    // Raising it again completes the target once more.
    const raised = (await s.data(UPDATE_EVENT, { eventId: six.event.id, value: 7 }))
      .updateGoalEvent;
    assert.equal(raised.goalCompleted, true);
    assert.deepEqual(raised.badgesEarned, [{ code: "goal_completed" }]);
    await assertScoreRecount(s, alice, 11);

    // Moving an event two days back moves its leaderboard point; streaks recount the same.
    const moved = (await s.data(UPDATE_EVENT, {
      eventId: four.id,
      occurredAt: new Date(s.clock.now().getTime() - 2 * 86_400_000).toISOString(),
    })).updateGoalEvent;
    assert.deepEqual(moved.errors, []);
    // Now before the challenge started: it no longer counts there.
    await assertScoreRecount(s, alice, 7);
    await assertPointsRecount(s, alice);
    await assertStreaksRecount(s, "alice", target.id);

    // An event edited before its credit ran is credited as it is now.
    const late = (await add(3)).event;
    await s.data(UPDATE_EVENT, { eventId: late.id, value: 5 });
    await s.t.app.jobs.runUntilIdle();
    await assertScoreRecount(s, alice, 12);
    await assertPointsRecount(s, alice);

    // Deleting events: completion undone, score and points recounted, first_progress at the end.
    const gone = (await s.data(DELETE_EVENT, { eventId: six.event.id })).deleteGoalEvent;
    assert.deepEqual(gone.errors, []);
    assert.equal(gone.event.value, 7);
    assert.equal(gone.goalReopened, true);
    assert.equal(gone.goal.currentValue, 9);
    await assertScoreRecount(s, alice, 5);
    await assertPointsRecount(s, alice);
    await s.data(DELETE_EVENT, { eventId: four.id });
    const last = (await s.data(DELETE_EVENT, { eventId: late.id })).deleteGoalEvent;
    assert.deepEqual(last.badgesRevoked, [{ code: "first_progress" }]);
    await assertScoreRecount(s, alice, 0);
    await assertPointsRecount(s, alice);
    await assertBadgesRecount(s, alice, 0);
    assert.equal((await feedKinds(s)).includes("goal_event"), false);

    // Refusals change nothing.
    const kept = (await add(1)).event;
    const refused = async (q: string, vars: Record<string, unknown>, as = "alice") => {
      const data = await s.data(q, vars, as);
      return (data.updateGoalEvent ?? data.deleteGoalEvent).errors;
    };
    const noEvent = [{ code: "not_found", message: "no such event of yours", field: "eventId" }];
    assert.deepEqual(await refused(UPDATE_EVENT, { eventId: kept.id, value: 3 }, "bob"), noEvent);
    assert.deepEqual(await refused(DELETE_EVENT, { eventId: kept.id }, "bob"), noEvent);
    assert.deepEqual(await refused(DELETE_EVENT, { eventId: "nope" }), noEvent);
    assert.equal((await refused(UPDATE_EVENT, { eventId: kept.id }))[0].code, "invalid");
    assert.deepEqual(await refused(UPDATE_EVENT, { eventId: kept.id, value: 0 }), [{
      code: "invalid",
      message: "value must not be 0",
      field: "value",
    }]);
    assert.equal(
      (await refused(UPDATE_EVENT, { eventId: kept.id, occurredAt: "2030-01-01T00:00:00Z" }))[0]
        .field,
      "occurredAt",
    );
    await s.data(
      `mutation A($id: String!) { updateGoal(goalId: $id, status: archived) {
      ${USER_ERRORS} } }`,
      { id: target.id },
    );
    assert.equal((await refused(DELETE_EVENT, { eventId: kept.id }))[0].code, "not_allowed");
    assert.equal((await activityRows(s, alice)).events, 1);
  } finally {
    await s.close();
  }
});

Deno.test("deleteGoal: the goal, its sub-goals and their activity go; everything recounts", async () => {
  const s = await setup(SOCIAL);
  try {
    const challenge = await inChallenge(s, "check_ins");
    await s.data(JOIN_CHALLENGE, { id: challenge });
    const keep = await addGoal(s, { title: "Keep", kind: "habit" });
    await s.data(CHECK_IN, { goalId: keep.id });
    const parent = await addGoal(s, { title: "Run", kind: "habit" });
    const sub = await addGoal(s, {
      title: "Km",
      kind: "target",
      targetValue: 3,
      parentGoalId: parent.id,
    });
    for (let back = 7; back >= 0; back--) {
      await s.data(CHECK_IN, { goalId: parent.id, date: day(s, back) });
    }
    for (const value of [1, 2]) await s.data(ADD_EVENT, { goalId: sub.id, value });
    await s.t.app.jobs.runUntilIdle();
    const alice = await s.userId("alice");
    await assertScoreRecount(s, alice, 9);
    await assertBadgesRecount(s, alice, 8);

    const statements = [];
    const res = (await s.data(DELETE_GOAL, { goalId: parent.id })).deleteGoal;
    statements.push(s.lastStatements());
    assert.deepEqual(res.errors, []);
    assert.deepEqual(new Set(res.deletedGoalIds), new Set([parent.id, sub.id]));
    assert.deepEqual(
      new Set(res.badgesRevoked.map((b: { code: string }) => b.code)),
      new Set(["streak_7", "first_progress", "goal_completed"]),
    );
    assert.equal(
      (await s.data(`query G($id: String!) { goal(id: $id) { id } }`, { id: sub.id }))
        .goal,
      null,
    );
    await assertPointsRecount(s, alice);
    await assertScoreRecount(s, alice, 1);
    await assertBadgesRecount(s, alice, 1);
    assert.deepEqual((await feedKinds(s)).sort(), ["badge_earned", "badge_earned", "check_in"]);

    // A bounded number of statements, the same for a goal of one check-in as for one of five.
    for (const days of [1, 5]) {
      const goal = await addGoal(s, { title: `G${days}`, kind: "habit" });
      for (let back = 0; back < days; back++) {
        await s.data(CHECK_IN, { goalId: goal.id, date: day(s, back) });
      }
      await s.data(DELETE_GOAL, { goalId: goal.id });
      statements.push(s.lastStatements());
    }
    assert.equal(statements[1], statements[2]);
    assert.ok(Math.max(...statements) <= 16, `statements: ${statements}`);

    // Another user's goal, or none: not_found, nothing changed.
    const noGoal = [{ code: "not_found", message: "no such goal of yours", field: "goalId" }];
    assert.deepEqual(
      (await s.data(DELETE_GOAL, { goalId: keep.id }, "bob")).deleteGoal.errors,
      noGoal,
    );
    assert.deepEqual((await s.data(DELETE_GOAL, { goalId: parent.id })).deleteGoal.errors, noGoal);
    assert.equal((await activityRows(s, alice)).checkIns, 1);
  } finally {
    await s.close();
  }
});

Deno.test("undoCheckIn and deleteGoalEvent racing their credits: whichever runs first, nothing is left credited", async () => {
  const s = await setup(SOCIAL);
  try {
    const challenge = await inChallenge(s, "check_ins");
    await s.data(JOIN_CHALLENGE, { id: challenge });
    const habit = await addGoal(s, { title: "Run", kind: "habit" });
    const target = await addGoal(s, { title: "Km", kind: "target", targetValue: 1000 });
    const alice = await s.userId("alice");
    for (let round = 0; round < 4; round++) {
      assert.deepEqual((await s.data(CHECK_IN, { goalId: habit.id })).checkInHabit.errors, []);
      const event = (await s.data(ADD_EVENT, { goalId: target.id, value: 2 })).addGoalEvent.event;
      const [undo, del] = await Promise.all([
        s.data(UNDO, { goalId: habit.id }),
        s.data(DELETE_EVENT, { eventId: event.id }),
        s.t.app.jobs.runUntilIdle(),
      ]);
      assert.deepEqual(undo.undoCheckIn.errors, []);
      assert.deepEqual(del.deleteGoalEvent.errors, []);
      await s.t.app.jobs.runUntilIdle();
      await assertPointsRecount(s, alice);
      await assertScoreRecount(s, alice, 0);
    }
  } finally {
    await s.close();
  }
});

Deno.test("deleteGoal racing check-ins and events on the goal: each answers a payload, nothing is left", async () => {
  const s = await setup(SOCIAL);
  try {
    await s.idOf("alice");
    const alice = await s.userId("alice");
    for (let round = 0; round < 3; round++) {
      const habit = await addGoal(s, { title: `H${round}`, kind: "habit" });
      const target = await addGoal(s, {
        title: `T${round}`,
        kind: "target",
        targetValue: 5,
        parentGoalId: habit.id,
      });
      const results = await Promise.all([
        s.data(CHECK_IN, { goalId: habit.id }),
        s.data(DELETE_GOAL, { goalId: habit.id }),
        s.data(ADD_EVENT, { goalId: target.id, value: 1 }),
        s.data(CHECK_IN, { goalId: habit.id, date: day(s, 1) }),
        s.t.app.jobs.runUntilIdle(),
      ]);
      assert.deepEqual(results[1].deleteGoal.errors, []);
      for (const r of [results[0].checkInHabit, results[2].addGoalEvent, results[3].checkInHabit]) {
        assert.ok(
          r.errors.length === 0 || r.errors[0].code === "not_found",
          JSON.stringify(r.errors),
        );
      }
      await s.t.app.jobs.runUntilIdle();
      assert.deepEqual(await activityRows(s, alice), {
        checkIns: 0,
        events: 0,
        valueSum: 0,
        goals: 0,
      });
      await assertPointsRecount(s, alice);
    }
  } finally {
    await s.close();
  }
});
