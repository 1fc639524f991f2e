/**
 * Every delete is safe to retry with an `idempotencyKey` (docs/graphql.md, "Retrying mutations"):
 * the same request twice (one after the other, at once, twice in a batch) deletes once and
 * answers the first answer, where without the key the repeat answers not_found; in both database
 * modes.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../support/setup.ts";
import { assertRetrySafe, type Round, rows } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import { createCommunity, SOCIAL } from "../support/social.ts";

type Target = Round | "other" | "plain";

interface DeleteCase {
  mutation: string;
  /** The operation; it declares `$id: String!` and `$key: String`. */
  query: string;
  /** The payload's field that answers what was deleted. */
  object: string;
  /** Makes a record to delete as `as`; its public id. */
  make: (target: Target, as: string) => Promise<string>;
  /** How many of the records made are left. */
  left: () => Promise<number>;
  /** Who deletes (default the setup's user); per round when records are one per user. */
  as?: (target: Target) => string;
  /** Another user, who deletes a record of their own with the same key. */
  otherUser: string;
}

/**
 * The retry checks of `assertRetrySafe` on a delete: each round deletes its own record, another
 * record answers the reuse of a key; then a delete without the key, twice: the repeat answers
 * not_found, as before.
 */
async function assertDeleteRetrySafe(s: TestSetup, c: DeleteCase) {
  const who = (target: Target) => c.as?.(target) ?? "alice";
  const targets: Target[] = ["seq", "par", "batch", "other", "plain"];
  const ids = Object.fromEntries(
    await Promise.all(targets.map(async (t) => [t, await c.make(t, who(t))])),
  ) as Record<Target, string>;
  const theirs = await c.make("other", c.otherUser);
  const made = targets.length + 1;
  const first = await assertRetrySafe(s, {
    mutation: c.mutation,
    query: c.query,
    vars: (round) => ({ id: ids[round] }),
    otherVars: { id: ids.other },
    object: c.object,
    as: c.as ? (round) => who(round) : undefined,
    count: async () => made - await c.left(),
    otherUser: c.otherUser,
    otherUserVars: { id: theirs },
  });
  assert.equal(made - await c.left(), 4, `${c.mutation}: three rounds and the other user's`);

  const plain = async () =>
    (await s.data(c.query, { id: ids.plain }, who("plain")))[c.mutation].errors.map((
      e: { code: string },
    ) => e.code);
  assert.deepEqual(await plain(), [], `${c.mutation} without a key`);
  assert.deepEqual(await plain(), ["not_found"], `${c.mutation}: a repeat without a key`);
  return first;
}

const ADD_MOOD = `mutation { addMoodLog(mood: 3) { moodLog { id } ${USER_ERRORS} } }`;
const DELETE_MOOD = `mutation D($id: String!, $key: String) {
  deleteMoodLog(id: $id, idempotencyKey: $key) {
    moodLog { id mood loggedAt } badgesRevoked { code } ${USER_ERRORS} } }`;

const ADD_GOAL = `mutation G($title: String!) {
  addGoal(title: $title, kind: target, targetValue: 100) { goal { id } ${USER_ERRORS} } }`;
const ADD_SUB_GOAL = `mutation S($parent: String!) {
  addGoal(title: "Part", kind: target, targetValue: 10, parentGoalId: $parent) {
    goal { id } ${USER_ERRORS} } }`;
const DELETE_GOAL = `mutation D($id: String!, $key: String) {
  deleteGoal(goalId: $id, idempotencyKey: $key) {
    deletedGoalIds badgesRevoked { code } ${USER_ERRORS} } }`;
const ADD_EVENT = `mutation E($goalId: String!) {
  addGoalEvent(goalId: $goalId, value: 5) { event { id } ${USER_ERRORS} } }`;
const DELETE_EVENT = `mutation D($id: String!, $key: String) {
  deleteGoalEvent(eventId: $id, idempotencyKey: $key) {
    event { id value } goal { id currentValue } goalReopened badgesRevoked { code }
    ${USER_ERRORS} } }`;

Deno.test("retries: deleteMoodLog, deleteGoal and deleteGoalEvent with a key delete once", async () => {
  const s = await setup();
  try {
    await assertDeleteRetrySafe(s, {
      mutation: "deleteMoodLog",
      query: DELETE_MOOD,
      object: "moodLog",
      make: async (_, as) => (await s.data(ADD_MOOD, {}, as)).addMoodLog.moodLog.id,
      left: () => rows(s, "mood_logs"),
      otherUser: "bob",
    });

    const goal = async (title: string, as: string) =>
      (await s.data(ADD_GOAL, { title }, as)).addGoal.goal.id;
    const deleted = await assertDeleteRetrySafe(s, {
      mutation: "deleteGoal",
      query: DELETE_GOAL,
      object: "deletedGoalIds",
      make: async (target, as) => {
        const id = await goal(`Goal ${target}`, as);
        await s.data(ADD_SUB_GOAL, { parent: id }, as);
        return id;
      },
      // The goals left that are not sub-goals.
      left: () => rows(s, "goals", "parent_id is null"),
      otherUser: "bob",
    });
    assert.equal(deleted.deletedGoalIds.length, 2, "the goal and its sub-goal");
    // The goal left (of the reused key) keeps its sub-goal; the others went with theirs.
    assert.equal(await rows(s, "goals", "parent_id is not null"), 1);

    const mine = await goal("Run", "alice");
    const bobs = await goal("Bob's run", "bob");
    const event = await assertDeleteRetrySafe(s, {
      mutation: "deleteGoalEvent",
      query: DELETE_EVENT,
      object: "event",
      make: async (_, as) =>
        (await s.data(ADD_EVENT, { goalId: as === "bob" ? bobs : mine }, as)).addGoalEvent.event
          .id,
      left: () => rows(s, "goal_events"),
      otherUser: "bob",
    });
    assert.equal(event.event.value, 5);
    // One event of five left: the progress went down once per request, not per retry.
    const now = `query($id: String!) { goal(id: $id) { currentValue } }`;
    assert.equal((await s.data(now, { id: mine })).goal.currentValue, 5);
  } finally {
    await s.close();
  }
});

const POST = `mutation P($id: String!) {
  createCommunityPost(communityId: $id, body: "See you at 7") { post { id } ${USER_ERRORS} } }`;
const DELETE_POST = `mutation D($id: String!, $key: String) {
  deleteCommunityPost(postId: $id, idempotencyKey: $key) { post { id body } ${USER_ERRORS} } }`;
const FEEDBACK = `mutation F($title: String!) {
  createFeedbackPost(title: $title, description: "Please.", category: feature) {
    post { id } ${USER_ERRORS} } }`;
const DELETE_FEEDBACK = `mutation D($id: String!, $key: String) {
  deleteFeedbackPost(postId: $id, idempotencyKey: $key) { deletedPostId ${USER_ERRORS} } }`;
const CREATE_TEAM = `mutation T($name: String!) {
  createTeam(name: $name) { team { id } ${USER_ERRORS} } }`;
const DELETE_TEAM = `mutation D($id: String!, $key: String) {
  deleteTeam(teamId: $id, idempotencyKey: $key) { deletedTeamId ${USER_ERRORS} } }`;

Deno.test("retries: deleteCommunityPost, deleteFeedbackPost and deleteTeam with a key delete once", async () => {
  const s = await setup({ ...SOCIAL });
  try {
    const community = await createCommunity(s, "alice", { name: "Runners" });
    await s.data(`mutation($id: String!) { joinCommunity(communityId: $id) { ${USER_ERRORS} } }`, {
      id: community.id,
    }, "bob");
    await assertDeleteRetrySafe(s, {
      mutation: "deleteCommunityPost",
      query: DELETE_POST,
      object: "post",
      make: async (_, as) =>
        (await s.data(POST, { id: community.id }, as)).createCommunityPost.post.id,
      left: () => rows(s, "community_posts"),
      otherUser: "bob",
    });

    await assertDeleteRetrySafe(s, {
      mutation: "deleteFeedbackPost",
      query: DELETE_FEEDBACK,
      object: "deletedPostId",
      make: async (target, as) =>
        (await s.data(FEEDBACK, { title: `Idea ${target}` }, as)).createFeedbackPost.post.id,
      left: () => rows(s, "feedback_posts", "deleted_at is null"),
      otherUser: "bob",
    });

    // One team per user: each target is the team of its own owner.
    await assertDeleteRetrySafe(s, {
      mutation: "deleteTeam",
      query: DELETE_TEAM,
      object: "deletedTeamId",
      make: async (target, as) =>
        (await s.data(CREATE_TEAM, { name: `Team ${target} ${as}` }, as)).createTeam.team.id,
      as: (target) => `owner-${target}`,
      left: () => rows(s, "teams"),
      otherUser: "bob",
    });
  } finally {
    await s.close();
  }
});
