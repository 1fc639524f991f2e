import assert from "node:assert/strict";
import {
  displayName,
  inviteInputErrors,
  looksLikeInviteToken,
  periodStart,
  pointsKey,
  removalAllowed,
  roleChangeError,
} from "../../../src/features/teams/rules.ts";
import { roleChangedNotice } from "../../../src/features/teams/rules.ts";

Deno.test("teams rules: period starts are UTC Monday and month start", () => {
  const sunday = new Date("2026-03-08T23:59:59Z");
  assert.equal(periodStart("weekly", sunday)!.toISOString(), "2026-03-02T00:00:00.000Z");
  assert.equal(
    periodStart("weekly", new Date("2026-03-09T00:00:00Z"))!.toISOString(),
    "2026-03-09T00:00:00.000Z",
  );
  assert.equal(periodStart("monthly", sunday)!.toISOString(), "2026-03-01T00:00:00.000Z");
  assert.equal(periodStart("all_time", sunday), null);
});

Deno.test("teams rules: leaderboards read the points row of their period", () => {
  const sunday = new Date("2026-03-08T23:59:59Z");
  assert.deepEqual(pointsKey("weekly", sunday), { period: "week", starts: "2026-03-02" });
  assert.deepEqual(pointsKey("monthly", sunday), { period: "month", starts: "2026-03-01" });
  assert.deepEqual(pointsKey("all_time", sunday), { period: "all", starts: "-infinity" });
});

Deno.test("teams rules: role changes and removals", () => {
  assert.equal(roleChangeError("owner", "member", "owner"), null);
  assert.equal(roleChangeError("owner", "owner", "admin"), null);
  assert.equal(roleChangeError("admin", "member", "admin"), null);
  assert.equal(roleChangeError("admin", "member", "owner"), "forbidden");
  assert.equal(roleChangeError("admin", "owner", "member"), "forbidden");
  assert.equal(roleChangeError("member", "member", "admin"), "forbidden");
  assert.equal(roleChangeError("owner", "admin", "admin"), "unchanged");
  assert.equal(removalAllowed("member", "owner", true), true);
  assert.equal(removalAllowed("member", "member", false), false);
  assert.equal(removalAllowed("admin", "member", false), true);
  assert.equal(removalAllowed("admin", "admin", false), false);
  assert.equal(removalAllowed("owner", "admin", false), true);
});

Deno.test("teams rules: invite input, tokens, display names", () => {
  assert.deepEqual(inviteInputErrors(null, null), []);
  assert.deepEqual(inviteInputErrors(0, 0).map((e) => [e.code, e.field]), [
    ["invalid", "expiresInHours"],
    ["invalid", "maxUses"],
  ]);
  assert.equal(inviteInputErrors(721, 1001).length, 2);
  assert.equal(looksLikeInviteToken("a".repeat(43)), true);
  assert.equal(looksLikeInviteToken("a b"), false);
  assert.equal(displayName({ firstName: " ", lastName: null, username: "u1" }), "u1");
  assert.equal(displayName({ firstName: "A", lastName: "B", username: "u1" }), "A B");
});

Deno.test("notices: a team role change uses the right article", () => {
  assert.equal(roleChangedNotice("Crew", "admin"), "You are now an admin of the team Crew.");
  assert.equal(roleChangedNotice("Crew", "owner"), "You are now an owner of the team Crew.");
  assert.equal(roleChangedNotice("Crew", "member"), "You are now a member of the team Crew.");
});
