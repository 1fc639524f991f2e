/**
 * Reverse state changes that already hold answer the current object with no error and an
 * `already...` flag, like their forward counterparts (docs/graphql.md, "Retrying mutations"):
 * each sent twice one after the other, twice at once and twice in one batch changes the state
 * once. A request that could never have succeeded keeps its code.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../support/setup.ts";
import { assertRepeatSafe, rows } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import { createCommunity, JOIN, SOCIAL } from "../support/social.ts";

// deno-lint-ignore no-explicit-any
type Payload = any;

/** A count that rises as rows of `table` go: the effect of a reverse change, counted once. */
const fewer = (s: TestSetup, table: string, where?: string) => async () =>
  0 - await rows(s, table, where);

/** The codes and fields of a payload's errors. */
const refusal = (p: Payload) => p.errors.map((e: Payload) => [e.code, e.field]);

const LEAVE = `mutation L($id: String!) { leaveCommunity(communityId: $id) {
  community { id memberCount viewerRole } alreadyLeft ${USER_ERRORS} } }`;
const CREATE_CHALLENGE = `mutation C($id: String!, $title: String!) {
  createCommunityChallenge(communityId: $id, title: $title, metric: check_ins, entryCost: 10,
    startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z") {
    challenge { id } ${USER_ERRORS} } }`;
const JOIN_CHALLENGE = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  ${USER_ERRORS} } }`;
const LEAVE_CHALLENGE = `mutation L($id: String!) { leaveCommunityChallenge(challengeId: $id) {
  challenge { id participantCount viewerParticipation { score } } points alreadyLeft
  ${USER_ERRORS} } }`;
const HABIT = `mutation A($title: String!) { addGoal(title: $title, kind: habit) { goal { id } } }`;
const CHECK_IN = `mutation C($goalId: String!, $date: Date) {
  checkInHabit(goalId: $goalId, date: $date) { ${USER_ERRORS} } }`;
const POINTS = `{ me { points } }`;

Deno.test("reverse repeats: leaveCommunity and leaveCommunityChallenge", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "leaveCommunity",
      query: LEAVE,
      prepare: async (round) => {
        const c = await createCommunity(s, "owner", { name: `Leave ${round}` });
        await s.data(JOIN, { id: c.id }, "bob");
        return { id: c.id };
      },
      as: "bob",
      object: "community",
      flag: "alreadyLeft",
      count: fewer(s, "community_members"),
    });

    // Kept: the owner cannot leave; an unknown community, and a private one the viewer left
    // (hidden from non-members), are not found.
    const open = await createCommunity(s, "owner", { name: "Open" });
    assert.deepEqual(refusal((await s.data(LEAVE, { id: open.id }, "owner")).leaveCommunity), [[
      "owner_cannot_leave",
      null,
    ]]);
    assert.deepEqual(refusal((await s.data(LEAVE, { id: "A".repeat(22) }, "bob")).leaveCommunity), [
      ["not_found", "communityId"],
    ]);
    const secret = await createCommunity(s, "owner", { name: "Secret", visibility: "private" });
    await s.data(
      `mutation I($id: String!, $u: String!) { inviteToCommunity(communityId: $id, userId: $u) {
        ${USER_ERRORS} } }`,
      { id: secret.id, u: await s.idOf("bob") },
      "owner",
    );
    await s.data(JOIN, { id: secret.id }, "bob");
    const left = (await s.data(LEAVE, { id: secret.id }, "bob")).leaveCommunity;
    assert.deepEqual([left.errors, left.alreadyLeft], [[], false]);
    const hidden = (await s.data(LEAVE, { id: secret.id }, "bob")).leaveCommunity;
    assert.deepEqual([hidden.community, refusal(hidden)], [null, [["not_found", "communityId"]]]);

    // Challenges: bob earns 30 points, pays 10 to join each round's challenge and is refunded
    // once however often he leaves it.
    const c = await createCommunity(s, "owner", { name: "Runners" });
    await s.data(JOIN, { id: c.id }, "bob");
    for (const title of ["Run", "Read", "Write"]) {
      const goalId = (await s.data(HABIT, { title }, "bob")).addGoal.goal.id;
      assert.deepEqual((await s.data(CHECK_IN, { goalId }, "bob")).checkInHabit.errors, []);
    }
    assert.equal((await s.data(POINTS, {}, "bob")).me.points, 30);
    await assertRepeatSafe(s, {
      mutation: "leaveCommunityChallenge",
      query: LEAVE_CHALLENGE,
      prepare: async (round) => {
        const id = (await s.data(CREATE_CHALLENGE, { id: c.id, title: `Leave ${round}` }, "owner"))
          .createCommunityChallenge.challenge.id;
        assert.deepEqual((await s.data(JOIN_CHALLENGE, { id }, "bob")).joinCommunityChallenge, {
          errors: [],
        });
        return { id };
      },
      as: "bob",
      object: "challenge",
      flag: "alreadyLeft",
      count: fewer(s, "challenge_participants"),
    });
    assert.equal((await s.data(POINTS, {}, "bob")).me.points, 30, "one refund per challenge");
    assert.equal(await rows(s, "point_ledger", "reason = 'challenge_refund'"), 3);

    // Kept: a challenge the viewer may not read and takes no part in, or none, is not found.
    const closed = await createCommunity(s, "owner", { name: "Closed", visibility: "private" });
    const unseen = (await s.data(CREATE_CHALLENGE, { id: closed.id, title: "Unseen" }, "owner"))
      .createCommunityChallenge.challenge.id;
    for (const id of [unseen, "A".repeat(22), "nope"]) {
      const p = (await s.data(LEAVE_CHALLENGE, { id }, "carol")).leaveCommunityChallenge;
      assert.deepEqual([p.challenge, refusal(p)], [null, [["not_found", "challengeId"]]], id);
    }
  } finally {
    await s.close();
  }
});

const SEND_ALLY = `mutation S($userId: String!) { sendAllyRequest(userId: $userId) {
  request { id } ${USER_ERRORS} } }`;
const ACCEPT_ALLY = `mutation A($id: String!) { acceptAllyRequest(requestId: $id) {
  ${USER_ERRORS} } }`;
const SEND_PARTNER = `mutation S($userId: String!) { sendPartnerRequest(userId: $userId) {
  partnership { id } ${USER_ERRORS} } }`;
const ACCEPT_PARTNER = `mutation A($id: String!) { acceptPartnerRequest(requestId: $id) {
  ${USER_ERRORS} } }`;
const REMOVE_ALLY = `mutation R($userId: String!) { removeAlly(userId: $userId) {
  ally { id user { username } connectedAt endedAt } alreadyRemoved ${USER_ERRORS} } }`;
const END = `mutation { endPartnership {
  partnership { id status endedAt partner { username } } alreadyEnded ${USER_ERRORS} } }`;
const BLOCK = `mutation B($userId: String!) { blockUser(userId: $userId) { ${USER_ERRORS} } }`;
const UNBLOCK = `mutation U($userId: String!) { unblockUser(userId: $userId) {
  user { id username } alreadyUnblocked ${USER_ERRORS} } }`;
const NOTES = `{ notifications(first: 50) { nodes { kind } } }`;

/** `a` and `b` become allies. */
async function allies(s: TestSetup, a: string, b: string) {
  const sent = (await s.data(SEND_ALLY, { userId: await s.idOf(b) }, a)).sendAllyRequest;
  assert.deepEqual(sent.errors, []);
  assert.deepEqual((await s.data(ACCEPT_ALLY, { id: sent.request.id }, b)).acceptAllyRequest, {
    errors: [],
  });
}

/** `a` and `b` become allies, then accountability partners. */
async function partners(s: TestSetup, a: string, b: string) {
  await allies(s, a, b);
  const sent = (await s.data(SEND_PARTNER, { userId: await s.idOf(b) }, a)).sendPartnerRequest;
  assert.deepEqual(sent.errors, []);
  const accepted = (await s.data(ACCEPT_PARTNER, { id: sent.partnership.id }, b))
    .acceptPartnerRequest;
  assert.deepEqual(accepted.errors, []);
}

Deno.test("reverse repeats: removeAlly, endPartnership, unblockUser", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "removeAlly",
      query: REMOVE_ALLY,
      prepare: async (round) => {
        await allies(s, "alice", `ally-${round}`);
        return { userId: await s.idOf(`ally-${round}`) };
      },
      as: "alice",
      object: "ally",
      flag: "alreadyRemoved",
      count: () => rows(s, "ally_links", "status = 'removed'"),
    });
    // Kept: two who never were allies, and an unknown user.
    const never = (await s.data(REMOVE_ALLY, { userId: await s.idOf("stranger") }, "alice"))
      .removeAlly;
    assert.deepEqual([never.ally, refusal(never)], [null, [["not_ally", "userId"]]]);
    const unknown = (await s.data(REMOVE_ALLY, { userId: "A".repeat(22) }, "alice")).removeAlly;
    assert.deepEqual([unknown.ally, refusal(unknown)], [null, [["not_found", "userId"]]]);

    await assertRepeatSafe(s, {
      mutation: "endPartnership",
      query: END,
      // One active partner each: every round is a pair of its own.
      prepare: async (round) => {
        await partners(s, `p-${round}`, `q-${round}`);
        return {};
      },
      as: (round) => `p-${round}`,
      object: "partnership",
      flag: "alreadyEnded",
      count: () => rows(s, "partnerships", "status = 'ended'"),
    });
    for (const round of ["seq", "par", "batch"]) {
      const told = (await s.data(NOTES, {}, `q-${round}`)).notifications.nodes
        .filter((n: { kind: string }) => n.kind === "partner.ended");
      assert.equal(told.length, 1, `q-${round} was told once`);
    }
    // Kept: a user who never had a partner.
    const none = (await s.data(END, {}, "stranger")).endPartnership;
    assert.deepEqual([none.partnership, refusal(none)], [null, [["no_partner", null]]]);

    await assertRepeatSafe(s, {
      mutation: "unblockUser",
      query: UNBLOCK,
      prepare: async (round) => {
        const userId = await s.idOf(`blocked-${round}`);
        assert.deepEqual((await s.data(BLOCK, { userId }, "alice")).blockUser.errors, []);
        return { userId };
      },
      as: "alice",
      object: "user",
      flag: "alreadyUnblocked",
      count: fewer(s, "user_blocks"),
    });
    // A user the viewer never blocked: "not blocked" holds already.
    assert.deepEqual(
      (await s.data(UNBLOCK, { userId: await s.idOf("stranger") }, "alice"))
        .unblockUser,
      {
        user: { id: await s.idOf("stranger"), username: "stranger" },
        alreadyUnblocked: true,
        errors: [],
      },
    );
    // Kept: an unknown user, and oneself.
    const ghost = (await s.data(UNBLOCK, { userId: "A".repeat(22) }, "alice")).unblockUser;
    assert.deepEqual([ghost.user, refusal(ghost)], [null, [["not_found", "userId"]]]);
    const self = (await s.data(UNBLOCK, { userId: await s.idOf("alice") }, "alice")).unblockUser;
    assert.deepEqual([self.user, refusal(self)], [null, [["invalid", "userId"]]]);
  } finally {
    await s.close();
  }
});

const CREATE_TEAM = `mutation T($name: String!) { createTeam(name: $name) {
  team { id defaultSubCommunity { id } } ${USER_ERRORS} } }`;
const CREATE_INVITE = `mutation I($teamId: String!) { createTeamInvite(teamId: $teamId) {
  token ${USER_ERRORS} } }`;
const ACCEPT_INVITE = `mutation A($token: String!) { acceptTeamInvite(token: $token) {
  ${USER_ERRORS} } }`;
const PROMOTE = `mutation P($teamId: String!, $userId: String!, $role: TeamRole!) {
  promoteTeamMember(teamId: $teamId, userId: $userId, role: $role) { ${USER_ERRORS} } }`;
const REMOVE_MEMBER = `mutation R($teamId: String!, $userId: String!) {
  removeTeamMember(teamId: $teamId, userId: $userId) {
    member { role joinedAt user { username } } alreadyRemoved ${USER_ERRORS} } }`;
const DELETE_TEAM = `mutation D($teamId: String!) { deleteTeam(teamId: $teamId) {
  ${USER_ERRORS} } }`;
const CREATE_SUB = `mutation S($teamId: String!, $name: String!, $open: Boolean!) {
  createSubCommunity(teamId: $teamId, name: $name, open: $open) { subCommunity { id }
  ${USER_ERRORS} } }`;
const SUB_OP = (name: string) =>
  `mutation O($id: String!) { ${name}(subCommunityId: $id) {
  subCommunity { id archived memberCount } ${USER_ERRORS} } }`;
const SUB_AGAIN = (name: string, flag: string) =>
  `mutation O($id: String!) { ${name}(subCommunityId: $id) {
  subCommunity { id archived memberCount viewerIsMember } ${flag} ${USER_ERRORS} } }`;
const MEMBER_OP = (name: string) =>
  `mutation M($id: String!, $userId: String!) { ${name}(subCommunityId: $id, userId: $userId) {
  subCommunity { id memberCount } alreadyRemoved ${USER_ERRORS} } }`;

Deno.test("reverse repeats: removeTeamMember, leaveSubCommunity, removeSubCommunityMember, unarchiveSubCommunity", async () => {
  const s = await setup(SOCIAL);
  try {
    const newTeam = async (name: string, owner: string) => {
      const created = (await s.data(CREATE_TEAM, { name }, owner)).createTeam;
      assert.deepEqual(created.errors, []);
      return created.team;
    };
    const team = await newTeam("Comets", "owner");
    const teamId = team.id;
    const joinTeam = async (who: string, id = teamId, owner = "owner") => {
      const { token } = (await s.data(CREATE_INVITE, { teamId: id }, owner)).createTeamInvite;
      assert.deepEqual((await s.data(ACCEPT_INVITE, { token }, who)).acceptTeamInvite.errors, []);
    };
    for (const who of ["admin", "mate"]) await joinTeam(who);
    const idOf = (who: string) => s.idOf(who);
    await s.data(PROMOTE, { teamId, userId: await idOf("admin"), role: "admin" }, "owner");
    const remove = async (as: string, userId: string) =>
      (await s.data(REMOVE_MEMBER, { teamId, userId }, as)).removeTeamMember;

    // An owner removes a member.
    await assertRepeatSafe(s, {
      mutation: "removeTeamMember",
      query: REMOVE_MEMBER,
      prepare: async (round) => {
        await joinTeam(`gone-${round}`);
        return { teamId, userId: await idOf(`gone-${round}`) };
      },
      as: "owner",
      object: "member",
      flag: "alreadyRemoved",
      count: fewer(s, "team_members"),
    });
    // A member leaves (their own id): the repeat finds them in no team, and answers it all the
    // same.
    await assertRepeatSafe(s, {
      mutation: "removeTeamMember",
      query: REMOVE_MEMBER,
      prepare: async (round) => {
        await joinTeam(`leaver-${round}`);
        return { teamId, userId: await idOf(`leaver-${round}`) };
      },
      as: (round) => `leaver-${round}`,
      object: "member",
      flag: "alreadyRemoved",
      count: fewer(s, "team_members"),
    });

    // Kept: a user in another team, or in none, is no member of the team (not_found), whoever
    // asks; a member may not remove anyone, departed or not; an admin may not remove an owner;
    // someone outside the team asking about another user is not_found.
    await newTeam("Others", "outsider");
    for (const who of ["outsider", "loner"]) {
      assert.deepEqual(refusal(await remove("owner", await idOf(who))), [["not_found", "userId"]]);
    }
    assert.deepEqual(refusal(await remove("mate", await idOf("gone-seq"))), [
      ["not_allowed", null],
    ]);
    assert.deepEqual(refusal(await remove("outsider", await idOf("gone-seq"))), [
      ["not_found", "teamId"],
    ]);
    assert.deepEqual(refusal(await remove("leaver-seq", await idOf("gone-seq"))), [
      ["not_found", "teamId"],
    ]);
    await joinTeam("boss");
    await s.data(PROMOTE, { teamId, userId: await idOf("boss"), role: "owner" }, "owner");
    const bossLeft = await remove("boss", await idOf("boss"));
    assert.deepEqual([bossLeft.errors, bossLeft.member.role], [[], "owner"]);
    assert.deepEqual(refusal(await remove("admin", await idOf("boss"))), [["not_allowed", null]]);
    assert.deepEqual(await remove("owner", await idOf("boss")), {
      ...bossLeft,
      alreadyRemoved: true,
    });
    // The last owner still cannot go.
    assert.deepEqual(refusal(await remove("owner", await idOf("owner"))), [[
      "last_owner",
      "userId",
    ]]);
    // Back in the team: a removal is a removal again.
    await joinTeam("gone-seq");
    const again = await remove("owner", await idOf("gone-seq"));
    assert.deepEqual([again.errors, again.alreadyRemoved], [[], false]);
    // The departures go with the team.
    const temp = await newTeam("Temp", "temp-owner");
    await joinTeam("temp-mate", temp.id, "temp-owner");
    const tempGone = (await s.data(
      REMOVE_MEMBER,
      { teamId: temp.id, userId: await idOf("temp-mate") },
      "temp-owner",
    )).removeTeamMember;
    assert.deepEqual(tempGone.errors, []);
    const departures = await rows(s, "team_departures");
    assert.deepEqual(
      (await s.data(DELETE_TEAM, { teamId: temp.id }, "temp-owner")).deleteTeam.errors,
      [],
    );
    assert.equal(await rows(s, "team_departures"), departures - 1);

    const sub = async (name: string, open = true) =>
      (await s.data(CREATE_SUB, { teamId, name, open }, "owner")).createSubCommunity.subCommunity
        .id;
    await assertRepeatSafe(s, {
      mutation: "leaveSubCommunity",
      query: SUB_AGAIN("leaveSubCommunity", "alreadyLeft"),
      prepare: async (round) => {
        const id = await sub(`Leave ${round}`);
        assert.deepEqual(
          (await s.data(SUB_OP("joinSubCommunity"), { id }, "mate"))
            .joinSubCommunity.errors,
          [],
        );
        return { id };
      },
      as: "mate",
      object: "subCommunity",
      flag: "alreadyLeft",
      count: fewer(s, "team_sub_community_members"),
    });
    // Kept: the default, a closed one, another team's.
    const leave = async (id: string, as = "mate") =>
      (await s.data(SUB_OP("leaveSubCommunity"), { id }, as)).leaveSubCommunity;
    assert.deepEqual(refusal(await leave(team.defaultSubCommunity.id)), [
      ["is_default", "subCommunityId"],
    ]);
    assert.deepEqual(refusal(await leave(await sub("Closed", false))), [
      ["closed", "subCommunityId"],
    ]);
    assert.deepEqual(refusal(await leave(await sub("Ours"), "outsider")), [
      ["not_found", "subCommunityId"],
    ]);

    await assertRepeatSafe(s, {
      mutation: "removeSubCommunityMember",
      query: MEMBER_OP("removeSubCommunityMember"),
      prepare: async (round) => {
        const id = await sub(`Remove ${round}`, false);
        const vars = { id, userId: await idOf("mate") };
        assert.deepEqual(
          (await s.data(MEMBER_OP("addSubCommunityMember"), vars, "owner")).addSubCommunityMember
            .errors,
          [],
        );
        return vars;
      },
      as: "admin",
      object: "subCommunity",
      flag: "alreadyRemoved",
      count: fewer(s, "team_sub_community_members"),
    });
    // Kept: a plain member may not; someone outside the team is not found; the default.
    const removeFrom = async (id: string, who: string, as = "admin") =>
      (await s.data(MEMBER_OP("removeSubCommunityMember"), { id, userId: await idOf(who) }, as))
        .removeSubCommunityMember;
    const closedSub = await sub("Leads", false);
    assert.deepEqual(refusal(await removeFrom(closedSub, "admin", "mate")), [
      ["not_allowed", null],
    ]);
    assert.deepEqual(refusal(await removeFrom(closedSub, "loner")), [["not_found", "userId"]]);
    assert.deepEqual(refusal(await removeFrom(team.defaultSubCommunity.id, "mate")), [
      ["is_default", "subCommunityId"],
    ]);

    await assertRepeatSafe(s, {
      mutation: "unarchiveSubCommunity",
      query: SUB_AGAIN("unarchiveSubCommunity", "alreadyUnarchived"),
      prepare: async (round) => {
        const id = await sub(`Archive ${round}`);
        const archived = (await s.data(SUB_OP("archiveSubCommunity"), { id }, "owner"))
          .archiveSubCommunity;
        assert.deepEqual([archived.errors, archived.subCommunity.archived], [[], true]);
        return { id };
      },
      as: "admin",
      object: "subCommunity",
      flag: "alreadyUnarchived",
      count: fewer(s, "team_sub_communities", "archived"),
    });
    // Kept: a plain member may not; another team's member does not find it.
    const unarchive = async (id: string, as: string) =>
      (await s.data(SUB_OP("unarchiveSubCommunity"), { id }, as)).unarchiveSubCommunity;
    assert.deepEqual(refusal(await unarchive(closedSub, "mate")), [["not_allowed", null]]);
    assert.deepEqual(refusal(await unarchive(closedSub, "outsider")), [
      ["not_found", "subCommunityId"],
    ]);
  } finally {
    await s.close();
  }
});

const CREATE_EMPLOYEE = `mutation E($role: String!) {
  createAiEmployee(name: "Reporter", role: $role, taskPrompt: "Write the weekly report.") {
    employee { id } ${USER_ERRORS} } }`;
const ARCHIVE_EMPLOYEE = `mutation A($id: String!) { archiveAiEmployee(employeeId: $id) {
  ${USER_ERRORS} } }`;
const UNARCHIVE_EMPLOYEE = `mutation U($id: String!) { unarchiveAiEmployee(employeeId: $id) {
  employee { id archivedAt active } alreadyUnarchived ${USER_ERRORS} } }`;

Deno.test("reverse repeats: unarchiveAiEmployee", async () => {
  const s = await setup({ admins: ["root"] });
  try {
    await assertRepeatSafe(s, {
      mutation: "unarchiveAiEmployee",
      query: UNARCHIVE_EMPLOYEE,
      prepare: async (round) => {
        const id = (await s.data(CREATE_EMPLOYEE, { role: `unarchived_${round}` }, "root"))
          .createAiEmployee.employee.id;
        assert.deepEqual(
          (await s.data(ARCHIVE_EMPLOYEE, { id }, "root")).archiveAiEmployee.errors,
          [],
        );
        return { id };
      },
      as: "root",
      object: "employee",
      flag: "alreadyUnarchived",
      count: fewer(s, "ai_employees", "archived_at is not null"),
    });
    // Kept: an unknown employee.
    const unknown = (await s.data(UNARCHIVE_EMPLOYEE, { id: "A".repeat(22) }, "root"))
      .unarchiveAiEmployee;
    assert.deepEqual([unknown.employee, refusal(unknown)], [null, [["not_found", "employeeId"]]]);
  } finally {
    await s.close();
  }
});

const UNDO =
  `mutation U($goalId: String!, $date: Date) { undoCheckIn(goalId: $goalId, date: $date) {
  goal { id checkedInToday currentStreak } badgesRevoked { code } points alreadyUndone
  ${USER_ERRORS} } }`;

Deno.test("reverse repeats: undoCheckIn", async () => {
  const s = await setup(SOCIAL);
  try {
    await assertRepeatSafe(s, {
      mutation: "undoCheckIn",
      query: UNDO,
      prepare: async (round) => {
        const goalId = (await s.data(HABIT, { title: `Undo ${round}` })).addGoal.goal.id;
        assert.deepEqual((await s.data(CHECK_IN, { goalId })).checkInHabit.errors, []);
        return { goalId };
      },
      object: "goal",
      flag: "alreadyUndone",
      count: fewer(s, "habit_check_ins"),
    });
    // Every check-in's points were taken back once.
    assert.equal((await s.data(POINTS)).me.points, 0);

    // Kept: another user's habit or none is not found; a day too old or to come is refused.
    const goalId = (await s.data(HABIT, { title: "Mine" })).addGoal.goal.id;
    const undo = async (vars: Record<string, unknown>, as?: string) =>
      (await s.data(UNDO, vars, as)).undoCheckIn;
    assert.deepEqual(refusal(await undo({ goalId }, "bob")), [["not_found", "goalId"]]);
    assert.deepEqual(refusal(await undo({ goalId: "A".repeat(22) })), [["not_found", "goalId"]]);
    assert.deepEqual(refusal(await undo({ goalId, date: "2026-02-01" })), [
      ["undo_expired", "date"],
    ]);
    assert.deepEqual(refusal(await undo({ goalId, date: "2026-03-09" })), [["invalid", "date"]]);
  } finally {
    await s.close();
  }
});
