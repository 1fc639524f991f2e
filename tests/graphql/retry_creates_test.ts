/**
 * Every create is safe to retry with an `idempotencyKey` (docs/graphql.md, "Retrying mutations"):
 * the same request twice (one after the other, at once, twice in a batch) makes one record and
 * answers the same payload, in both database modes.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { reply } from "../support/fake-llm.ts";
import { assertRetrySafe, rows } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import { createCommunity, SOCIAL } from "../support/social.ts";

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
    // An erasure forgets the user's keys (and the answers kept with them) at once.
    await s.t.app.features.privacy.api.erase(await s.userId("alice"));
    assert.equal(await keys(), 0);
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

const CREATE_COMMUNITY = `mutation C($name: String!, $key: String) {
  createCommunity(name: $name, idempotencyKey: $key) {
    community { id name memberCount viewerRole createdAt } ${USER_ERRORS} } }`;
const CREATE_POST = `mutation P($id: String!, $body: String!, $key: String) {
  createCommunityPost(communityId: $id, body: $body, idempotencyKey: $key) {
    post { id body createdAt author { username } } ${USER_ERRORS} } }`;
const CREATE_CHALLENGE = `mutation C($id: String!, $title: String!, $key: String) {
  createCommunityChallenge(communityId: $id, title: $title, metric: check_ins,
    startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z", idempotencyKey: $key) {
    challenge { id title startsAt endsAt } ${USER_ERRORS} } }`;
const JOIN = `mutation J($id: String!) { joinCommunity(communityId: $id) { ${USER_ERRORS} } }`;

Deno.test("retries: createCommunity, createCommunityPost and createCommunityChallenge", async () => {
  const s = await setup({ ...SOCIAL });
  try {
    await assertRetrySafe(s, {
      mutation: "createCommunity",
      query: CREATE_COMMUNITY,
      // Names are unique: each round creates its own.
      vars: (round) => ({ name: `Climbers ${round}` }),
      otherVars: { name: "Climbers other" },
      object: "community",
      count: () => rows(s, "communities"),
      otherUser: "bob",
      otherUserVars: { name: "Bob's climbers" },
    });
    const c = await createCommunity(s, "alice", { name: "Runners" });
    await s.data(JOIN, { id: c.id }, "bob");
    await assertRetrySafe(s, {
      mutation: "createCommunityPost",
      query: CREATE_POST,
      vars: { id: c.id, body: "Morning run at 7?" },
      otherVars: { id: c.id, body: "Evening run at 7?" },
      object: "post",
      count: () => rows(s, "community_posts"),
      otherUser: "bob",
    });
    await assertRetrySafe(s, {
      mutation: "createCommunityChallenge",
      query: CREATE_CHALLENGE,
      vars: { id: c.id, title: "Week of runs" },
      otherVars: { id: c.id, title: "Week of walks" },
      object: "challenge",
      count: () => rows(s, "community_challenges"),
      otherUser: "bob",
    });
  } finally {
    await s.close();
  }
});

const CREATE_FEEDBACK = `mutation F($title: String!, $key: String) {
  createFeedbackPost(title: $title, description: "Please add it.", category: feature,
    idempotencyKey: $key) { post { id title createdAt author { username } } ${USER_ERRORS} } }`;
const CREATE_COMMENT = `mutation C($id: String!, $body: String!, $key: String) {
  createFeedbackComment(postId: $id, body: $body, idempotencyKey: $key) {
    comment { id body createdAt } post { id commentCount } ${USER_ERRORS} } }`;

Deno.test("retries: createFeedbackPost and createFeedbackComment", async () => {
  const s = await setup({ ...SOCIAL });
  try {
    const post = await assertRetrySafe(s, {
      mutation: "createFeedbackPost",
      query: CREATE_FEEDBACK,
      vars: { title: "Dark mode" },
      otherVars: { title: "Light mode" },
      object: "post",
      count: () => rows(s, "feedback_posts"),
      otherUser: "bob",
    });
    await assertRetrySafe(s, {
      mutation: "createFeedbackComment",
      query: CREATE_COMMENT,
      vars: { id: post.post.id, body: "Yes please" },
      otherVars: { id: post.post.id, body: "No thanks" },
      object: "comment",
      count: () => rows(s, "feedback_comments"),
      otherUser: "bob",
    });
    const counted = await s.data(`query($id: String!) { feedbackPost(id: $id) { commentCount } }`, {
      id: post.post.id,
    });
    assert.equal(counted.feedbackPost.commentCount, await rows(s, "feedback_comments"));
  } finally {
    await s.close();
  }
});

const CREATE_TEAM = `mutation T($name: String!, $key: String) {
  createTeam(name: $name, idempotencyKey: $key) {
    team { id name memberCount viewerRole } ${USER_ERRORS} } }`;
const CREATE_INVITE = `mutation I($teamId: String!, $maxUses: Int, $key: String) {
  createTeamInvite(teamId: $teamId, maxUses: $maxUses, idempotencyKey: $key) {
    invite { id maxUses expiresAt } token ${USER_ERRORS} } }`;
const CREATE_SUB = `mutation S($teamId: String!, $name: String!, $key: String) {
  createSubCommunity(teamId: $teamId, name: $name, open: true, idempotencyKey: $key) {
    subCommunity { id name open memberCount } ${USER_ERRORS} } }`;

Deno.test("retries: createTeam, createTeamInvite (same token) and createSubCommunity", async () => {
  const s = await setup({ ...SOCIAL });
  try {
    // One team per user: each round's request comes from its own user.
    const team = await assertRetrySafe(s, {
      mutation: "createTeam",
      query: CREATE_TEAM,
      vars: { name: "Comets" },
      otherVars: { name: "Meteors" },
      as: (round) => `founder-${round}`,
      object: "team",
      count: () => rows(s, "teams"),
      otherUser: "bob",
    });
    const bobsTeam = (await s.data(`{ myTeam { id } }`, {}, "bob")).myTeam.id;
    const invite = await assertRetrySafe(s, {
      mutation: "createTeamInvite",
      query: CREATE_INVITE,
      vars: { teamId: team.team.id, maxUses: 3 },
      otherVars: { teamId: team.team.id, maxUses: 4 },
      as: "founder-seq",
      object: "invite",
      count: () => rows(s, "team_invites"),
      otherUser: "bob",
      otherUserVars: { teamId: bobsTeam, maxUses: 3 },
    });
    // The replay's token is the one the first answer showed, and it works.
    assert.ok(invite.token);
    const accepted = (await s.data(
      `mutation($t: String!) { acceptTeamInvite(token: $t) { team { id } ${USER_ERRORS} } }`,
      { t: invite.token },
      "carol",
    )).acceptTeamInvite;
    assert.deepEqual(accepted, { team: { id: team.team.id }, errors: [] });
    await assertRetrySafe(s, {
      mutation: "createSubCommunity",
      query: CREATE_SUB,
      vars: (round) => ({ teamId: team.team.id, name: `Lunch runs ${round}` }),
      otherVars: { teamId: team.team.id, name: "Dinner runs" },
      as: "founder-seq",
      object: "subCommunity",
      count: () => rows(s, "team_sub_communities"),
      otherUser: "bob",
      otherUserVars: { teamId: bobsTeam, name: "Lunch runs seq" },
    });
  } finally {
    await s.close();
  }
});

const CREATE_EMPLOYEE = `mutation E($role: String!, $key: String) {
  createAiEmployee(name: "Reporter", role: $role, taskPrompt: "Write the weekly report.",
    idempotencyKey: $key) { employee { id name role createdAt } ${USER_ERRORS} } }`;
const TRIGGER = `mutation T($id: String!, $key: String) {
  triggerAiRun(employeeId: $id, idempotencyKey: $key) {
    run { id status trigger createdAt } ${USER_ERRORS} } }`;

Deno.test("retries: createAiEmployee and triggerAiRun (a run in flight does not refuse a retry)", async () => {
  const s = await setup({ admins: ["root", "root2"] });
  try {
    await assertRetrySafe(s, {
      mutation: "createAiEmployee",
      query: CREATE_EMPLOYEE,
      vars: (round) => ({ role: `reporter_${round}` }),
      otherVars: { role: "reporter_other" },
      as: "root",
      object: "employee",
      count: () => rows(s, "ai_employees"),
      otherUser: "root2",
      otherUserVars: { role: "reporter_root2" },
    });
    const employee = async (role: string) =>
      (await s.data(CREATE_EMPLOYEE, { role }, "root")).createAiEmployee.employee.id;
    const ids = {
      seq: await employee("runner_seq"),
      par: await employee("runner_par"),
      batch: await employee("runner_batch"),
      other: await employee("runner_other"),
    };
    const run = await assertRetrySafe(s, {
      mutation: "triggerAiRun",
      query: TRIGGER,
      // A run in flight refuses another: each round triggers its own employee.
      vars: (round) => ({ id: ids[round] }),
      otherVars: { id: ids.other },
      as: "root",
      object: "run",
      count: () => rows(s, "ai_runs"),
      otherUser: "root2",
      otherUserVars: { id: ids.other },
    });
    assert.equal(run.run.status, "queued");
    // Without the key a second trigger is refused while the run is in flight (spec 3.1).
    const plain = (await s.data(TRIGGER, { id: ids.seq }, "root")).triggerAiRun;
    assert.deepEqual(plain.errors.map((e: { code: string }) => e.code), ["already_running"]);
  } finally {
    await s.close();
  }
});

const MILESTONES = `mutation($id: String!) { generateMilestones(goalId: $id) {
  suggestionId ${USER_ERRORS} } }`;
const ACCEPT_MILESTONES = `mutation A($id: String!, $indexes: [Int!], $key: String) {
  acceptMilestones(suggestionId: $id, indexes: $indexes, idempotencyKey: $key) {
    goals { id title createdAt parent { id } } ${USER_ERRORS} } }`;

Deno.test("retries: acceptMilestones with a key answers the sub-goals it made", async () => {
  const s = await setup({ llm: true });
  try {
    const goal = async (as: string) =>
      (await s.data(ADD_GOAL, { title: "Save", target: 1000 }, as)).addGoal.goal.id;
    const [mine, bobs] = [await goal("alice"), await goal("bob")];
    const suggestion = async (goalId: string, as: string) => {
      s.llm.script(reply.json({
        milestones: [
          { title: "First 250", targetValue: 250, dueDate: null },
          { title: "Half way", targetValue: 500, dueDate: null },
        ],
      }));
      return (await s.data(MILESTONES, { id: goalId }, as)).generateMilestones.suggestionId;
    };
    const ids = {
      seq: await suggestion(mine, "alice"),
      par: await suggestion(mine, "alice"),
      batch: await suggestion(mine, "alice"),
    };
    const accepted = await assertRetrySafe(s, {
      mutation: "acceptMilestones",
      query: ACCEPT_MILESTONES,
      // A suggestion is accepted once: each round accepts its own.
      vars: (round) => ({ id: ids[round] }),
      otherVars: { id: ids.seq, indexes: [0] },
      object: "goals",
      // One accepted suggestion (two sub-goals) per request.
      count: () => rows(s, "milestone_suggestions", "accepted_at is not null"),
      otherUser: "bob",
      otherUserVars: { id: await suggestion(bobs, "bob") },
    });
    assert.equal(accepted.goals.length, 2);
    // Four accepted requests (three rounds and bob's): eight sub-goals, none twice.
    assert.equal(await rows(s, "goals", "parent_id is not null"), 8);
    // Without the key, accepting again answers already_accepted (and makes nothing).
    const again = (await s.data(ACCEPT_MILESTONES, { id: ids.seq })).acceptMilestones;
    assert.deepEqual(again.errors.map((e: { code: string }) => e.code), ["already_accepted"]);
  } finally {
    await s.close();
  }
});
