import assert from "node:assert/strict";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  ACCEPT,
  CREATE_INVITE,
  CREATE_TEAM,
  messagesOf,
  PREVIEW,
  PROMOTE,
  refusalOf,
  REMOVE,
  rolesOf,
  setupTeam,
} from "../../support/teams.ts";

Deno.test("teams: createTeam, myTeam, teamHome; one team per user; bad names", async () => {
  const g = await setupTeam();
  try {
    const mine = (await g.data(
      `{ myTeam { id name memberCount viewerRole
      defaultSubCommunity { name isDefault open memberCount } } }`,
      {},
      "member",
    )).myTeam;
    assert.equal(mine.id, g.teamId);
    assert.equal(mine.name, "Rockets");
    assert.equal(mine.memberCount, 3);
    assert.equal(mine.viewerRole, "member");
    assert.deepEqual(mine.defaultSubCommunity, {
      name: "General",
      isDefault: true,
      open: true,
      memberCount: 3,
    });
    assert.equal((await g.data(`{ myTeam { id } }`, {}, "loner")).myTeam, null);

    const again = (await g.data(CREATE_TEAM, { name: "Second" }, "member")).createTeam;
    assert.deepEqual(again.errors, [
      { code: "already_in_team", message: "you already belong to a team", field: null },
    ]);
    for (const name of ["", "   ", "x".repeat(81)]) {
      const res = (await g.data(CREATE_TEAM, { name }, "loner")).createTeam;
      assert.equal(res.team, null);
      assert.deepEqual(res.errors.map((e: { code: string; field: string }) => [e.code, e.field]), [
        ["invalid", "name"],
      ]);
    }
    assert.equal(codeOf(await g.run(CREATE_TEAM, { name: 5 }, "loner")), "BAD_USER_INPUT");
    assert.equal((await g.data(`{ myTeam { id } }`, {}, "loner")).myTeam, null);

    const home = (await g.data(
      `query H($id: String!) { teamHome(teamId: $id) {
        team { id } defaultSubCommunity { name } subCommunities { name }
        recentActivity { totalCount nodes { kind occurredAt user { id } subCommunity { name } } }
        standing { role leaderboardVisible weeklyRank weeklyScore } } }`,
      { id: g.teamId },
      "admin",
    )).teamHome;
    assert.equal(home.defaultSubCommunity.name, "General");
    assert.deepEqual(home.standing, {
      role: "admin",
      leaderboardVisible: true,
      weeklyRank: 1,
      weeklyScore: 0,
    });
    assert.deepEqual(
      home.recentActivity.nodes.map((a: { kind: string }) => a.kind).sort(),
      ["member_joined", "member_joined", "member_joined", "sub_community_created"],
    );
    assert.equal(home.recentActivity.totalCount, 4);
    // Another team's id, a malformed id and no session.
    const H = `query H($id: String!) { teamHome(teamId: $id) { team { id } } }`;
    assert.deepEqual(await g.data(H, { id: g.otherTeamId }), { teamHome: null });
    assert.deepEqual(await g.data(H, { id: "nope" }), { teamHome: null });
    assert.deepEqual(await g.data(H, { id: g.teamId }, "loner"), { teamHome: null });
    assert.equal(codeOf(await g.run(H, { id: g.teamId }, null)), "UNAUTHENTICATED");
  } finally {
    await g.close();
  }
});

Deno.test("teams: teamSettings and invites are for team admins; others null/not_allowed/not_found", async () => {
  const g = await setupTeam();
  try {
    const S = `query S($id: String!) { teamSettings(teamId: $id) {
      team { id } activeInvites { nodes { id uses maxUses createdBy { id } } }
      subCommunities { name } } }`;
    assert.equal(
      (await g.data(S, { id: g.teamId }, "admin")).teamSettings.activeInvites.nodes.length,
      1,
    );
    assert.equal((await g.data(S, { id: g.teamId }, "member")).teamSettings, null);
    assert.equal((await g.data(S, { id: g.teamId }, "outsider")).teamSettings, null);
    assert.equal((await g.data(S, { id: g.otherTeamId }, "owner")).teamSettings, null);
    assert.equal(codeOf(await g.run(S, { id: g.teamId }, null)), "UNAUTHENTICATED");

    const inv = { teamId: g.teamId };
    assert.equal(refusalOf(await g.run(CREATE_INVITE, inv, "member")), "not_allowed");
    assert.equal(refusalOf(await g.run(CREATE_INVITE, inv, "outsider")), "not_found");
    assert.equal(
      refusalOf(await g.run(CREATE_INVITE, { teamId: g.otherTeamId }, "admin")),
      "not_found",
    );
    for (const bad of [{ hours: 0 }, { hours: 721 }, { maxUses: 0 }, { maxUses: 1001 }]) {
      const res = (await g.data(CREATE_INVITE, { ...inv, ...bad })).createTeamInvite;
      assert.equal(res.token, null);
      assert.deepEqual(res.errors.map((e: { code: string }) => e.code), ["invalid"]);
      assert.equal(
        res.errors[0].field,
        Object.keys(bad)[0] === "hours" ? "expiresInHours" : "maxUses",
      );
    }
    assert.equal((await g.data(S, { id: g.teamId })).teamSettings.activeInvites.nodes.length, 1);

    const created = (await g.data(CREATE_INVITE, { ...inv, hours: 2, maxUses: 3 }, "admin"))
      .createTeamInvite;
    assert.deepEqual(created.errors, []);
    assert.ok(created.token.length >= 22, "at least 128 bits");
    assert.equal(created.invite.expiresAt, "2026-03-04T14:00:00.000Z");
    // The token is stored only as a hash.
    const stored = await g.t.deps.db.sql`select token_hash from team_invites`;
    assert.ok(stored.every((r) => r.token_hash !== created.token && r.token_hash.length === 64));

    const R =
      `mutation R($id: String!) { revokeTeamInvite(inviteId: $id) { invite { revoked } errors { code } } }`;
    assert.equal(refusalOf(await g.run(R, { id: created.invite.id }, "member")), "not_allowed");
    assert.equal(refusalOf(await g.run(R, { id: created.invite.id }, "outsider")), "not_found");
    assert.equal(refusalOf(await g.run(R, { id: created.invite.id }, "loner")), "not_found");
    assert.equal((await g.data(PREVIEW, { token: created.token })).teamInvitePreview.valid, true);
    const revoked = (await g.data(R, { id: created.invite.id })).revokeTeamInvite;
    assert.deepEqual(revoked, { invite: { revoked: true }, errors: [] });
    // A retry answers the revoked invite as it is, with the flag.
    const R2 = `mutation R($id: String!) {
      revokeTeamInvite(inviteId: $id) { invite { revoked } alreadyRevoked errors { code } } }`;
    assert.deepEqual((await g.data(R2, { id: created.invite.id })).revokeTeamInvite, {
      invite: { revoked: true },
      alreadyRevoked: true,
      errors: [],
    });
    const refused = (await g.data(ACCEPT, { token: created.token }, "loner")).acceptTeamInvite;
    assert.equal(refused.team, null);
    assert.equal(refused.errors[0].code, "invite_unusable");
    assert.equal(refused.errors[0].field, "token");
    assert.match(refused.errors[0].message, /invalid, expired, revoked or used up/);
  } finally {
    await g.close();
  }
});

Deno.test("teams: teamInvitePreview is public and hides which tokens exist", async () => {
  const g = await setupTeam();
  try {
    const inv = (await g.data(CREATE_INVITE, { teamId: g.teamId, hours: 1 })).createTeamInvite;
    await g.data(`mutation { updateMe(firstName: "Olga", lastName: "Owner") { errors { code } } }`);
    const preview = (await g.data(PREVIEW, { token: inv.token }, undefined)).teamInvitePreview;
    const anon = await g.run(PREVIEW, { token: inv.token }, null);
    assert.equal(anon.status, 200);
    assert.deepEqual(anon.body.data.teamInvitePreview, preview);
    assert.deepEqual(preview, {
      valid: true,
      teamName: "Rockets",
      memberCount: 3,
      inviterName: "Olga Owner",
      expiresAt: "2026-03-04T13:00:00.000Z",
    });
    const invalid = {
      valid: false,
      teamName: null,
      memberCount: null,
      inviterName: null,
      expiresAt: null,
    };
    for (const token of ["", "short", "x".repeat(300), "A".repeat(43), inv.token + "x"]) {
      assert.deepEqual(
        (await g.run(PREVIEW, { token }, null)).body.data.teamInvitePreview,
        invalid,
      );
    }
    g.clock.advance(3_600_000);
    assert.deepEqual(
      (await g.run(PREVIEW, { token: inv.token }, null)).body.data.teamInvitePreview,
      invalid,
    );
    const late = (await g.data(ACCEPT, { token: inv.token }, "loner")).acceptTeamInvite;
    assert.match(late.errors[0].message, /expired/);
    // Other operations still need a session.
    assert.equal(codeOf(await g.run(`{ myTeam { id } }`, {}, null)), "UNAUTHENTICATED");
  } finally {
    await g.close();
  }
});

Deno.test("teams: concurrent accepts of a one-use invite admit exactly one user", async () => {
  const g = await setupTeam();
  try {
    const inv = (await g.data(CREATE_INVITE, { teamId: g.teamId, maxUses: 1 })).createTeamInvite;
    const tokens = await Promise.all(["p1", "p2", "p3", "p4", "p5"].map((s) => g.token(s)));
    const results = await Promise.all(
      tokens.map((token) => gql(g.t, ACCEPT, { token: inv.token }, { token })),
    );
    const ok = results.filter((r) => r.body.data.acceptTeamInvite.errors.length === 0);
    assert.equal(ok.length, 1, JSON.stringify(results.map((r) => r.body)));
    const [row] = await g.t.deps.db.sql`select uses, max_uses from team_invites
      where public_id = ${inv.invite.id}`;
    assert.deepEqual({ uses: row.uses, max: row.max_uses }, { uses: 1, max: 1 });
    assert.equal(Object.keys(await rolesOf(g)).length, 4);
    // A member of the invite's team accepting again gets the team with the flag (a retry).
    const A2 = `mutation A($token: String!) {
      acceptTeamInvite(token: $token) { team { id } alreadyMember errors { code } } }`;
    assert.deepEqual((await g.data(A2, { token: inv.token }, "member")).acceptTeamInvite, {
      team: { id: g.teamId },
      alreadyMember: true,
      errors: [],
    });
    // A multi-use invite: a user already in a team does not use it up.
    const multi = (await g.data(CREATE_INVITE, { teamId: g.teamId, maxUses: 2 })).createTeamInvite;
    assert.deepEqual(
      (await g.data(ACCEPT, { token: multi.token }, "outsider")).acceptTeamInvite
        .errors.map((e: { code: string }) => e.code),
      ["already_in_team"],
    );
    assert.deepEqual(
      (await g.data(ACCEPT, { token: multi.token }, "loner")).acceptTeamInvite
        .errors,
      [],
    );
    const home =
      (await g.data(`{ myTeam { defaultSubCommunity { viewerIsMember } } }`, {}, "loner"))
        .myTeam;
    assert.equal(home.defaultSubCommunity.viewerIsMember, true);
  } finally {
    await g.close();
  }
});

Deno.test("teams: roles — who may promote and remove whom", async () => {
  const g = await setupTeam();
  try {
    const P = (userId: string, role: string) => ({ teamId: g.teamId, userId, role });
    // member cannot promote; admin cannot touch owners or make owners; outsider: NOT_FOUND.
    assert.equal(
      refusalOf(await g.run(PROMOTE, P(g.ids.member, "admin"), "member")),
      "not_allowed",
    );
    assert.equal(refusalOf(await g.run(PROMOTE, P(g.ids.member, "owner"), "admin")), "not_allowed");
    assert.equal(refusalOf(await g.run(PROMOTE, P(g.ids.owner, "member"), "admin")), "not_allowed");
    assert.equal(
      refusalOf(await g.run(PROMOTE, P(g.ids.member, "admin"), "outsider")),
      "not_found",
    );
    assert.equal(refusalOf(await g.run(PROMOTE, P(g.ids.outsider, "admin"), "owner")), "not_found");
    assert.equal(refusalOf(await g.run(PROMOTE, P("bad id", "admin"), "owner")), "not_found");
    assert.equal(
      refusalOf(await g.run(PROMOTE, P(g.ids.member, "king"), "owner")),
      "BAD_USER_INPUT",
    );
    assert.deepEqual(await rolesOf(g), {
      [g.ids.owner]: "owner",
      [g.ids.admin]: "admin",
      [g.ids.member]: "member",
    });
    // The last owner cannot step down.
    assert.deepEqual(
      (await g.data(PROMOTE, P(g.ids.owner, "admin"))).promoteTeamMember.errors,
      [{ code: "last_owner", message: "a team needs at least one owner", field: "userId" }],
    );
    // Admin promotes member to admin and back.
    const up = (await g.data(PROMOTE, P(g.ids.member, "admin"), "admin")).promoteTeamMember;
    assert.deepEqual(up, { member: { role: "admin", user: { id: g.ids.member } }, errors: [] });
    await g.data(PROMOTE, P(g.ids.member, "member"), "admin");

    // Removal: member cannot remove others; admin cannot remove admin/owner; member can leave.
    const Rm = (userId: string) => ({ teamId: g.teamId, userId });
    assert.equal(refusalOf(await g.run(REMOVE, Rm(g.ids.admin), "member")), "not_allowed");
    assert.equal(refusalOf(await g.run(REMOVE, Rm(g.ids.owner), "admin")), "not_allowed");
    assert.equal(refusalOf(await g.run(REMOVE, Rm(g.ids.member), "outsider")), "not_found");
    assert.equal(refusalOf(await g.run(REMOVE, Rm(g.ids.outsider), "owner")), "not_found");
    assert.deepEqual(messagesOf((await g.data(REMOVE, Rm(g.ids.owner))).removeTeamMember), [
      "the last owner cannot be removed; make someone else owner first",
    ]);
    assert.equal(Object.keys(await rolesOf(g)).length, 3);
    assert.deepEqual((await g.data(REMOVE, Rm(g.ids.member), "member")).removeTeamMember, {
      member: { role: "member", user: { id: g.ids.member } },
      errors: [],
    });
    assert.equal((await g.data(`{ myTeam { id } }`, {}, "member")).myTeam, null);
    // Owner removes admin; the removed admin's sub-community memberships are gone too.
    assert.equal(
      (await g.data(REMOVE, Rm(g.ids.admin))).removeTeamMember.member.user.id,
      g.ids.admin,
    );
    const left = await g.t.deps.db.sql`select count(*)::int as n from team_sub_community_members`;
    assert.equal(left[0].n, 2); // the two owners' default sub-communities
  } finally {
    await g.close();
  }
});

Deno.test("teams: two owners removing each other at once leave one owner", async () => {
  const g = await setupTeam();
  try {
    const P = { teamId: g.teamId, userId: g.ids.admin, role: "owner" };
    assert.deepEqual((await g.data(PROMOTE, P)).promoteTeamMember.errors, []);
    const [a, b] = await Promise.all([
      g.run(REMOVE, { teamId: g.teamId, userId: g.ids.admin }, "owner"),
      g.run(REMOVE, { teamId: g.teamId, userId: g.ids.owner }, "admin"),
    ]);
    const removed = [a, b].filter((r) => r.body.data?.removeTeamMember.member).length;
    assert.equal(removed, 1, JSON.stringify([a.body, b.body]));
    const [row] = await g.t.deps.db.sql`
      select t.owner_count, (select count(*)::int from team_members m
        where m.team_id = t.id and m.role = 'owner') as owners
      from teams t where public_id = ${g.teamId}`;
    assert.deepEqual({ count: row.owner_count, owners: row.owners }, { count: 1, owners: 1 });
    // Also leaving concurrently: both owners leave at once.
    const survivor = a.body.data.removeTeamMember.member ? "owner" : "admin";
    const last = (await g.data(REMOVE, { teamId: g.teamId, userId: g.ids[survivor] }, survivor))
      .removeTeamMember;
    assert.deepEqual([last.member, last.errors[0].code], [null, "last_owner"]);
  } finally {
    await g.close();
  }
});

Deno.test("teams: activity, invites and members page both ways and count", async () => {
  const g = await setupTeam();
  try {
    // Five more invites (six usable) and two sub-communities, a minute apart.
    for (let i = 0; i < 5; i++) {
      g.clock.advance(60_000);
      await g.data(CREATE_INVITE, { teamId: g.teamId });
    }
    for (const name of ["Runners", "Readers"]) {
      g.clock.advance(60_000);
      await g.data(
        `mutation C($teamId: String!, $name: String!) {
          createSubCommunity(teamId: $teamId, name: $name, open: true) { errors { code } } }`,
        { teamId: g.teamId, name },
      );
    }
    const ACTIVITY =
      `query A($id: String!, $first: Int, $after: String, $last: Int, $before: String) {
      teamHome(teamId: $id) { recentActivity(first: $first, after: $after, last: $last, before: $before) {
        totalCount nodes { kind subCommunity { name } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    const activity = async (vars: Record<string, unknown>) =>
      (await g.data(ACTIVITY, { id: g.teamId, ...vars }, "member")).teamHome.recentActivity;
    const label = (n: { kind: string; subCommunity: { name: string } | null }) =>
      n.subCommunity ? n.subCommunity.name : n.kind;
    const all = await activity({});
    assert.equal(all.totalCount, 6); // three joins, General, Runners, Readers
    assert.deepEqual(all.nodes.slice(0, 2).map(label), ["Readers", "Runners"]);
    const first = await activity({ first: 2 });
    const rest = await activity({ first: 10, after: first.pageInfo.endCursor });
    assert.deepEqual([...first.nodes, ...rest.nodes].map(label), all.nodes.map(label));
    const tail = await activity({ last: 2 });
    assert.deepEqual(tail.nodes.map(label), all.nodes.slice(4).map(label));
    assert.equal(tail.pageInfo.hasPreviousPage, true);
    const before = await activity({ last: 10, before: tail.pageInfo.startCursor });
    assert.deepEqual(before.nodes.map(label), all.nodes.slice(0, 4).map(label));
    assert.equal(before.pageInfo.hasPreviousPage, false);

    const INVITES = `query S($id: String!, $last: Int, $before: String) {
      teamSettings(teamId: $id) { activeInvites(last: $last, before: $before) {
        totalCount nodes { id createdAt } pageInfo { hasPreviousPage startCursor } } } }`;
    const invites = async (vars: Record<string, unknown>) =>
      (await g.data(INVITES, { id: g.teamId, ...vars }, "admin")).teamSettings.activeInvites;
    const oldest = await invites({ last: 2 });
    assert.equal(oldest.totalCount, 6);
    assert.equal(oldest.nodes.length, 2);
    assert.ok(oldest.nodes[0].createdAt > oldest.nodes[1].createdAt, "newest first");
    const newer = await invites({ last: 10, before: oldest.pageInfo.startCursor });
    assert.equal(newer.nodes.length, 4);
    assert.equal(newer.pageInfo.hasPreviousPage, false);

    const MEMBERS_BACK = `query M($id: String!) { teamHome(teamId: $id) {
      team { members(last: 1) { totalCount nodes { role joinedAt } pageInfo { hasPreviousPage } } } } }`;
    const members = (await g.data(MEMBERS_BACK, { id: g.teamId })).teamHome.team.members;
    const roles = Object.values(await rolesOf(g)); // in join order
    assert.deepEqual(members.nodes.map((n: { role: string }) => n.role), roles.slice(-1));
    assert.deepEqual([members.totalCount, members.pageInfo.hasPreviousPage], [3, true]);
    assert.match(members.nodes[0].joinedAt, /^\d{4}-\d\d-\d\dT[\d:]{8}\.\d{3}Z$/);
  } finally {
    await g.close();
  }
});
