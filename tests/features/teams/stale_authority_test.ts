/**
 * Authority is checked by each write statement, not only by the read before it: an admin demoted
 * while a request runs (simulated by calling the store with the role the request read) is refused
 * by the database, and nothing changes.
 */
import assert from "node:assert/strict";
import { CREATE_INVITE, PROMOTE, setupTeam } from "../../support/teams.ts";
import * as store from "../../../src/features/teams/store.ts";

Deno.test("teams: a demoted admin's in-flight writes are refused by the statements themselves", async () => {
  const g = await setupTeam();
  try {
    const sql = g.t.deps.db.sql;
    const idOf = async (publicId: string) =>
      (await sql<{ id: string }[]>`select id from users where public_id = ${publicId}`)[0].id;
    const [team] = await sql<{ id: string; defaultId: string }[]>`
      select id, default_sub_community_id as "defaultId" from teams where public_id = ${g.teamId}`;
    const admin = await idOf(g.ids.admin);
    const member = await idOf(g.ids.member);
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId }, "admin")).createTeamInvite;
    assert.deepEqual(invite.errors, []);
    const [spare] = await sql<{ id: string }[]>`
      insert into team_sub_communities (public_id, team_id, name, open, created_by, created_at)
      values ('spare-sub-community', ${team.id}, 'Spare', true, ${admin}, now()) returning id`;

    // The owner demotes the admin; the admin's request had already read role "admin".
    const demoted = (await g.data(
      PROMOTE,
      { teamId: g.teamId, userId: g.ids.admin, role: "member" },
      "owner",
    )).promoteTeamMember;
    assert.deepEqual(demoted.errors, []);
    const stale: store.Authority = { userId: admin, role: "admin" };

    const snapshot = async () =>
      JSON.stringify(
        await sql`
        select (select json_agg(i order by i.id) from team_invites i) as invites,
               (select json_agg(s order by s.id) from team_sub_communities s) as subs,
               (select json_agg(m order by m.user_id) from team_members m) as members,
               (select json_agg(t order by t.id) from teams t) as teams`,
      );
    const before = await snapshot();
    const at = new Date();
    assert.equal(
      await store.insertInvite(sql, stale, {
        teamId: team.id,
        hash: "x".repeat(43),
        expiresAt: new Date(at.getTime() + 3_600_000),
        maxUses: null,
        at,
      }),
      null,
    );
    const [inviteRow] = await sql<{ publicId: string }[]>`
      select public_id as "publicId" from team_invites where team_id = ${team.id}`;
    assert.equal(
      (await store.revokeInvite(sql, stale, team.id, inviteRow.publicId, at)).result,
      "forbidden",
    );
    assert.equal(
      await store.createSubCommunity(sql, stale, {
        teamId: team.id,
        name: "Late",
        description: null,
        open: true,
        at,
      }),
      null,
    );
    assert.equal(await store.archiveSubCommunity(sql, stale, team.id, spare.id, at), "forbidden");
    assert.equal(await store.setDefaultSubCommunity(sql, stale, team.id, spare.id), "forbidden");
    assert.equal(
      await store.moveMember(sql, stale, team.id, member, "member", "admin", at),
      "stale",
    );
    assert.equal(await store.moveMember(sql, stale, team.id, member, "member", null, at), "stale");
    assert.equal(await snapshot(), before, "refused writes change nothing");

    // The same calls with the authority the actor really holds go through.
    const owner: store.Authority = { userId: await idOf(g.ids.owner), role: "owner" };
    assert.equal(await store.archiveSubCommunity(sql, owner, team.id, spare.id, at), "done");
    assert.equal(await store.unarchiveSubCommunity(sql, stale, team.id, spare.id), "forbidden");
    assert.equal(await store.unarchiveSubCommunity(sql, owner, team.id, spare.id), "done");
    assert.equal(
      await store.moveMember(sql, owner, team.id, member, "member", "admin", at),
      "moved",
    );
  } finally {
    await g.close();
  }
});
