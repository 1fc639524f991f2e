import assert from "node:assert/strict";
import {
  contribution,
  joinWindowError,
  newChallengeErrors,
  pageRanks,
} from "../../../src/features/challenges/rules.ts";
import {
  canRead,
  canSee,
  joinError,
  leaveError,
  newCommunityErrors,
  postBodyError,
} from "../../../src/features/communities/rules.ts";
import { answerError, partnerRequestError } from "../../../src/features/partners/rules.ts";
import {
  communitiesModule,
  type PostModeration,
} from "../../../src/features/communities/schema.ts";

Deno.test("rules: standard competition ranks on any page", () => {
  assert.deepEqual(pageRanks([], 0, 0), []);
  assert.deepEqual(pageRanks([10, 8, 8, 5], 0, 1), [1, 2, 2, 4]);
  // A page starting inside a tie that began on the previous page: 10 | 8 8 8 | ...
  assert.deepEqual(pageRanks([8, 8, 5, 5, 1], 1, 4), [2, 2, 5, 5, 7]);
  assert.deepEqual(pageRanks([3, 3, 3], 0, 3), [1, 1, 1]);
  assert.deepEqual(pageRanks([0, -1], 7, 9), [8, 10]);
});

Deno.test("rules: challenge input, windows and contributions", () => {
  const now = new Date("2026-03-02T12:00:00Z");
  const ok = {
    title: "T",
    description: null,
    startsAt: new Date("2026-03-02T00:00:00Z"),
    endsAt: new Date("2026-03-09T00:00:00Z"),
    entryCost: 0,
  };
  assert.deepEqual(newChallengeErrors(ok, now), []);
  assert.equal(newChallengeErrors({ ...ok, entryCost: 0.5 }, now).length, 1);
  assert.equal(newChallengeErrors({ ...ok, startsAt: null, endsAt: null }, now).length, 2);
  assert.equal(joinWindowError(now, ok.startsAt, ok.endsAt), null);
  assert.match(joinWindowError(ok.endsAt, ok.startsAt, ok.endsAt)!, /^ended/);
  assert.match(joinWindowError(new Date(0), ok.startsAt, ok.endsAt)!, /^not_started/);
  assert.equal(contribution("check_ins", { kind: "check_in" }), 1);
  assert.equal(contribution("check_ins", { kind: "goal_event", value: 3 }), null);
  assert.equal(contribution("goal_event_value", { kind: "goal_event", value: -2 }), -2);
});

Deno.test("rules: community membership and posts", () => {
  assert.deepEqual(newCommunityErrors({ name: "Abc", description: null, memberLimit: null }), []);
  assert.equal(newCommunityErrors({ name: "Ab", description: "\u0000", memberLimit: 1 }).length, 3);
  const outsider = { visibility: "private" as const, role: null, invited: false };
  assert.equal(canSee(outsider), false);
  assert.equal(canSee({ ...outsider, invited: true }), true);
  assert.equal(canRead({ ...outsider, invited: true }), false);
  assert.match(joinError(outsider)!, /^invite_required/);
  assert.equal(joinError({ ...outsider, invited: true }), null);
  assert.match(leaveError({ ...outsider, role: "owner" })!, /^owner_cannot_leave/);
  assert.equal(postBodyError("tab\tand\nnewline ok"), null);
});

Deno.test("rules: partner requests and answers", () => {
  const base = { self: false, allies: true, viewerHasPartner: false, otherHasPartner: false };
  assert.equal(partnerRequestError(base), null);
  assert.match(partnerRequestError({ ...base, allies: false })!, /^not_ally/);
  assert.match(partnerRequestError({ ...base, otherHasPartner: true })!, /^partner_unavailable/);
  const link = { requesterId: "1", addresseeId: "2", status: "pending" };
  assert.equal(answerError(link, "2"), null);
  assert.match(answerError(link, "1")!, /^not_addressee/);
  assert.match(answerError({ ...link, status: "declined" }, "2")!, /^not_pending/);
});

Deno.test("moderation seam: the module accepts the coaching hook's shape", () => {
  // The hook is optional until the coaching branch lands; a module built with one type-checks
  // against the shape coaching's `Moderation.check(text, context)` has.
  const calls: string[] = [];
  const moderation: PostModeration = {
    check(text) {
      calls.push(text);
      return Promise.resolve({ allowed: false, reason: "spam" });
    },
  };
  const module = communitiesModule({
    db: { sql: {} } as never,
    clock: { now: () => new Date() },
    jobs: {} as never,
    moderation,
  });
  assert.ok(module.typeDefs.includes("createCommunityPost"));
});
