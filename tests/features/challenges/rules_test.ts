import assert from "node:assert/strict";
import {
  cancelError,
  challengeStatus,
  contribution,
  joinRefusal,
  joinWindowError,
  leaveRefusal,
  mayCancel,
  newChallengeErrors,
  pageRanks,
} from "../../../src/features/challenges/rules.ts";
import {
  announceBatchKey,
  endedCursorAfter,
  endedNotice,
  startedNotice,
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
  const dates = { startsAt: ok.startsAt, endsAt: ok.endsAt, cancelledAt: null };
  assert.equal(joinWindowError(now, dates), null);
  assert.equal(joinWindowError(ok.endsAt, dates)?.code, "ended");
  // Signing up before the start is open; a cancelled challenge takes nobody.
  assert.equal(joinWindowError(new Date(0), dates), null);
  assert.equal(
    joinWindowError(new Date(0), { ...dates, cancelledAt: new Date(0) })?.code,
    "cancelled",
  );
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
  assert.equal(leaveRefusal("not_participating"), null, "a leave that already holds");
  assert.deepEqual(leaveRefusal("closed"), {
    code: "ended",
    message: "a finished challenge cannot be left",
    field: null,
  });
});

Deno.test("rules: challenge status and who may cancel when", () => {
  const c = {
    startsAt: new Date("2026-03-05T00:00:00Z"),
    endsAt: new Date("2026-03-06T00:00:00Z"),
    cancelledAt: null,
  };
  const at = (iso: string) => new Date(iso);
  assert.equal(challengeStatus(at("2026-03-04T23:59:59Z"), c), "upcoming");
  assert.equal(challengeStatus(c.startsAt, c), "running");
  assert.equal(challengeStatus(c.endsAt, c), "ended");
  const cancelled = { ...c, cancelledAt: at("2026-03-01T00:00:00Z") };
  assert.equal(challengeStatus(at("2026-03-07T00:00:00Z"), cancelled), "cancelled");

  assert.equal(cancelError(at("2026-03-04T23:59:59Z"), c), null);
  assert.deepEqual(cancelError(c.startsAt, c), {
    code: "already_started",
    message: "a challenge that has started cannot be cancelled",
    field: "challengeId",
  });
  assert.equal(cancelError(c.endsAt, c)?.code, "already_started");
  assert.equal(cancelError(at("2026-03-02T00:00:00Z"), cancelled)?.code, "already_cancelled");

  // The creator while a member, or the community's owner; nobody else, and not a former member.
  assert.equal(mayCancel("1", "1", "member"), true);
  assert.equal(mayCancel("1", "1", null), false);
  assert.equal(mayCancel("2", "1", "owner"), true);
  assert.equal(mayCancel("2", "1", "member"), false);
  assert.equal(mayCancel("2", "1", null), false);
});

Deno.test("notices: challenge started and ended name the challenge, rank, field and score", () => {
  assert.equal(startedNotice("Spring run"), `The challenge "Spring run" has started.`);
  assert.equal(
    endedNotice({ title: "Spring run", rank: 2, participants: 4, score: 12 }),
    `The challenge "Spring run" has ended: you finished #2 of 4 with a score of 12.`,
  );
  assert.match(
    endedNotice({ title: "T", rank: 1, participants: 1, score: 2.345 }),
    /with a score of 2\.35\.$/,
  );
});

Deno.test("rules: an end announcement's cursor carries the rank and the number told", () => {
  const page = [
    { score: 5, publicId: "a", rank: 1 },
    { score: 3, publicId: "b", rank: 2 },
    { score: 3, publicId: "c", rank: 2 },
  ];
  const cursor = endedCursorAfter(null, page);
  assert.deepEqual(cursor, { score: 3, publicId: "c", rank: 2, seen: 3 });
  assert.deepEqual(endedCursorAfter(cursor, [{ score: 3, publicId: "d", rank: 2 }]), {
    score: 3,
    publicId: "d",
    rank: 2,
    seen: 4,
  });
  const batch = { challengeId: "7", size: 3 };
  assert.equal(
    announceBatchKey({ ...batch, kind: "started", after: null }),
    "challenges.announce:started:7:first",
  );
  assert.equal(
    announceBatchKey({ ...batch, kind: "started", after: "42" }),
    "challenges.announce:started:7:42",
  );
  assert.equal(
    announceBatchKey({ ...batch, kind: "ended", after: cursor }),
    "challenges.announce:ended:7:c",
  );
});
