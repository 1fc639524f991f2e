import assert from "node:assert/strict";
import {
  contribution,
  joinRefusal,
  joinWindowError,
  leaveRefusal,
  newChallengeErrors,
  pageRanks,
} from "../../../src/features/challenges/rules.ts";

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
  assert.deepEqual(
    newChallengeErrors({ ...ok, startsAt: null, endsAt: null }, now).map((e) => e.field),
    ["startsAt", "endsAt"],
  );
  assert.equal(joinWindowError(now, ok.startsAt, ok.endsAt), null);
  assert.equal(joinWindowError(ok.endsAt, ok.startsAt, ok.endsAt)?.code, "ended");
  assert.equal(joinWindowError(new Date(0), ok.startsAt, ok.endsAt)?.code, "not_started");
  assert.equal(contribution("check_ins", { kind: "check_in" }), 1);
  assert.equal(contribution("check_ins", { kind: "goal_event", value: 3 }), null);
  assert.equal(contribution("goal_event_value", { kind: "goal_event", value: -2 }), -2);
});

Deno.test("rules: join and leave outcomes become payload errors, success none", () => {
  assert.equal(joinRefusal("joined", 10), null);
  assert.deepEqual(joinRefusal("already_joined", 10), {
    code: "already_joined",
    message: "you are in this challenge",
    field: null,
  });
  assert.deepEqual(joinRefusal("insufficient_points", 10), {
    code: "insufficient_points",
    message: "joining costs 10 points",
    field: null,
  });
  assert.equal(joinRefusal("closed", 10)?.code, "ended");
  assert.equal(leaveRefusal("left"), null);
  assert.equal(leaveRefusal("not_participating")?.code, "not_participating");
  assert.deepEqual(leaveRefusal("closed"), {
    code: "ended",
    message: "a finished challenge cannot be left",
    field: null,
  });
});
