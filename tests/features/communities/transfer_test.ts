import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";
import * as social from "../../support/social.ts";

const TRANSFER = `mutation T($id: String!, $userId: String!) {
  transferCommunityOwnership(communityId: $id, userId: $userId) {
    community { id owner { username } viewerRole } alreadyOwner ${USER_ERRORS} } }`;
const ONE =
  `query O($id: String!) { community(id: $id) { owner { username } viewerRole memberCount } }`;
const NOTES = `{ notifications(first: 5) { nodes { kind content } } }`;

Deno.test("community ownership: the owner hands it to a member, then may leave", async () => {
  const s = await setup({ ...social.SOCIAL });
  try {
    const c = await social.createCommunity(s, "owner", { name: "Climbers" });
    for (const m of ["bob", "dave"]) await s.data(social.JOIN, { id: c.id }, m);
    const bob = await s.idOf("bob");
    const carol = await s.idOf("carol");
    const refused = async (as: string, vars: Record<string, unknown>) =>
      (await s.data(TRANSFER, vars, as)).transferCommunityOwnership;

    // The owner cannot just leave.
    assert.deepEqual((await s.data(social.LEAVE, { id: c.id }, "owner")).leaveCommunity.errors, [{
      code: "owner_cannot_leave",
      message: "the owner cannot leave their community; transfer ownership to a member first",
      field: null,
    }]);

    // A member, a non-member target, oneself, unknown and malformed ids, another community's id:
    // refused and nothing changes.
    assert.deepEqual((await refused("dave", { id: c.id, userId: bob })).errors, [{
      code: "not_allowed",
      message: "only the community's owner can transfer it",
      field: null,
    }]);
    assert.deepEqual((await refused("owner", { id: c.id, userId: carol })).errors, [{
      code: "not_member",
      message: "the new owner must be a member of the community",
      field: "userId",
    }]);
    assert.equal(
      (await refused("owner", { id: c.id, userId: await s.idOf("owner") })).errors[0].code,
      "invalid",
    );
    for (const userId of ["x".repeat(22), "nope"]) {
      assert.deepEqual((await refused("owner", { id: c.id, userId })).errors, [
        { code: "not_found", message: "no such user", field: "userId" },
      ]);
    }
    const hidden = await social.createCommunity(s, "carol", {
      name: "Secret",
      visibility: "private",
    });
    assert.deepEqual((await refused("owner", { id: hidden.id, userId: bob })).errors, [
      { code: "not_found", message: "no such community", field: "communityId" },
    ]);
    assert.equal(codeOf(await s.run(TRANSFER, { id: c.id }, "owner")), "BAD_USER_INPUT");
    assert.equal((await s.data(ONE, { id: c.id }, "bob")).community.owner.username, "owner");

    // The transfer: bob owns it and is told; the former owner is a member who may now leave.
    const done = await refused("owner", { id: c.id, userId: bob });
    assert.deepEqual(done.errors, []);
    assert.equal(done.community.owner.username, "bob");
    assert.equal(done.community.viewerRole, "member");
    assert.equal((await s.data(ONE, { id: c.id }, "bob")).community.viewerRole, "owner");
    assert.deepEqual((await s.data(NOTES, {}, "bob")).notifications.nodes[0], {
      kind: "community.ownership_transferred",
      content: "You are now the owner of the community Climbers.",
    });
    // A retry answers the community as it is, with the flag; nothing changes and nobody is told.
    const again = await refused("owner", { id: c.id, userId: bob });
    assert.deepEqual(again.errors, []);
    assert.equal(again.alreadyOwner, true);
    assert.equal(again.community.owner.username, "bob");
    assert.equal((await s.data(NOTES, {}, "bob")).notifications.nodes.length, 1);
    assert.equal(
      (await s.data(social.LEAVE, { id: c.id }, "bob")).leaveCommunity.errors[0].code,
      "owner_cannot_leave",
    );
    assert.deepEqual((await s.data(social.LEAVE, { id: c.id }, "owner")).leaveCommunity.errors, []);
    const [row] = await s.t.deps.db.sql`
      select (select count(*)::int from community_members m
              where m.community_id = c.id and m.role = 'owner') as owners,
             (select u.username from users u where u.id = c.owner_id) as owner
      from communities c where c.public_id = ${c.id}`;
    assert.deepEqual({ ...row }, { owners: 1, owner: "bob" });
  } finally {
    await s.close();
  }
});

Deno.test("community ownership: concurrent transfers and a leaving target leave exactly one owner", async () => {
  const s = await setup({ ...social.SOCIAL });
  try {
    const c = await social.createCommunity(s, "owner", { name: "Rowers" });
    for (const m of ["bob", "dave", "erin"]) await s.data(social.JOIN, { id: c.id }, m);
    const [bob, dave, erin] = await Promise.all(["bob", "dave", "erin"].map((u) => s.idOf(u)));
    const [toBob, toDave, erinLeaves, toErin] = await Promise.all([
      s.data(TRANSFER, { id: c.id, userId: bob }, "owner"),
      s.data(TRANSFER, { id: c.id, userId: dave }, "owner"),
      s.data(social.LEAVE, { id: c.id }, "erin"),
      s.data(TRANSFER, { id: c.id, userId: erin }, "owner"),
    ]);
    const ok = [toBob, toDave, toErin].filter((r) =>
      r.transferCommunityOwnership.errors.length === 0
    );
    assert.ok(ok.length <= 1, JSON.stringify([toBob, toDave, toErin]));
    for (const r of [toBob, toDave, toErin]) {
      const errors = r.transferCommunityOwnership.errors;
      if (errors.length) {
        assert.ok(
          ["not_allowed", "conflict", "not_member"].includes(errors[0].code),
          errors[0].code,
        );
      }
    }
    assert.ok(erinLeaves.leaveCommunity.errors.length <= 1);
    const [row] = await s.t.deps.db.sql`
      select (select count(*)::int from community_members m
              where m.community_id = c.id and m.role = 'owner') as owners,
             exists (select 1 from community_members m where m.community_id = c.id
                     and m.user_id = c.owner_id and m.role = 'owner') as consistent,
             c.member_count = (select count(*) from community_members m
                               where m.community_id = c.id) as counted
      from communities c where c.public_id = ${c.id}`;
    assert.deepEqual({ ...row }, { owners: 1, consistent: true, counted: true });
  } finally {
    await s.close();
  }
});
