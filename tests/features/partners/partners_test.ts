import assert from "node:assert/strict";
import { codeOf } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, SOCIAL, UNIFIED } from "../../support/social.ts";

const SEND_ALLY = `mutation S($userId: String!) {
  sendAllyRequest(userId: $userId) { request { id status from { username } to { username } }
    errors } }`;
const RESPOND = `mutation R($id: String!, $accept: Boolean!) {
  respondToAllyRequest(requestId: $id, accept: $accept) { request { id status } errors } }`;
const REMOVE = `mutation R($userId: String!) { removeAlly(userId: $userId) { removed errors } }`;
const ALLIES = `query A($first: Int, $after: String) { allies(first: $first, after: $after) {
  edges { node { id user { username } since } } pageInfo { hasNextPage endCursor } } }`;
const ALLY_REQUESTS = `query Q($d: RequestDirection) {
  allyRequests(direction: $d) { id status from { username } to { username } } }`;
const SEND_PARTNER = `mutation S($userId: String!) {
  sendPartnerRequest(userId: $userId) { partnership { id status partner { username } } errors } }`;
const ACCEPT = `mutation A($id: String!) {
  acceptPartnerRequest(requestId: $id) { partnership { id status partner { username } } errors } }`;
const DECLINE = `mutation D($id: String!) {
  declinePartnerRequest(requestId: $id) { partnership { id status } errors } }`;
const END = `mutation { endPartnership { partnership { id status endedAt } errors } }`;
const PARTNER = `{ accountabilityPartner { id status partner { username } from { username } } }`;
const PARTNER_REQUESTS = `query Q($d: RequestDirection) {
  partnerRequests(direction: $d) { id status from { username } } }`;
const NOTES = `{ notifications { edges { node { kind content } } } }`;

const notes = async (s: TestSetup, name: string) =>
  (await s.as(name).data(NOTES)).notifications.edges.map((e: { node: unknown }) => e.node);

async function allies(s: TestSetup, a: string, b: string) {
  const req = (await s.as(a).data(SEND_ALLY, { userId: await s.idOf(b) })).sendAllyRequest;
  assert.deepEqual(req.errors, []);
  const res = (await s.as(b).data(RESPOND, { id: req.request.id, accept: true }))
    .respondToAllyRequest;
  assert.deepEqual(res.errors, []);
}

Deno.test("allies: request, notify, accept, list, remove; bad input changes nothing", async () => {
  const s = await setup(SOCIAL);
  try {
    const bob = await s.idOf("bob");
    const sent = (await s.as("alice").data(SEND_ALLY, { userId: bob })).sendAllyRequest;
    assert.deepEqual(sent.errors, []);
    assert.deepEqual(sent.request.from, { username: "alice" });
    assert.equal(sent.request.status, "pending");
    assert.deepEqual(await notes(s, "bob"), [
      { kind: "ally.request", content: "alice wants to be your ally." },
    ]);
    // Repeats, the reverse direction, oneself and unknown users.
    assert.deepEqual(
      (await s.as("alice").data(SEND_ALLY, { userId: bob })).sendAllyRequest.errors,
      [
        "already_requested: your request is waiting for an answer",
      ],
    );
    const alice = await s.idOf("alice");
    assert.deepEqual(
      (await s.as("bob").data(SEND_ALLY, { userId: alice })).sendAllyRequest.errors,
      [
        "request_waiting: this user already asked you; answer their request",
      ],
    );
    assert.deepEqual(
      (await s.as("alice").data(SEND_ALLY, { userId: alice })).sendAllyRequest.errors,
      [
        "userId must be another user",
      ],
    );
    for (const userId of ["x", "Z".repeat(22)]) {
      assert.equal(codeOf(await s.as("alice").run(SEND_ALLY, { userId })), "NOT_FOUND");
      assert.equal(codeOf(await s.as("alice").run(REMOVE, { userId })), "NOT_FOUND");
    }
    assert.equal(codeOf(await s.as("alice").run(SEND_ALLY, { userId: 3 })), "BAD_USER_INPUT");

    const incoming = (await s.as("bob").data(ALLY_REQUESTS, {})).allyRequests;
    assert.deepEqual(incoming.map((r: { id: string }) => r.id), [sent.request.id]);
    assert.deepEqual(
      (await s.as("alice").data(ALLY_REQUESTS, { d: "OUTGOING" })).allyRequests.length,
      1,
    );
    // Only the asked user answers; a stranger's attempt is NOT_FOUND, the asker's refused.
    assert.equal(
      codeOf(await s.as("carol").run(RESPOND, { id: sent.request.id, accept: true })),
      "NOT_FOUND",
    );
    assert.deepEqual(
      (await s.as("alice").data(RESPOND, { id: sent.request.id, accept: true }))
        .respondToAllyRequest
        .errors,
      ["not_addressee: only the asked user can answer"],
    );
    assert.equal(codeOf(await s.as("bob").run(RESPOND, { id: "?", accept: true })), "NOT_FOUND");
    assert.equal(
      codeOf(await s.as("bob").run(RESPOND, { id: sent.request.id, accept: "yes" })),
      "BAD_USER_INPUT",
    );

    const accepted = (await s.as("bob").data(RESPOND, { id: sent.request.id, accept: true }))
      .respondToAllyRequest;
    assert.equal(accepted.request.status, "accepted");
    assert.deepEqual((await notes(s, "alice"))[0], {
      kind: "ally.accepted",
      content: "bob accepted your ally request.",
    });
    const again = (await s.as("bob").data(RESPOND, { id: sent.request.id, accept: false }))
      .respondToAllyRequest;
    assert.deepEqual(again.errors, ["not_pending: the request is already accepted"]);
    assert.deepEqual(
      (await s.as("alice").data(SEND_ALLY, { userId: bob })).sendAllyRequest.errors,
      [
        "already_allies: you are already allies",
      ],
    );

    await allies(s, "carol", "alice");
    const list = (await s.as("alice").data(ALLIES, { first: 1 })).allies;
    assert.deepEqual(
      list.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["carol"],
    );
    const rest =
      (await s.as("alice").data(ALLIES, { first: 1, after: list.pageInfo.endCursor })).allies;
    assert.deepEqual(
      rest.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["bob"],
    );
    assert.equal(rest.pageInfo.hasNextPage, false);
    assert.deepEqual((await s.as("carol").data(ALLIES, {})).allies.edges.length, 1);
    assert.equal(codeOf(await s.as("alice").run(ALLIES, { after: "@@" })), "BAD_USER_INPUT");

    assert.deepEqual((await s.as("bob").data(REMOVE, { userId: alice })).removeAlly, {
      removed: true,
      errors: [],
    });
    assert.deepEqual((await s.as("bob").data(REMOVE, { userId: alice })).removeAlly, {
      removed: false,
      errors: ["not_ally: you are not allies with this user"],
    });
    assert.equal((await s.as("alice").data(ALLIES, {})).allies.edges.length, 1);

    // Declining does not notify; a new request after a decline is possible.
    const bobNotes = (await notes(s, "bob")).length;
    const req2 = (await s.as("bob").data(SEND_ALLY, { userId: alice })).sendAllyRequest;
    const declined = (await s.as("alice").data(RESPOND, { id: req2.request.id, accept: false }))
      .respondToAllyRequest;
    assert.equal(declined.request.status, "declined");
    assert.equal((await notes(s, "bob")).length, bobNotes);
  } finally {
    await s.close();
  }
});

Deno.test("allies: requests crossing each other leave one live link", async () => {
  const s = await setup(SOCIAL);
  try {
    const [a, b] = [await s.idOf("alice"), await s.idOf("bob")];
    const [x, y] = await Promise.all([
      s.as("alice").data(SEND_ALLY, { userId: b }),
      s.as("bob").data(SEND_ALLY, { userId: a }),
    ]);
    const ok = [x.sendAllyRequest, y.sendAllyRequest].filter((r) => r.errors.length === 0);
    assert.equal(ok.length, 1);
    const [{ n }] = await s.t.deps.db.sql`
      select count(*)::int as n from ally_links where status = 'pending'`;
    assert.equal(n, 1);
  } finally {
    await s.close();
  }
});

Deno.test("partners: allies only, one active partner each, accept, decline, end", async () => {
  const s = await setup(SOCIAL);
  try {
    const [bob, carol, dave] = [await s.idOf("bob"), await s.idOf("carol"), await s.idOf("dave")];
    // Not allies yet.
    assert.deepEqual(
      (await s.as("alice").data(SEND_PARTNER, { userId: bob })).sendPartnerRequest.errors,
      ["not_ally: partners must be accepted allies first"],
    );
    assert.equal(codeOf(await s.as("alice").run(SEND_PARTNER, { userId: "nobody" })), "NOT_FOUND");
    await allies(s, "alice", "bob");
    await allies(s, "alice", "carol");
    await allies(s, "carol", "dave");
    assert.equal((await s.as("alice").data(PARTNER)).accountabilityPartner, null);

    const req = (await s.as("alice").data(SEND_PARTNER, { userId: bob })).sendPartnerRequest;
    assert.deepEqual(req.errors, []);
    assert.equal(req.partnership.status, "pending");
    assert.deepEqual((await notes(s, "bob"))[0], {
      kind: "partner.request",
      content: "alice asked you to be accountability partners.",
    });
    assert.deepEqual(
      (await s.as("alice").data(SEND_PARTNER, { userId: bob })).sendPartnerRequest.errors,
      ["already_requested: your request is waiting for an answer"],
    );
    const incoming = (await s.as("bob").data(PARTNER_REQUESTS, {})).partnerRequests;
    assert.deepEqual(incoming.map((r: { id: string }) => r.id), [req.partnership.id]);
    // Another user's request behaves as missing; the asker cannot accept their own.
    assert.equal(codeOf(await s.as("carol").run(ACCEPT, { id: req.partnership.id })), "NOT_FOUND");
    assert.equal(codeOf(await s.as("carol").run(DECLINE, { id: req.partnership.id })), "NOT_FOUND");
    assert.deepEqual(
      (await s.as("alice").data(ACCEPT, { id: req.partnership.id })).acceptPartnerRequest.errors,
      ["not_addressee: only the asked user can answer"],
    );

    const accepted = (await s.as("bob").data(ACCEPT, { id: req.partnership.id }))
      .acceptPartnerRequest;
    assert.deepEqual(accepted.errors, []);
    assert.deepEqual(accepted.partnership.partner, { username: "alice" });
    assert.equal(accepted.partnership.status, "active");
    assert.deepEqual((await notes(s, "alice"))[0], {
      kind: "partner.accepted",
      content: "bob accepted your accountability partner request.",
    });
    assert.deepEqual((await s.as("alice").data(PARTNER)).accountabilityPartner.partner, {
      username: "bob",
    });
    // One active partner each: neither side may start another.
    assert.deepEqual(
      (await s.as("alice").data(SEND_PARTNER, { userId: carol })).sendPartnerRequest.errors,
      ["has_partner: you already have an active partner"],
    );
    assert.deepEqual(
      (await s.as("carol").data(SEND_PARTNER, { userId: await s.idOf("alice") })).sendPartnerRequest
        .errors,
      ["partner_unavailable: this user already has an active partner"],
    );

    // Decline: no notification to the sender.
    const carolNotes = (await notes(s, "carol")).length;
    const req2 = (await s.as("carol").data(SEND_PARTNER, { userId: dave })).sendPartnerRequest;
    const declined = (await s.as("dave").data(DECLINE, { id: req2.partnership.id }))
      .declinePartnerRequest;
    assert.equal(declined.partnership.status, "declined");
    assert.equal((await notes(s, "carol")).length, carolNotes);
    assert.deepEqual(
      (await s.as("dave").data(ACCEPT, { id: req2.partnership.id })).acceptPartnerRequest.errors,
      ["not_pending: the request is already declined"],
    );

    const ended = (await s.as("bob").data(END)).endPartnership;
    assert.equal(ended.partnership.status, "ended");
    assert.deepEqual((await s.as("bob").data(END)).endPartnership.errors, [
      "no_partner: you have no active partner",
    ]);
    assert.equal((await s.as("alice").data(PARTNER)).accountabilityPartner, null);
    const [{ slots }] = await s.t.deps.db.sql`select count(*)::int as slots from active_partners`;
    assert.equal(slots, 0);
  } finally {
    await s.close();
  }
});

Deno.test("partners: crossing requests and racing accepts keep one partner each", async () => {
  const s = await setup(SOCIAL);
  try {
    const [alice, bob] = [await s.idOf("alice"), await s.idOf("bob")];
    await s.idOf("carol");
    await allies(s, "alice", "bob");
    await allies(s, "alice", "carol");
    const crossed = await Promise.all([
      s.as("alice").data(SEND_PARTNER, { userId: bob }),
      s.as("bob").data(SEND_PARTNER, { userId: alice }),
    ]);
    assert.equal(crossed.filter((r) => r.sendPartnerRequest.errors.length === 0).length, 1);
    // Alice holds requests from Bob (or to him) and from Carol; Bob and Carol accept at once.
    const pending = await s.t.deps.db.sql`select count(*)::int as n from partnerships
      where status = 'pending'`;
    assert.equal(pending[0].n, 1);
    const fromCarol =
      (await s.as("carol").data(SEND_PARTNER, { userId: alice })).sendPartnerRequest;
    const forAlice = (await s.as("alice").data(PARTNER_REQUESTS, {})).partnerRequests;
    const forBob = (await s.as("bob").data(PARTNER_REQUESTS, {})).partnerRequests;
    const accepts = [
      ...forAlice.map((r: { id: string }) => s.as("alice").data(ACCEPT, { id: r.id })),
      ...forBob.map((r: { id: string }) => s.as("bob").data(ACCEPT, { id: r.id })),
    ];
    assert.equal(accepts.length, 2);
    assert.ok(fromCarol.partnership);
    const results = await Promise.all(accepts);
    const ok = results.filter((r) => r.acceptPartnerRequest.errors.length === 0);
    assert.equal(ok.length, 1);
    const rows = await s.t.deps.db.sql`
      select (select count(*)::int from active_partners) as slots,
             (select count(*)::int from partnerships where status = 'active') as active`;
    assert.deepEqual({ ...rows[0] }, { slots: 2, active: 1 });
  } finally {
    await s.close();
  }
});

Deno.test("partners: see each other's check-ins in unifiedFeed while partners", async () => {
  const s = await setup(SOCIAL);
  try {
    await allies(s, "alice", "bob");
    const habit = (await s.as("bob").data(ADD_HABIT, { title: "Meditate" })).addGoal.goal;
    await s.as("bob").data(CHECK_IN, { goalId: habit.id, date: "2026-03-01" });
    const checkIns = async () =>
      (await s.as("alice").data(UNIFIED, { first: 50 })).unifiedFeed.edges
        .map((e: { node: { kind: string; actor: { username: string }; activity: unknown } }) =>
          e.node
        )
        .filter((n: { kind: string }) => n.kind === "check_in");
    assert.deepEqual(await checkIns(), []);
    const req = (await s.as("alice").data(SEND_PARTNER, { userId: await s.idOf("bob") }))
      .sendPartnerRequest;
    await s.as("bob").data(ACCEPT, { id: req.partnership.id });
    s.clock.advance(1000);
    await s.as("bob").data(CHECK_IN, { goalId: habit.id });
    const seen = await checkIns();
    assert.equal(seen.length, 2);
    assert.equal(seen[0].actor.username, "bob");
    // The partner sees the check-in, never the goal record itself.
    assert.deepEqual(seen[0].activity, {
      __typename: "CheckInActivity",
      goalTitle: "Meditate",
      date: "2026-03-02",
      goal: null,
    });
    // Only check-ins: Bob's badges stay out of Alice's feed.
    const kinds = (await s.as("alice").data(UNIFIED, { first: 50 })).unifiedFeed.edges
      .filter((e: { node: { actor: { username: string } } }) => e.node.actor.username === "bob")
      .map((e: { node: { kind: string } }) => e.node.kind);
    assert.deepEqual(kinds, ["check_in", "check_in"]);
    // Removing the ally ends the partnership and the shared check-ins.
    await s.as("alice").data(REMOVE, { userId: await s.idOf("bob") });
    assert.equal((await s.as("bob").data(PARTNER)).accountabilityPartner, null);
    assert.deepEqual(await checkIns(), []);
  } finally {
    await s.close();
  }
});
