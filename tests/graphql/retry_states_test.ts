/**
 * State changes that already hold answer the current object with no error and an `already...`
 * flag (docs/graphql.md, "Retrying mutations"): each sent twice one after the other, twice at
 * once and twice in one batch changes the state once, and both answers carry the same object.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../support/setup.ts";
import { assertRepeatSafe, rows, sendBatch } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import { createCommunity, SOCIAL } from "../support/social.ts";

const COMMUNITY = `community { id memberCount viewerRole owner { username } }`;
const JOIN = `mutation J($id: String!) {
  joinCommunity(communityId: $id) { ${COMMUNITY} alreadyMember ${USER_ERRORS} } }`;
const INVITE = `mutation I($id: String!, $userId: String!) {
  inviteToCommunity(communityId: $id, userId: $userId) { community { id } alreadyInvited
    ${USER_ERRORS} } }`;
const TRANSFER = `mutation T($id: String!, $userId: String!) {
  transferCommunityOwnership(communityId: $id, userId: $userId) {
    community { id owner { username } } alreadyOwner ${USER_ERRORS} } }`;
const NOTES = `{ notifications(first: 50) { nodes { kind } } }`;

const notesOf = async (s: TestSetup, who: string, kind: string) =>
  (await s.data(NOTES, {}, who)).notifications.nodes.filter((n: { kind: string }) =>
    n.kind === kind
  ).length;

Deno.test("repeats: joinCommunity, inviteToCommunity, transferCommunityOwnership", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "joinCommunity",
      query: JOIN,
      prepare: async (round) => ({
        id: (await createCommunity(s, "owner", { name: `Join ${round}` })).id,
      }),
      as: "bob",
      object: "community",
      flag: "alreadyMember",
      count: () => rows(s, "community_members"),
    });
    const carol = await s.idOf("carol");
    await assertRepeatSafe(s, {
      mutation: "inviteToCommunity",
      query: INVITE,
      prepare: async (round) => ({
        id: (await createCommunity(s, "owner", { name: `Invite ${round}`, visibility: "private" }))
          .id,
        userId: carol,
      }),
      as: "owner",
      object: "community",
      flag: "alreadyInvited",
      count: () => rows(s, "community_invites"),
    });
    // One invite per community reached carol, however often it was sent.
    assert.equal(await notesOf(s, "carol", "community.invite"), 3);

    const bob = await s.idOf("bob");
    await assertRepeatSafe(s, {
      mutation: "transferCommunityOwnership",
      query: TRANSFER,
      prepare: async (round) => {
        const c = await createCommunity(s, "owner", { name: `Hand over ${round}` });
        await s.data(JOIN, { id: c.id }, "bob");
        return { id: c.id, userId: bob };
      },
      as: "owner",
      object: "community",
      flag: "alreadyOwner",
    });
    assert.equal(await notesOf(s, "bob", "community.ownership_transferred"), 3);
  } finally {
    await s.close();
  }
});

const SEND_ALLY = `mutation S($userId: String!) { sendAllyRequest(userId: $userId) {
  request { id status from { username } to { username } } alreadyRequested alreadyAllies
  ${USER_ERRORS} } }`;
const ANSWER_ALLY = (verb: "accept" | "decline") =>
  `mutation A($id: String!) {
  ${verb}AllyRequest(requestId: $id) { request { id status respondedAt } alreadyAnswered
  ${USER_ERRORS} } }`;
const SEND_PARTNER = `mutation S($userId: String!) { sendPartnerRequest(userId: $userId) {
  partnership { id status partner { username } } alreadyRequested alreadyPartners
  ${USER_ERRORS} } }`;
const ANSWER_PARTNER = (verb: "accept" | "decline") =>
  `mutation A($id: String!) {
  ${verb}PartnerRequest(requestId: $id) { partnership { id status respondedAt } alreadyAnswered
  ${USER_ERRORS} } }`;

/** `a` asks `b` (an ally request); answers the request's id. */
async function askAlly(s: TestSetup, a: string, b: string): Promise<string> {
  const sent = (await s.data(SEND_ALLY, { userId: await s.idOf(b) }, a)).sendAllyRequest;
  assert.deepEqual(sent.errors, []);
  return sent.request.id;
}

/** `a` and `b` become allies, then `a` asks `b` to be partners; answers the request's id. */
async function askPartner(s: TestSetup, a: string, b: string): Promise<string> {
  const id = await askAlly(s, a, b);
  await s.data(ANSWER_ALLY("accept"), { id }, b);
  const sent = (await s.data(SEND_PARTNER, { userId: await s.idOf(b) }, a)).sendPartnerRequest;
  assert.deepEqual(sent.errors, []);
  return sent.partnership.id;
}

Deno.test("repeats: ally and partner requests and their answers", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "sendAllyRequest",
      query: SEND_ALLY,
      prepare: async (round) => ({ userId: await s.idOf(`ally-${round}`) }),
      object: "request",
      flag: "alreadyRequested",
      count: () => rows(s, "ally_links"),
    });
    // The asked users were told once each.
    for (const round of ["seq", "par", "batch"]) {
      assert.equal(await notesOf(s, `ally-${round}`, "ally.request"), 1, round);
    }
    for (const verb of ["accept", "decline"] as const) {
      await assertRepeatSafe(s, {
        mutation: `${verb}AllyRequest`,
        query: ANSWER_ALLY(verb),
        prepare: async (round) => ({ id: await askAlly(s, `${verb}-asker-${round}`, "alice") }),
        object: "request",
        flag: "alreadyAnswered",
      });
    }
    // An accepted ally asking again gets the connection.
    const connected = (await s.data(SEND_ALLY, { userId: await s.idOf("accept-asker-seq") }))
      .sendAllyRequest;
    assert.deepEqual(
      [connected.errors, connected.request.status, connected.alreadyAllies],
      [[], "accepted", true],
    );

    await assertRepeatSafe(s, {
      mutation: "sendPartnerRequest",
      query: SEND_PARTNER,
      prepare: async (round) => {
        const b = `partner-${round}`;
        await s.data(ANSWER_ALLY("accept"), { id: await askAlly(s, "alice", b) }, b);
        return { userId: await s.idOf(b) };
      },
      object: "partnership",
      flag: "alreadyRequested",
      count: () => rows(s, "partnerships"),
    });
    for (const verb of ["accept", "decline"] as const) {
      await assertRepeatSafe(s, {
        mutation: `${verb}PartnerRequest`,
        query: ANSWER_PARTNER(verb),
        // One active partner each: every round is a pair of its own.
        prepare: (round) =>
          askPartner(s, `${verb}-p-${round}`, `${verb}-q-${round}`).then((id) => ({ id })),
        as: (round) => `${verb}-q-${round}`,
        object: "partnership",
        flag: "alreadyAnswered",
      });
    }
    // Partners asking again get their partnership.
    const active =
      (await s.data(SEND_PARTNER, { userId: await s.idOf("accept-q-seq") }, "accept-p-seq"))
        .sendPartnerRequest;
    assert.deepEqual([active.errors, active.partnership.status, active.alreadyPartners], [
      [],
      "active",
      true,
    ]);
  } finally {
    await s.close();
  }
});

const CREATE_TEAM = `mutation T($name: String!) { createTeam(name: $name) {
  team { id } ${USER_ERRORS} } }`;
const CREATE_INVITE = `mutation I($teamId: String!) { createTeamInvite(teamId: $teamId) {
  invite { id } token ${USER_ERRORS} } }`;
const ACCEPT_INVITE = `mutation A($token: String!) { acceptTeamInvite(token: $token) {
  team { id name memberCount viewerRole } alreadyMember ${USER_ERRORS} } }`;
const REVOKE = `mutation R($id: String!) { revokeTeamInvite(inviteId: $id) {
  invite { id revoked } alreadyRevoked ${USER_ERRORS} } }`;
const CREATE_SUB = `mutation S($teamId: String!, $name: String!) {
  createSubCommunity(teamId: $teamId, name: $name, open: true) { subCommunity { id } ${USER_ERRORS} } }`;
const ARCHIVE_SUB = `mutation A($id: String!) { archiveSubCommunity(subCommunityId: $id) {
  subCommunity { id archived } alreadyArchived ${USER_ERRORS} } }`;
const TRANSFER_TEAM = `mutation T($teamId: String!, $userId: String!) {
  transferTeamOwnership(teamId: $teamId, userId: $userId) { team { id } alreadyOwner
  ${USER_ERRORS} } }`;
const ROLE = `{ myTeam { viewerRole } }`;

Deno.test("repeats: acceptTeamInvite, revokeTeamInvite, archiveSubCommunity, transferTeamOwnership", async () => {
  const s = await setup(SOCIAL);
  try {
    const teamId = (await s.data(CREATE_TEAM, { name: "Comets" }, "owner")).createTeam.team.id;
    const invite = async () => (await s.data(CREATE_INVITE, { teamId }, "owner")).createTeamInvite;
    await assertRepeatSafe(s, {
      mutation: "acceptTeamInvite",
      query: ACCEPT_INVITE,
      prepare: async () => ({ token: (await invite()).token }),
      as: (round) => `joiner-${round}`,
      object: "team",
      flag: "alreadyMember",
      count: () => rows(s, "team_members"),
    });
    await assertRepeatSafe(s, {
      mutation: "revokeTeamInvite",
      query: REVOKE,
      prepare: async () => ({ id: (await invite()).invite.id }),
      as: "owner",
      object: "invite",
      flag: "alreadyRevoked",
    });
    await assertRepeatSafe(s, {
      mutation: "archiveSubCommunity",
      query: ARCHIVE_SUB,
      prepare: async (round) => ({
        id: (await s.data(CREATE_SUB, { teamId, name: `Archive ${round}` }, "owner"))
          .createSubCommunity.subCommunity.id,
      }),
      as: "owner",
      object: "subCommunity",
      flag: "alreadyArchived",
    });
    await assertRepeatSafe(s, {
      mutation: "transferTeamOwnership",
      query: TRANSFER_TEAM,
      // A team per round: its owner hands it to its member.
      prepare: async (round) => {
        const team = (await s.data(CREATE_TEAM, { name: `Team ${round}` }, `boss-${round}`))
          .createTeam.team.id;
        const { token } = (await s.data(CREATE_INVITE, { teamId: team }, `boss-${round}`))
          .createTeamInvite;
        await s.data(ACCEPT_INVITE, { token }, `heir-${round}`);
        return { teamId: team, userId: await s.idOf(`heir-${round}`) };
      },
      as: (round) => `boss-${round}`,
      object: "team",
      flag: "alreadyOwner",
    });
    for (const round of ["seq", "par", "batch"]) {
      assert.equal((await s.data(ROLE, {}, `heir-${round}`)).myTeam.viewerRole, "owner");
      assert.equal((await s.data(ROLE, {}, `boss-${round}`)).myTeam.viewerRole, "admin");
    }
  } finally {
    await s.close();
  }
});

const CREATE_CHALLENGE = `mutation C($id: String!, $title: String!, $cost: Int) {
  createCommunityChallenge(communityId: $id, title: $title, metric: check_ins, entryCost: $cost,
    startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z") {
    challenge { id } ${USER_ERRORS} } }`;
const JOIN_CHALLENGE = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { id participantCount } alreadyJoined ${USER_ERRORS} } }`;
const CANCEL_CHALLENGE = `mutation X($id: String!) { cancelCommunityChallenge(challengeId: $id) {
  challenge { id status cancelledAt } alreadyCancelled ${USER_ERRORS} } }`;

Deno.test("repeats: joinCommunityChallenge and cancelCommunityChallenge", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "owner", { name: "Runners" });
    await s.data(JOIN, { id: c.id }, "bob");
    const challenge = async (title: string) =>
      (await s.data(CREATE_CHALLENGE, { id: c.id, title }, "owner")).createCommunityChallenge
        .challenge.id;
    await assertRepeatSafe(s, {
      mutation: "joinCommunityChallenge",
      query: JOIN_CHALLENGE,
      prepare: async (round) => ({ id: await challenge(`Join ${round}`) }),
      as: "bob",
      object: "challenge",
      flag: "alreadyJoined",
      count: () => rows(s, "challenge_participants"),
    });
    await assertRepeatSafe(s, {
      mutation: "cancelCommunityChallenge",
      query: CANCEL_CHALLENGE,
      prepare: async (round) => ({ id: await challenge(`Cancel ${round}`) }),
      as: "owner",
      object: "challenge",
      flag: "alreadyCancelled",
    });
  } finally {
    await s.close();
  }
});

const BLOCK = `mutation B($userId: String!) { blockUser(userId: $userId) {
  user { id username } alreadyBlocked ${USER_ERRORS} } }`;
const REPORT_USER = `mutation R($userId: String!) { reportUser(userId: $userId, reason: spam) {
  report { id status createdAt } alreadyReported ${USER_ERRORS} } }`;
const REPORT_POST = `mutation R($postId: String!) { reportPost(postId: $postId, reason: spam) {
  report { id status createdAt } alreadyReported ${USER_ERRORS} } }`;
const POST = `mutation P($id: String!, $body: String!) {
  createCommunityPost(communityId: $id, body: $body) { post { id } ${USER_ERRORS} } }`;

Deno.test("repeats: blockUser, reportUser, reportPost", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "blockUser",
      query: BLOCK,
      prepare: async (round) => ({ userId: await s.idOf(`blocked-${round}`) }),
      object: "user",
      flag: "alreadyBlocked",
      count: () => rows(s, "user_blocks"),
    });
    await assertRepeatSafe(s, {
      mutation: "reportUser",
      query: REPORT_USER,
      prepare: async (round) => ({ userId: await s.idOf(`reported-${round}`) }),
      object: "report",
      flag: "alreadyReported",
      count: () => rows(s, "user_reports"),
    });
    const c = await createCommunity(s, "poster", { name: "Loud" });
    await assertRepeatSafe(s, {
      mutation: "reportPost",
      query: REPORT_POST,
      prepare: async (round) => ({
        postId: (await s.data(POST, { id: c.id, body: `Buy ${round}` }, "poster"))
          .createCommunityPost.post.id,
      }),
      object: "report",
      flag: "alreadyReported",
      count: () => rows(s, "user_reports"),
    });
  } finally {
    await s.close();
  }
});

const CREATE_EMPLOYEE = `mutation E($role: String!) {
  createAiEmployee(name: "Reporter", role: $role, taskPrompt: "Write the weekly report.") {
    employee { id } ${USER_ERRORS} } }`;
const ARCHIVE_EMPLOYEE = `mutation A($id: String!) { archiveAiEmployee(employeeId: $id) {
  employee { id archivedAt active } alreadyArchived ${USER_ERRORS} } }`;

Deno.test("repeats: archiveAiEmployee", async () => {
  const s = await setup({ admins: ["root"] });
  try {
    await assertRepeatSafe(s, {
      mutation: "archiveAiEmployee",
      query: ARCHIVE_EMPLOYEE,
      prepare: async (round) => ({
        id: (await s.data(CREATE_EMPLOYEE, { role: `archived_${round}` }, "root"))
          .createAiEmployee.employee.id,
      }),
      as: "root",
      object: "employee",
      flag: "alreadyArchived",
    });
  } finally {
    await s.close();
  }
});

const VOTE = `mutation V($id: String!, $voted: Boolean) {
  voteFeedbackPost(postId: $id, voted: $voted) { post { id voteCount viewerHasVoted } voted
  ${USER_ERRORS} } }`;
const FEEDBACK = `mutation F { createFeedbackPost(title: "Dark mode", description: "Please.",
  category: feature) { post { id } ${USER_ERRORS} } }`;

Deno.test("repeats: voteFeedbackPost with voted sets the vote, whatever the repeats", async () => {
  const s = await setup(SOCIAL);
  try {
    const id = (await s.data(FEEDBACK, {}, "bob")).createFeedbackPost.post.id;
    const vote = async (voted: boolean | null) =>
      (await s.data(VOTE, { id, voted })).voteFeedbackPost;
    const on = { post: { id, voteCount: 1, viewerHasVoted: true }, voted: true, errors: [] };
    const off = { post: { id, voteCount: 0, viewerHasVoted: false }, voted: false, errors: [] };
    assert.deepEqual(await vote(true), on);
    assert.deepEqual(await vote(true), on);
    assert.deepEqual(await Promise.all([vote(true), vote(true)]), [on, on]);
    assert.deepEqual(await sendBatch(s, "voteFeedbackPost", VOTE, { id, voted: true }), [on, on]);
    assert.deepEqual(await vote(false), off);
    assert.deepEqual(await Promise.all([vote(false), vote(false)]), [off, off]);
    assert.deepEqual(await sendBatch(s, "voteFeedbackPost", VOTE, { id, voted: false }), [
      off,
      off,
    ]);
    // Without voted: the toggle it always was.
    assert.deepEqual(await vote(null), on);
    assert.deepEqual(await vote(null), off);
    assert.equal(await rows(s, "feedback_votes"), 0);
    const bad = await s.run(VOTE, { id, voted: "yes" });
    assert.equal(bad.body.errors[0].extensions.code, "BAD_USER_INPUT");
  } finally {
    await s.close();
  }
});

const HABIT = `mutation A($title: String!) { addGoal(title: $title, kind: habit) { goal { id } } }`;
const CHECK_IN =
  `mutation C($goalId: String!) { checkInHabit(goalId: $goalId) { ${USER_ERRORS} } }`;
const FREEZE = `mutation F($goalId: String!, $date: Date!) { useStreakFreeze(goalId: $goalId,
  date: $date) { goal { id currentStreak } freezesLeft alreadyCovered ${USER_ERRORS} } }`;

Deno.test("repeats: useStreakFreeze sent twice at once spends one freeze", async () => {
  const s = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const goalId = (await s.data(HABIT, { title: "Journal" })).addGoal.goal.id;
    for (let day = 0; day < 7; day++) {
      await s.data(CHECK_IN, { goalId });
      s.clock.advance(86_400_000);
    }
    s.clock.advance(86_400_000); // 2026-01-13; the 12th was missed
    const both = (await Promise.all([1, 2].map(() =>
      s.data(FREEZE, { goalId, date: "2026-01-12" })
    ))).map((r) =>
      r.useStreakFreeze
    );
    assert.deepEqual(both.map((f) => f.alreadyCovered).sort(), [false, true]);
    for (const f of both) {
      assert.deepEqual(f.errors, []);
      assert.deepEqual(f.goal, { id: goalId, currentStreak: 8 });
      assert.equal(f.freezesLeft, 0);
    }
    assert.equal(await rows(s, "streak_freeze_uses"), 1);
  } finally {
    await s.close();
  }
});
