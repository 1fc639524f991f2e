import assert from "node:assert/strict";
import { USER_ERRORS } from "../../support/graphql.ts";
import {
  ACCEPT,
  CREATE_INVITE,
  CREATE_TEAM,
  PROMOTE,
  refusalOf,
  REMOVE,
  rolesOf,
  setupTeam,
} from "../../support/teams.ts";

const RENAME = `mutation R($teamId: String!, $name: String!) {
  updateTeam(teamId: $teamId, name: $name) { team { id name } ${USER_ERRORS} } }`;
const TRANSFER = `mutation T($teamId: String!, $userId: String!) {
  transferTeamOwnership(teamId: $teamId, userId: $userId) { team { id viewerRole } ${USER_ERRORS} } }`;
const DELETE =
  `mutation D($teamId: String!) { deleteTeam(teamId: $teamId) { deletedTeamId ${USER_ERRORS} } }`;
const MY_TEAM = `{ myTeam { id name } }`;

Deno.test("teams: owners rename; others, other teams and bad names are refused", async () => {
  const g = await setupTeam();
  try {
    for (const who of ["admin", "member"] as const) {
      assert.equal(
        refusalOf(await g.run(RENAME, { teamId: g.teamId, name: "Mine" }, who)),
        "not_allowed",
      );
    }
    assert.equal(
      refusalOf(await g.run(RENAME, { teamId: g.otherTeamId, name: "Mine" })),
      "not_found",
    );
    assert.equal(refusalOf(await g.run(RENAME, { teamId: "nope", name: "Mine" })), "not_found");
    assert.deepEqual((await g.data(RENAME, { teamId: g.teamId, name: "  " })).updateTeam.errors, [
      { code: "invalid", message: "name must not be empty", field: "name" },
    ]);
    assert.equal(
      refusalOf(await g.run(RENAME, { teamId: g.teamId, name: "x".repeat(81) })),
      "invalid",
    );
    assert.equal(refusalOf(await g.run(RENAME, { teamId: g.teamId })), "BAD_USER_INPUT");
    assert.equal((await g.data(MY_TEAM, {}, "member")).myTeam.name, "Rockets");
    const done = (await g.data(RENAME, { teamId: g.teamId, name: " Comets " })).updateTeam;
    assert.deepEqual(done.errors, []);
    assert.equal(done.team.name, "Comets");
    assert.equal((await g.data(MY_TEAM, {}, "member")).myTeam.name, "Comets");
  } finally {
    await g.close();
  }
});

Deno.test("teams: ownership goes to an admin or member; the old owner becomes an admin", async () => {
  const g = await setupTeam();
  try {
    const transfer = (userId: string, who = "owner", teamId = g.teamId) =>
      g.run(TRANSFER, { teamId, userId }, who);
    assert.equal(refusalOf(await transfer(g.ids.member, "admin")), "not_allowed");
    assert.equal(refusalOf(await transfer(g.ids.member, "member")), "not_allowed");
    assert.equal(refusalOf(await transfer(g.ids.outsider)), "not_found");
    assert.equal(refusalOf(await transfer(g.ids.member, "owner", g.otherTeamId)), "not_found");
    assert.equal(refusalOf(await transfer("nope")), "not_found");
    assert.equal(refusalOf(await transfer(g.ids.owner)), "invalid");
    assert.deepEqual(await rolesOf(g), {
      [g.ids.owner]: "owner",
      [g.ids.admin]: "admin",
      [g.ids.member]: "member",
    });

    const done = (await transfer(g.ids.member)).body!.data!.transferTeamOwnership;
    assert.deepEqual(done.errors, []);
    assert.equal(done.team.viewerRole, "admin");
    assert.deepEqual(await rolesOf(g), {
      [g.ids.owner]: "admin",
      [g.ids.admin]: "admin",
      [g.ids.member]: "owner",
    });
    // The new owner is the last owner: they cannot leave; the former owner now can.
    assert.equal(
      refusalOf(await g.run(REMOVE, { teamId: g.teamId, userId: g.ids.member }, "member")),
      "last_owner",
    );
    const [{ owners }] = await g.t.deps.db.sql`
      select owner_count as owners from teams where public_id = ${g.teamId}`;
    assert.equal(owners, 1);
  } finally {
    await g.close();
  }
});

Deno.test("teams: concurrent transfers by one owner make exactly one new owner", async () => {
  const g = await setupTeam();
  try {
    const results = await Promise.all(
      [g.ids.admin, g.ids.member].map((userId) => g.run(TRANSFER, { teamId: g.teamId, userId })),
    );
    const codes = results.map(refusalOf);
    assert.equal(codes.filter((c) => c === undefined).length, 1, JSON.stringify(codes));
    for (const c of codes) assert.ok(c === undefined || c === "conflict" || c === "not_allowed", c);
    const roles = Object.values(await rolesOf(g));
    assert.equal(roles.filter((r) => r === "owner").length, 1);
    const [row] = await g.t.deps.db.sql`
      select t.owner_count as counted,
             (select count(*)::int from team_members m where m.team_id = t.id and m.role = 'owner')
               as owners
      from teams t where t.public_id = ${g.teamId}`;
    assert.deepEqual({ ...row }, { counted: 1, owners: 1 });
  } finally {
    await g.close();
  }
});

Deno.test("teams: owners delete the team; members are free to join another", async () => {
  const g = await setupTeam();
  try {
    for (const who of ["admin", "member", "outsider", "loner"] as const) {
      assert.equal(
        refusalOf(await g.run(DELETE, { teamId: g.teamId }, who)),
        who === "admin" || who === "member" ? "not_allowed" : "not_found",
        who,
      );
    }
    assert.equal(refusalOf(await g.run(DELETE, { teamId: g.otherTeamId })), "not_found");
    assert.equal(refusalOf(await g.run(DELETE, { teamId: "nope" })), "not_found");
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;

    const done = (await g.data(DELETE, { teamId: g.teamId })).deleteTeam;
    assert.deepEqual(done, { deletedTeamId: g.teamId, errors: [] });
    const deleteStatements = g.lastStatements();
    for (const who of ["owner", "admin", "member"] as const) {
      assert.equal((await g.data(MY_TEAM, {}, who)).myTeam, null);
    }
    const [left] = await g.t.deps.db.sql`
      select (select count(*)::int from teams where public_id = ${g.teamId}) as teams,
             (select count(*)::int from team_members m join users u on u.id = m.user_id
              where u.public_id = any(${[g.ids.owner, g.ids.admin, g.ids.member]})) as members`;
    assert.deepEqual({ ...left }, { teams: 0, members: 0 });
    // Its invite is gone; a second delete finds nothing; the members may start again.
    assert.equal(
      refusalOf(await g.run(ACCEPT, { token: invite.token }, "loner")),
      "invite_unusable",
    );
    assert.equal(refusalOf(await g.run(DELETE, { teamId: g.teamId })), "not_found");
    assert.deepEqual(
      (await g.data(CREATE_TEAM, { name: "Again" }, "member")).createTeam.errors,
      [],
    );
    // The other team is untouched.
    const [{ n }] = await g.t.deps.db.sql`
      select count(*)::int as n from team_members m join teams t on t.id = m.team_id
      where t.public_id = ${g.otherTeamId}`;
    assert.equal(n, 1);

    // A bigger team costs the same number of statements to delete.
    const big = (await g.data(CREATE_TEAM, { name: "Big" }, "loner")).createTeam.team;
    const token = (await g.data(CREATE_INVITE, { teamId: big.id }, "loner")).createTeamInvite.token;
    for (const who of ["owner", "admin"]) await g.data(ACCEPT, { token }, who);
    await g.data(PROMOTE, { teamId: big.id, userId: g.ids.owner, role: "admin" }, "loner");
    assert.deepEqual((await g.data(DELETE, { teamId: big.id }, "loner")).deleteTeam.errors, []);
    assert.equal(g.lastStatements(), deleteStatements);
  } finally {
    await g.close();
  }
});

Deno.test("teams: an invite accepted while the team is deleted either joins first or is unusable", async () => {
  const g = await setupTeam();
  try {
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId })).createTeamInvite;
    const [deleted, accepted] = await Promise.all([
      g.run(DELETE, { teamId: g.teamId }),
      g.run(ACCEPT, { token: invite.token }, "loner"),
    ]);
    assert.equal(refusalOf(deleted), undefined);
    assert.ok([undefined, "invite_unusable", "not_found"].includes(refusalOf(accepted)));
    assert.equal((await g.data(MY_TEAM, {}, "loner")).myTeam, null);
  } finally {
    await g.close();
  }
});
