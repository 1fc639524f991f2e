import assert from "node:assert/strict";
import {
  canRead,
  canSee,
  type CommunityAccess,
  joinError,
  leaveError,
  newCommunityErrors,
  postBodyError,
  postRefusal,
  transferError,
} from "../../../src/features/communities/rules.ts";

Deno.test("rules: community membership and posts", () => {
  assert.deepEqual(newCommunityErrors({ name: "Abc", description: null, memberLimit: null }), []);
  assert.deepEqual(
    newCommunityErrors({ name: "Ab", description: "\u0000", memberLimit: 1 }).map((e) => e.field),
    ["name", "description", "memberLimit"],
  );
  const outsider = { visibility: "private" as const, role: null, invited: false };
  assert.equal(canSee(outsider), false);
  assert.equal(canSee({ ...outsider, invited: true }), true);
  assert.equal(canRead({ ...outsider, invited: true }), false);
  assert.equal(joinError(outsider)?.code, "invite_required");
  assert.equal(joinError({ ...outsider, invited: true }), null);
  assert.equal(leaveError({ ...outsider, role: "owner" })?.code, "owner_cannot_leave");
  assert.equal(postBodyError("tab\tand\nnewline ok"), null);
});

const memberAccess = (role: CommunityAccess["role"]): CommunityAccess => ({
  visibility: "public",
  role,
  invited: false,
});

Deno.test("communities: only the owner transfers, to another member; the owner cannot leave", () => {
  assert.equal(transferError(memberAccess("member"), false, "member")?.code, "not_allowed");
  assert.equal(transferError(memberAccess(null), false, "member")?.code, "not_allowed");
  const self = transferError(memberAccess("owner"), true, "owner");
  assert.deepEqual([self?.code, self?.field], ["invalid", "userId"]);
  const outsider = transferError(memberAccess("owner"), false, null);
  assert.deepEqual([outsider?.code, outsider?.field], ["not_member", "userId"]);
  assert.equal(transferError(memberAccess("owner"), false, "member"), null);

  assert.equal(leaveError(memberAccess(null)), null, "a non-member's leave already holds");
  assert.match(leaveError(memberAccess("owner"))!.message, /transfer ownership to a member first/);
  assert.equal(leaveError(memberAccess("member")), null);
});

Deno.test("communities: a refused post change is not_found when unreadable, else not_allowed", () => {
  assert.deepEqual(
    [postRefusal("not_found", "edit").code, postRefusal("not_found", "edit").field],
    ["not_found", "postId"],
  );
  assert.match(postRefusal("not_allowed", "edit").message, /author, while a member/);
  assert.match(postRefusal("not_allowed", "remove").message, /owner or an admin/);
});
