import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, createCommunity, JOIN, LEAVE, SOCIAL } from "../../support/social.ts";

const CREATE = `mutation C($communityId: String!, $startsAt: DateTime!, $endsAt: DateTime!,
  $entryCost: Int) {
  createCommunityChallenge(communityId: $communityId, title: "Spring", metric: check_ins,
    startsAt: $startsAt, endsAt: $endsAt, entryCost: $entryCost) {
    challenge { id status } ${USER_ERRORS} } }`;
const JOIN_C = `mutation J($id: String!) { joinCommunityChallenge(challengeId: $id) {
  challenge { id participantCount } ${USER_ERRORS} } }`;
const LEAVE_C = `mutation L($id: String!) { leaveCommunityChallenge(challengeId: $id) {
  challenge { id } alreadyLeft ${USER_ERRORS} } }`;
const CANCEL = `mutation X($id: String!) { cancelCommunityChallenge(challengeId: $id) {
  challenge { id status cancelledAt participantCount viewerParticipation { score } }
  refundedCount alreadyCancelled ${USER_ERRORS} } }`;
const ONE = `query O($id: String!) { communityChallenge(id: $id) {
  id status cancelledAt participantCount } }`;

const START = "2026-03-02T12:00:00Z";
const NEXT_WEEK = { startsAt: "2026-03-09T00:00:00Z", endsAt: "2026-03-16T00:00:00Z" };

/** Every user's balance equals the sum of their ledger rows; returns the balances by name. */
async function balancesMatchLedger(s: TestSetup) {
  const rows = await s.t.deps.db.sql<{ username: string; balance: number; ledger: number }[]>`
    select u.username, p.balance,
           (select coalesce(sum(delta), 0)::int from point_ledger l where l.user_id = u.id) as ledger
    from user_points p join users u on u.id = p.user_id order by u.username`;
  for (const r of rows) assert.equal(r.balance, r.ledger, r.username);
  return Object.fromEntries(rows.map((r) => [r.username, r.balance]));
}

/** `n` check-ins on a fresh habit (10 points each once the jobs ran). */
async function earn(s: TestSetup, name: string, n: number) {
  const goal = (await s.as(name).data(ADD_HABIT, { title: "Walk" })).addGoal.goal;
  for (let i = 0; i < n; i++) {
    const date = new Date(s.clock.now().getTime() - i * 86_400_000).toISOString().slice(0, 10);
    await s.as(name).data(CHECK_IN, { goalId: goal.id, date });
  }
  await s.t.app.jobs.runUntilIdle();
}

async function world(s: TestSetup, entryCost = 20) {
  const c = await createCommunity(s, "owner", { name: `Club ${crypto.randomUUID().slice(0, 6)}` });
  for (const m of ["bob", "carol", "dave"]) await s.as(m).data(JOIN, { id: c.id });
  const made = (await s.as("bob").data(CREATE, { communityId: c.id, ...NEXT_WEEK, entryCost }))
    .createCommunityChallenge;
  assert.deepEqual(made.errors, []);
  assert.equal(made.challenge.status, "upcoming");
  return { c, ch: made.challenge };
}

Deno.test("cancel challenge: before the start, every entry refunded, balances equal the ledger", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const { c, ch } = await world(s);
    for (const m of ["bob", "carol", "dave"]) await earn(s, m, 3); // 30 points each
    // Signing up before the start is open; entries are paid now.
    for (const m of ["bob", "carol"]) {
      assert.deepEqual(
        (await s.as(m).data(JOIN_C, { id: ch.id })).joinCommunityChallenge.errors,
        [],
      );
    }
    assert.deepEqual(await balancesMatchLedger(s), { bob: 10, carol: 10, dave: 30 });

    // A member who did not create it, an outsider, another user's id, malformed input: refused,
    // nothing changes.
    const errorsOf = async (as: string, id: unknown) =>
      (await s.as(as).data(CANCEL, { id })).cancelCommunityChallenge;
    assert.deepEqual((await errorsOf("dave", ch.id)).errors, [{
      code: "not_allowed",
      message: "only the challenge's creator or the community's owner can cancel it",
      field: "challengeId",
    }]);
    const notFound = [{ code: "not_found", message: "no such challenge", field: "challengeId" }];
    assert.deepEqual((await errorsOf("dave", "x".repeat(22))).errors, notFound);
    assert.deepEqual((await errorsOf("dave", "not an id")).errors, notFound);
    assert.equal(codeOf(await s.as("dave").run(CANCEL, { id: 5 })), "BAD_USER_INPUT");
    const still = (await s.as("dave").data(ONE, { id: ch.id })).communityChallenge;
    assert.deepEqual(still.status, "upcoming");
    assert.equal(still.participantCount, 2);

    // The creator cancels: both entries refunded, the participations gone, a bounded number
    // of statements.
    const done = await errorsOf("bob", ch.id);
    const cancelStatements = s.lastStatements();
    assert.deepEqual(done.errors, []);
    assert.equal(done.refundedCount, 2);
    assert.equal(done.challenge.status, "cancelled");
    assert.equal(done.challenge.cancelledAt, s.clock.now().toISOString());
    assert.equal(done.challenge.participantCount, 0);
    assert.equal(done.challenge.viewerParticipation, null);
    assert.deepEqual(await balancesMatchLedger(s), { bob: 30, carol: 30, dave: 30 });
    const [{ n }] = await s.t.deps.db.sql`
      select count(*)::int as n from challenge_participants p join community_challenges c
        on c.id = p.challenge_id where c.public_id = ${ch.id}`;
    assert.equal(n, 0);

    // Cancelled: a second cancel answers it as it is (nothing refunded twice), nobody joins,
    // nothing to leave; activity never counts.
    assert.deepEqual(await errorsOf("owner", ch.id), {
      ...done,
      refundedCount: 0,
      alreadyCancelled: true,
    });
    assert.deepEqual(
      (await s.as("dave").data(JOIN_C, { id: ch.id })).joinCommunityChallenge.errors,
      [{ code: "cancelled", message: "the challenge was cancelled", field: null }],
    );
    assert.deepEqual((await s.as("carol").data(LEAVE_C, { id: ch.id })).leaveCommunityChallenge, {
      challenge: { id: ch.id },
      alreadyLeft: true,
      errors: [],
    });
    s.clock.set("2026-03-10T12:00:00Z");
    assert.equal(
      (await s.as("bob").data(ONE, { id: ch.id })).communityChallenge.status,
      "cancelled",
    );

    // The community's owner cancels a challenge someone else made; with more participants the
    // statement count is the same. Once started, no cancel.
    const more = (await s.as("carol").data(CREATE, {
      communityId: c.id,
      startsAt: "2026-03-12T00:00:00Z",
      endsAt: "2026-03-13T00:00:00Z",
      entryCost: 5,
    })).createCommunityChallenge.challenge;
    for (const m of ["bob", "carol", "dave", "owner"]) {
      if (m === "owner") await earn(s, m, 1);
      await s.as(m).data(JOIN_C, { id: more.id });
    }
    const byOwner = await errorsOf("owner", more.id);
    assert.deepEqual(byOwner.errors, []);
    assert.equal(byOwner.refundedCount, 4);
    assert.equal(s.lastStatements(), cancelStatements);
    await balancesMatchLedger(s);

    const started = (await s.as("bob").data(CREATE, {
      communityId: c.id,
      startsAt: "2026-03-10T00:00:00Z",
      endsAt: "2026-03-11T00:00:00Z",
    })).createCommunityChallenge.challenge;
    assert.deepEqual((await errorsOf("bob", started.id)).errors, [{
      code: "already_started",
      message: "a challenge that has started cannot be cancelled",
      field: "challengeId",
    }]);
  } finally {
    await s.close();
  }
});

Deno.test("cancel challenge: the creator who left the community can no longer cancel it", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const { c, ch } = await world(s, 0);
    assert.deepEqual((await s.as("bob").data(LEAVE, { id: c.id })).leaveCommunity.errors, []);
    const res = (await s.as("bob").data(CANCEL, { id: ch.id })).cancelCommunityChallenge;
    assert.equal(res.errors[0].code, "not_allowed");
  } finally {
    await s.close();
  }
});

Deno.test("cancel challenge: racing joins, leaves and cancels refund exactly what was paid", async () => {
  const s = await setup({ ...SOCIAL, start: START });
  try {
    const { ch } = await world(s);
    for (const m of ["bob", "carol", "dave"]) await earn(s, m, 3);
    await s.as("carol").data(JOIN_C, { id: ch.id });
    const [cancels, joins, leaves] = await Promise.all([
      Promise.all([1, 2].map(() => s.as("bob").data(CANCEL, { id: ch.id }))),
      Promise.all(["dave", "bob"].map((m) => s.as(m).data(JOIN_C, { id: ch.id }))),
      s.as("carol").data(LEAVE_C, { id: ch.id }),
    ]);
    // One cancel does it; the other answers the cancelled challenge with the flag.
    assert.deepEqual(
      cancels.map((
        r,
      ) => [r.cancelCommunityChallenge.errors, r.cancelCommunityChallenge.alreadyCancelled])
        .sort((a, b) => Number(a[1]) - Number(b[1])),
      [[[], false], [[], true]],
      JSON.stringify(cancels),
    );
    for (const j of joins) {
      const errors = j.joinCommunityChallenge.errors;
      assert.ok(
        errors.length === 0 || ["ended", "cancelled"].includes(errors[0].code),
        JSON.stringify(errors),
      );
    }
    assert.deepEqual(leaves.leaveCommunityChallenge.errors, [], JSON.stringify(leaves));
    // Whatever the order: nobody is in the cancelled challenge and everyone has their 30 back.
    assert.deepEqual(await balancesMatchLedger(s), { bob: 30, carol: 30, dave: 30 });
    const [row] = await s.t.deps.db.sql`
      select participant_count as "count", cancelled_at is not null as cancelled,
             (select count(*)::int from challenge_participants p where p.challenge_id = c.id) as rows
      from community_challenges c where c.public_id = ${ch.id}`;
    assert.deepEqual({ ...row }, { count: 0, cancelled: true, rows: 0 });
  } finally {
    await s.close();
  }
});
