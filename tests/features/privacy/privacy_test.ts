import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, CREATE_COMMUNITY, JOIN, POST, SOCIAL } from "../../support/social.ts";
import { ADD_EVENT, addGoal } from "../../support/goals.ts";
import type { Queryable } from "../../../src/platform/db.ts";
import { BILLING_SECRET, deliver, event } from "../../support/billing.ts";
import { reply } from "../../support/fake-llm.ts";
import { ACCEPT as ACCEPT_TEAM_INVITE, CREATE_INVITE, CREATE_TEAM } from "../../support/teams.ts";
import { MILESTONES } from "../../support/coaching.ts";

/** Social setup with the billing webhook, the fake LLM (coaching) and an AI request kind. */
const OPTIONS = {
  ...SOCIAL,
  llm: true,
  env: { BILLING_WEBHOOK_SECRET: BILLING_SECRET },
  app: { aiRequestProcessors: { "test.echo": (input: unknown) => Promise.resolve({ input }) } },
};

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const UPDATE_ME = `mutation U($username: String, $firstName: String, $lastName: String) {
  updateMe(username: $username, firstName: $firstName, lastName: $lastName) { ${USER_ERRORS} } }`;
const ADD_MOOD =
  `mutation M($note: String) { addMoodLog(mood: 2, note: $note) { ${USER_ERRORS} } }`;
const FEEDBACK = `mutation F($title: String!, $description: String!) {
  createFeedbackPost(category: feature, title: $title, description: $description) {
    post { id } ${USER_ERRORS} } }`;
const COMMENT = `mutation C($postId: String!, $body: String!) {
  createFeedbackComment(postId: $postId, body: $body) { ${USER_ERRORS} } }`;
const PARTNER = `mutation P($userId: String!) {
  sendPartnerRequest(userId: $userId) { partnership { id } ${USER_ERRORS} } }`;
const ALLY = `mutation P($userId: String!) {
  sendAllyRequest(userId: $userId) { request { id } ${USER_ERRORS} } }`;
const ACCEPT_ALLY = `mutation A($id: String!) {
  acceptAllyRequest(requestId: $id) { ${USER_ERRORS} } }`;
const ACCEPT = `mutation A($id: String!) {
  acceptPartnerRequest(requestId: $id) { ${USER_ERRORS} } }`;
const REPORT = `mutation R($postId: String!) {
  reportPost(postId: $postId, reason: harassment) { ${USER_ERRORS} } }`;
const REQUEST_EXPORT = `mutation { requestDataExport {
  dataExport { id status expiresAt downloadUrl } ${USER_ERRORS} } }`;
const EXPORT = `query E($id: String!) { dataExport(id: $id) { id status readyAt downloadUrl } }`;
const REQUEST_DELETION = `mutation { requestAccountDeletion {
  accountDeletion { requestedAt erasesAt } ${USER_ERRORS} } }`;
const CANCEL_DELETION = `mutation { cancelAccountDeletion {
  accountDeletion { requestedAt } ${USER_ERRORS} } }`;
const DELETION = `{ accountDeletion { requestedAt erasesAt } }`;

/** What the user to be deleted writes: every value must be gone after the erasure. */
const ZED = {
  subject: "sub-zed-k3q9x",
  username: "zedkq9",
  firstName: "Zebulonkq",
  lastName: "Quixotekq",
  goal: "ZedGoalTitle-q81",
  eventNote: "ZedEventNote-q82",
  mood: "ZedMoodNote-q83",
  post: "ZedPostBody-q84",
  feedbackTitle: "ZedFeedbackTitle-q85",
  feedbackText: "ZedFeedbackDesc-q86",
  comment: "ZedComment-q87",
  email: "zedmail-q88@example.com",
  aiInput: "ZedAiInput-q89",
  milestone: "ZedMilestone-q90",
  habit: "ZedHabit-q92",
};
const AMY = { goal: "AmyGoalTitle-w51", post: "AmyPostBody-w52", mood: "AmyMoodNote-w53" };

const CHALLENGE = `mutation C($communityId: String!) {
  createCommunityChallenge(communityId: $communityId, title: "Zed's week k3", metric: check_ins,
    startsAt: "2026-03-02T00:00:00Z", endsAt: "2026-03-09T00:00:00Z", entryCost: 0) {
    challenge { id } ${USER_ERRORS} } }`;
const JOIN_CHALLENGE = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  ${USER_ERRORS} } }`;
const BOARD = `query B($id: String!) { communityChallengeLeaderboard(challengeId: $id) {
  nodes { score user { username } } totalCount } }`;
const SET_PREF = `mutation P($kind: String!) {
  setNotificationPreference(kind: $kind, enabled: false) { ${USER_ERRORS} } }`;

/** A purchase as the billing provider sends it, for the user `appUserId`. */
const purchase = (appUserId: string, email: string, transaction: string) =>
  event({
    app_user_id: appUserId,
    original_app_user_id: appUserId,
    aliases: [appUserId],
    transaction_id: transaction,
    original_transaction_id: transaction,
    subscriber_attributes: { $email: { updated_at_ms: 1662955084635, value: email } },
  });

/** Writes both users' data across the features; answers the ids the test needs. */
async function populate(s: TestSetup) {
  const zed = s.as(ZED.subject);
  const amy = s.as("amy");
  const ok = (payload: { errors: unknown[] }) => assert.deepEqual(payload.errors, []);
  ok((await zed.data(UPDATE_ME, ZED)).updateMe);
  const goal = await addGoal(s, { title: ZED.goal, kind: "target", targetValue: 100 }, ZED.subject);
  ok((await zed.data(ADD_EVENT, { goalId: goal.id, value: 3, note: ZED.eventNote })).addGoalEvent);
  ok((await zed.data(ADD_MOOD, { note: ZED.mood })).addMoodLog);
  await addGoal(s, { title: AMY.goal, kind: "habit" }, "amy");
  ok((await amy.data(ADD_MOOD, { note: AMY.mood })).addMoodLog);

  const community = (await zed.data(CREATE_COMMUNITY, { name: "Early risers k3" }))
    .createCommunity.community;
  ok((await amy.data(JOIN, { id: community.id })).joinCommunity);
  const post = (await zed.data(POST, { id: community.id, body: ZED.post })).createCommunityPost;
  ok(post);
  ok((await amy.data(POST, { id: community.id, body: AMY.post })).createCommunityPost);
  ok((await amy.data(REPORT, { postId: post.post.id })).reportPost);

  const feedback = (await zed.data(FEEDBACK, {
    title: ZED.feedbackTitle,
    description: ZED.feedbackText,
  })).createFeedbackPost;
  ok(feedback);
  ok(
    (await zed.data(COMMENT, { postId: feedback.post.id, body: ZED.comment }))
      .createFeedbackComment,
  );
  ok(
    (await amy.data(COMMENT, { postId: feedback.post.id, body: "AmyComment-w54" }))
      .createFeedbackComment,
  );

  const ally = (await zed.data(ALLY, { userId: await s.idOf("amy") })).sendAllyRequest;
  ok(ally);
  ok((await amy.data(ACCEPT_ALLY, { id: ally.request.id })).acceptAllyRequest);
  const request = (await zed.data(PARTNER, { userId: await s.idOf("amy") })).sendPartnerRequest;
  ok(request);
  ok((await amy.data(ACCEPT, { id: request.partnership.id })).acceptPartnerRequest);

  // A team zed owns and amy joined.
  const team = (await zed.data(CREATE_TEAM, { name: "Zed's team k3" })).createTeam;
  ok(team);
  const invite = (await zed.data(CREATE_INVITE, { teamId: team.team.id })).createTeamInvite;
  ok(invite);
  ok((await amy.data(ACCEPT_TEAM_INVITE, { token: invite.token })).acceptTeamInvite);

  // A community challenge both joined, with check-ins (contributions and points).
  const challenge = (await zed.data(CHALLENGE, { communityId: community.id }))
    .createCommunityChallenge;
  ok(challenge);
  const amyHabit = (await amy.data(`{ goals { nodes { id } } }`)).goals.nodes[0];
  const zedHabit = (await zed.data(ADD_HABIT, { title: ZED.habit })).addGoal;
  ok(zedHabit);
  for (const [who, habitId] of [[zed, zedHabit.goal.id], [amy, amyHabit.id]] as const) {
    ok((await who.data(JOIN_CHALLENGE, { id: challenge.challenge.id })).joinCommunityChallenge);
    ok((await who.data(CHECK_IN, { goalId: habitId })).checkInHabit);
  }

  // Payments through the billing webhook.
  await deliver(s.t, purchase(await s.idOf(ZED.subject), ZED.email, "zed-tx-q91"));
  await deliver(s.t, purchase(await s.idOf("amy"), "amymail-w55@example.com", "amy-tx-w55"));

  // Coaching: a milestone suggestion (an AI call); an async AI request.
  s.llm.script(
    reply.json({ milestones: [{ title: ZED.milestone, targetValue: 50, dueDate: null }] }),
  );
  ok((await zed.data(MILESTONES, { id: goal.id })).generateMilestones);
  for (const [sub, input] of [[ZED.subject, ZED.aiInput], ["amy", "AmyAiInput-w56"]]) {
    await s.t.app.features.aiRequests.api.create({
      userId: await s.userId(sub),
      kind: "test.echo",
      input,
    });
  }

  // Notification preferences.
  ok((await zed.data(SET_PREF, { kind: "challenge.ended" })).setNotificationPreference);
  ok((await amy.data(SET_PREF, { kind: "challenge.ended" })).setNotificationPreference);
  await s.t.app.jobs.runUntilIdle();
  return { community, goal, team: team.team, challenge: challenge.challenge };
}

/** Every text-like column of every table (found at test time, so new tables are covered). */
async function textColumns(sql: Queryable): Promise<{ table: string; column: string }[]> {
  return await sql<{ table: string; column: string }[]>`
    select c.table_name as table, c.column_name as column
    from information_schema.columns c
    join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb')
        or (c.data_type = 'ARRAY' and c.udt_name in ('_text', '_varchar')))
    order by 1, 2`;
}

/** `table.column` of every cell holding one of `values` (case-insensitive substring). */
async function cellsHolding(sql: Queryable, values: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column } of await textColumns(sql)) {
    for (const value of values) {
      const [{ n }] = await sql<{ n: number }[]>`
        select count(*)::int as n from ${sql(table)}
        where ${sql(column)}::text ilike ${"%" + value + "%"}`;
      if (n > 0) found.push(`${table}.${column} holds ${value} (${n})`);
    }
  }
  return found;
}

async function download(s: TestSetup, url: string) {
  const res = await s.t.request(url);
  return { status: res.status, body: await res.json() };
}

Deno.test("privacy: an export holds what the user wrote, only for them and only until it expires", async () => {
  const s = await setup(OPTIONS);
  try {
    const { goal } = await populate(s);
    const requested = (await s.as(ZED.subject).data(REQUEST_EXPORT)).requestDataExport;
    assert.deepEqual(requested.errors, []);
    assert.equal(requested.dataExport.status, "pending");
    assert.equal(requested.dataExport.downloadUrl, null);
    assert.equal(requested.dataExport.expiresAt, "2026-03-04T12:00:00.000Z");
    // A second request while one is pending answers the same export.
    const again = (await s.as(ZED.subject).data(REQUEST_EXPORT)).requestDataExport;
    assert.equal(again.dataExport.id, requested.dataExport.id);
    await s.t.app.jobs.runUntilIdle();

    const id = requested.dataExport.id;
    const ready = (await s.as(ZED.subject).data(EXPORT, { id })).dataExport;
    assert.equal(ready.status, "ready");
    // Another user cannot see it, nor a malformed id.
    assert.equal((await s.as("amy").data(EXPORT, { id })).dataExport, null);
    assert.equal((await s.as(ZED.subject).data(EXPORT, { id: "??" })).dataExport, null);

    const { status, body } = await download(s, ready.downloadUrl);
    assert.equal(status, 200);
    assert.equal(body.userId, await s.idOf(ZED.subject));
    assert.equal(body.users.profile.username, ZED.username);
    assert.equal(body.users.profile.firstName, ZED.firstName);
    assert.deepEqual(body.goals.goals.map((g: { title: string }) => g.title), [
      ZED.goal,
      ZED.habit,
    ]);
    assert.equal(body.goals.goals[0].id, goal.id);
    assert.deepEqual(body.goals.goalEvents.map((e: { note: string }) => e.note), [ZED.eventNote]);
    assert.deepEqual(body.mood.moodLogs.map((m: { note: string }) => m.note), [ZED.mood]);
    assert.deepEqual(body.communities.posts.map((p: { body: string }) => p.body), [ZED.post]);
    assert.deepEqual(body.feedback.posts.map((p: { title: string }) => p.title), [
      ZED.feedbackTitle,
    ]);
    assert.deepEqual(body.feedback.comments.map((c: { body: string }) => c.body), [ZED.comment]);
    assert.equal(body.partners.partnerships.length, 1);
    // Nothing of the other user's own records.
    const text = JSON.stringify(body);
    for (const value of [AMY.goal, AMY.post, AMY.mood]) assert.ok(!text.includes(value), value);

    // A wrong token or another export's id: not found.
    const wrong = ready.downloadUrl.replace(/token=.*/, "token=not-the-token");
    assert.equal((await download(s, wrong)).status, 404);
    // Expired: the link stops working, the export is gone from the API, then deleted.
    s.clock.advance(48 * HOUR_MS);
    assert.equal((await download(s, ready.downloadUrl)).status, 404);
    assert.equal((await s.as(ZED.subject).data(EXPORT, { id })).dataExport, null);
    const cleanup = s.t.app.features.privacy.schedules!.find((x) =>
      x.name === "privacy.delete_expired_exports"
    )!;
    await cleanup.run(s.clock.now());
    const [{ n }] = await s.t.deps.db.sql`select count(*)::int as n from data_exports`;
    assert.equal(n, 0);
  } finally {
    await s.close();
  }
});

/**
 * The data of `query` run with a token of `sub` minted now: a refreshed session, or a second
 * signed-in device.
 */
async function freshSession(s: TestSetup, sub: string, query: string) {
  const fresh = await s.idp.token({ sub, expiresIn: 3600 });
  const res = await s.t.request("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", SessionToken: fresh },
    body: JSON.stringify({ query }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).data;
}

Deno.test("privacy: a refreshed token or another device leaves the deletion pending; it happens at its time", async () => {
  const s = await setup(OPTIONS);
  try {
    const zed = s.as(ZED.subject);
    await zed.data(`{ me { id } }`);
    const requested = (await zed.data(REQUEST_DELETION)).requestAccountDeletion;
    assert.deepEqual(requested, {
      accountDeletion: {
        requestedAt: "2026-03-02T12:00:00.000Z",
        erasesAt: "2026-03-16T12:00:00.000Z",
      },
      errors: [],
    });
    assert.deepEqual((await zed.data(DELETION)).accountDeletion, requested.accountDeletion);
    const withFreshToken = (query: string) => freshSession(s, ZED.subject, query);
    // A token refreshed an hour later, then a second device signing in the next day (syncUser):
    // the deletion stays pending for both, and for the session that asked.
    s.clock.advance(HOUR_MS);
    assert.deepEqual(
      (await withFreshToken(DELETION)).accountDeletion,
      requested.accountDeletion,
    );
    s.clock.advance(DAY_MS);
    const synced = await withFreshToken(
      `mutation { syncUser { user { username } firstSignIn } } `,
    );
    assert.equal(synced.syncUser.firstSignIn, false);
    assert.deepEqual(
      (await withFreshToken(`{ me { username } accountDeletion { erasesAt } }`)).accountDeletion,
      { erasesAt: requested.accountDeletion.erasesAt },
    );
    assert.deepEqual((await zed.data(DELETION)).accountDeletion, requested.accountDeletion);

    // Not before its time; at its time the account is erased, whichever token was last used.
    s.clock.set(new Date(Date.parse(requested.accountDeletion.erasesAt) - 1000));
    assert.equal(await s.t.app.features.privacy.api.eraseDue(s.clock.now()), 0);
    assert.deepEqual((await zed.data(DELETION)).accountDeletion, requested.accountDeletion);
    s.clock.advance(1000);
    assert.equal(await s.t.app.features.privacy.api.eraseDue(s.clock.now()), 1);
    const old = await zed.run(`{ me { id } }`);
    assert.equal(old.status, 401);
    assert.equal(old.body.errors[0].extensions.code, "UNAUTHENTICATED");
  } finally {
    await s.close();
  }
});

Deno.test("privacy: only cancelAccountDeletion cancels a pending deletion", async () => {
  const s = await setup(OPTIONS);
  try {
    const zed = s.as(ZED.subject);
    await zed.data(`{ me { id } }`);
    const requested = (await zed.data(REQUEST_DELETION)).requestAccountDeletion.accountDeletion;
    // Cancelling from another device (a newer token) works, and is answered with what it ended.
    s.clock.advance(DAY_MS);
    assert.deepEqual((await freshSession(s, ZED.subject, CANCEL_DELETION)).cancelAccountDeletion, {
      accountDeletion: { requestedAt: requested.requestedAt },
      errors: [],
    });
    assert.deepEqual(await zed.data(DELETION), { accountDeletion: null });
    s.clock.advance(20 * DAY_MS);
    assert.equal(await s.t.app.features.privacy.api.eraseDue(s.clock.now()), 0);
    assert.equal((await zed.data(`{ me { username } }`)).me.username.length > 0, true);

    // Cancelling when nothing is pending; asking again starts a new grace period.
    assert.deepEqual((await zed.data(CANCEL_DELETION)).cancelAccountDeletion, {
      accountDeletion: null,
      errors: [{ code: "not_found", message: "no account deletion is pending", field: null }],
    });
    const again = (await zed.data(REQUEST_DELETION)).requestAccountDeletion.accountDeletion;
    assert.equal(again.requestedAt, s.clock.now().toISOString());
    assert.deepEqual((await zed.data(CANCEL_DELETION)).cancelAccountDeletion.errors, []);
  } finally {
    await s.close();
  }
});

Deno.test("privacy: after the grace period no table holds the user's personal values; others' data stays", async () => {
  const s = await setup(OPTIONS);
  try {
    const { community, team, challenge } = await populate(s);
    const zedId = await s.userId(ZED.subject);
    const userTables = [
      "notification_preferences",
      "ai_requests",
      "challenge_participants",
      "team_members",
      "point_ledger",
      "user_points",
      "milestone_suggestions",
      "ai_calls",
      "payment_records",
    ];
    const sql = s.t.deps.db.sql;
    const count = async (table: string, userId: string | null) => {
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)}
        where user_id is not distinct from ${userId}`;
      return n;
    };
    for (const table of userTables) assert.ok((await count(table, zedId)) > 0, table);
    const aiCalls = await count("ai_calls", null) + await count("ai_calls", zedId);
    const amyPublicId = await s.idOf("amy");
    const zedPublicId = await s.idOf(ZED.subject);
    await s.as(ZED.subject).data(REQUEST_EXPORT);
    await s.t.app.jobs.runUntilIdle();
    await s.as(ZED.subject).data(REQUEST_DELETION);
    const personal = [...Object.values(ZED)];
    assert.ok((await cellsHolding(sql, personal)).length > 0, "the search finds the values");

    // Not yet: one day before the grace period ends.
    s.clock.advance(13 * DAY_MS);
    assert.equal(await s.t.app.features.privacy.api.eraseDue(s.clock.now()), 0);
    s.clock.advance(DAY_MS);
    const erase = s.t.app.features.privacy.schedules!.find((x) => x.name === "privacy.erase_due")!;
    await erase.run(s.clock.now());
    await s.t.app.jobs.runUntilIdle();

    assert.deepEqual(await cellsHolding(sql, personal), []);

    // The old session is refused, though its token is valid and cached.
    const old = await s.run(`{ me { id } }`, {}, ZED.subject);
    assert.equal(old.status, 401);
    assert.equal(old.body.errors[0].extensions.code, "UNAUTHENTICATED");

    // The other user's data is intact; the community passed to its remaining member.
    const amy = s.as("amy");
    const mine = await amy.data(`{ me { username } goals { nodes { title } } }`);
    assert.equal(mine.me.username, "amy");
    assert.deepEqual(mine.goals.nodes.map((g: { title: string }) => g.title), [AMY.goal]);
    const feed = await amy.data(
      `query F($id: String!) { communityFeed(communityId: $id) { edges { node { body } } } }`,
      { id: community.id },
    );
    assert.deepEqual(feed.communityFeed.edges.map((e: { node: { body: string } }) => e.node.body), [
      AMY.post,
    ]);
    const owner = await amy.data(
      `query C($id: String!) { community(id: $id) { owner { username } memberCount } }`,
      { id: community.id },
    );
    assert.deepEqual(owner.community, { owner: { username: "amy" }, memberCount: 1 });
    const [{ n: amyMoods }] =
      await sql`select count(*)::int as n from mood_logs where note = ${AMY.mood}`;
    assert.equal(amyMoods, 1);

    // The team's owner role passed to amy; the challenge keeps amy's entry only.
    const home = await amy.data(
      `query T($id: String!) { teamHome(teamId: $id) { team { memberCount viewerRole } } }`,
      { id: team.id },
    );
    assert.deepEqual(home.teamHome.team, { memberCount: 1, viewerRole: "owner" });
    const board = (await amy.data(BOARD, { id: challenge.id })).communityChallengeLeaderboard;
    assert.deepEqual(board, { nodes: [{ score: 1, user: { username: "amy" } }], totalCount: 1 });
    const entries = await amy.data(
      `query C($id: String!) { communityChallenge(id: $id) { participantCount } }`,
      { id: challenge.id },
    );
    assert.deepEqual(entries.communityChallenge, { participantCount: 1 });
    assert.equal((await amy.data(`{ me { points } }`)).me.points > 0, true);

    // Payments stay for bookkeeping: zed's without the link to the person, amy's as they were.
    const payments = await sql<
      { user: string | null; app: string | null; amount: string | null; raw: unknown }[]
    >`select user_id::text as user, app_user_id as app, amount::text as amount, raw_event as raw
      from payment_records order by id`;
    assert.equal(payments.length, 2);
    assert.deepEqual(payments.map((p) => [p.user, p.app]), [
      [null, null],
      [await s.userId("amy"), amyPublicId],
    ]);
    assert.equal(payments[0].amount, payments[1].amount);
    assert.notEqual(payments[0].amount, null);

    // Zed's rows are gone from the user-keyed tables; amy's stay; AI costs stay without the user.
    const amyId = await s.userId("amy");
    for (const table of ["notification_preferences", "ai_requests", "challenge_participants"]) {
      assert.deepEqual([table, await count(table, zedId)], [table, 0]);
      assert.deepEqual([table, await count(table, amyId)], [table, 1]);
    }
    for (const table of userTables) {
      assert.deepEqual([table, await count(table, zedId)], [table, 0]);
    }
    assert.equal(await count("ai_calls", null), aiCalls);

    // A token issued after the erasure starts a new, empty account.
    s.clock.advance(HOUR_MS);
    const fresh = await s.idp.token({ sub: ZED.subject, expiresIn: 3600 });
    const res = await s.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: fresh },
      body: JSON.stringify({ query: `{ me { id username } goals { totalCount } }` }),
    });
    const body = await res.json();
    assert.equal(body.errors, undefined);
    assert.notEqual(body.data.me.id, zedPublicId);
    assert.equal(body.data.goals.totalCount, 0);
  } finally {
    await s.close();
  }
});
