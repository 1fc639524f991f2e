import assert from "node:assert/strict";
import {
  canRead,
  canSee,
  joinError,
  leaveError,
  newCommunityErrors,
  postBodyError,
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
