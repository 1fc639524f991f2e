import assert from "node:assert/strict";
import { codeOf, codesOf, USER_ERRORS, type UserErrorResult } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { ADD_HABIT, CHECK_IN, SOCIAL, UNIFIED } from "../../support/social.ts";

const SEND_ALLY = `mutation S($userId: String!) {
  sendAllyRequest(userId: $userId) { request { id status from { username } to { username } }
    ${USER_ERRORS} } }`;
const SEND_ALLY_AGAIN = `mutation S($userId: String!) {
  sendAllyRequest(userId: $userId) { request { id status from { username } to { username } }
    alreadyRequested alreadyAllies ${USER_ERRORS} } }`;
const ACCEPT_ALLY = `mutation R($id: String!) {
  acceptAllyRequest(requestId: $id) { request { id status respondedAt } ${USER_ERRORS} } }`;
const DECLINE_ALLY = `mutation R($id: String!) {
  declineAllyRequest(requestId: $id) { request { id status respondedAt } ${USER_ERRORS} } }`;
const REMOVE = `mutation R($userId: String!) {
  removeAlly(userId: $userId) { ally { id user { username } connectedAt endedAt } alreadyRemoved
    ${USER_ERRORS} } }`;
const ALLIES = `query A($first: Int, $after: String, $last: Int, $before: String) {
  allies(first: $first, after: $after, last: $last, before: $before) {
    edges { node { id user { username } connectedAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`;
const ALLY_REQUESTS = `query Q($d: RequestDirection, $first: Int, $after: String, $last: Int,
  $before: String) {
  allyRequests(direction: $d, first: $first, after: $after, last: $last, before: $before) {
    nodes { id status from { username } to { username } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`;
const SEND_PARTNER = `mutation S($userId: String!) {
  sendPartnerRequest(userId: $userId) { partnership { id status partner { username } }
    ${USER_ERRORS} } }`;
const SEND_PARTNER_AGAIN = `mutation S($userId: String!) {
  sendPartnerRequest(userId: $userId) { partnership { id status partner { username } }
    alreadyRequested alreadyPartners ${USER_ERRORS} } }`;
const ACCEPT = `mutation A($id: String!) {
  acceptPartnerRequest(requestId: $id) { partnership { id status partner { username } }
    ${USER_ERRORS} } }`;
const DECLINE = `mutation D($id: String!) {
  declinePartnerRequest(requestId: $id) { partnership { id status } ${USER_ERRORS} } }`;
const END = `mutation { endPartnership { partnership { id status endedAt } alreadyEnded
  ${USER_ERRORS} } }`;
const PARTNER = `{ accountabilityPartner { id status partner { username } from { username } } }`;
const PARTNER_REQUESTS = `query Q($d: RequestDirection) {
  partnerRequests(direction: $d) { nodes { id status from { username } } totalCount } }`;

/** A payload error as `code: message` (the field is checked where it matters). */
const flat = (e: UserErrorResult) => `${e.code}: ${e.message}`;

/** Accepts or declines an ally request as `name`; the payload. */
async function respond(s: TestSetup, name: string, id: unknown, accept: boolean) {
  const res = await s.as(name).data(accept ? ACCEPT_ALLY : DECLINE_ALLY, { id });
  return accept ? res.acceptAllyRequest : res.declineAllyRequest;
}
const NOTES = `{ notifications { edges { node { kind content } } } }`;

const notes = async (s: TestSetup, name: string) =>
  (await s.as(name).data(NOTES)).notifications.edges.map((e: { node: unknown }) => e.node);

async function allies(s: TestSetup, a: string, b: string) {
  const req = (await s.as(a).data(SEND_ALLY, { userId: await s.idOf(b) })).sendAllyRequest;
  assert.deepEqual(req.errors, []);
  const res = await respond(s, b, req.request.id, true);
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
    // Repeats (the pending request, nobody notified again), the reverse direction, oneself and
    // unknown users.
    assert.deepEqual(
      (await s.as("alice").data(SEND_ALLY_AGAIN, { userId: bob })).sendAllyRequest,
      { ...sent, alreadyRequested: true, alreadyAllies: false },
    );
    assert.equal((await notes(s, "bob")).length, 1);
    const alice = await s.idOf("alice");
    assert.deepEqual(
      (await s.as("bob").data(SEND_ALLY, { userId: alice })).sendAllyRequest.errors.map(flat),
      ["request_waiting: this user already asked you; answer their request"],
    );
    assert.deepEqual(
      (await s.as("alice").data(SEND_ALLY, { userId: alice })).sendAllyRequest.errors,
      [{ code: "invalid", message: "userId must be another user", field: "userId" }],
    );
    const noUser = { code: "not_found", message: "no such user", field: "userId" };
    for (const userId of ["x", "Z".repeat(22)]) {
      assert.deepEqual((await s.as("alice").data(SEND_ALLY, { userId })).sendAllyRequest, {
        request: null,
        errors: [noUser],
      });
      assert.deepEqual((await s.as("alice").data(REMOVE, { userId })).removeAlly, {
        ally: null,
        alreadyRemoved: false,
        errors: [noUser],
      });
    }
    const [{ links }] = await s.t.deps.db.sql`select count(*)::int as links from ally_links`;
    assert.equal(links, 1);
    assert.equal(codeOf(await s.as("alice").run(SEND_ALLY, { userId: 3 })), "BAD_USER_INPUT");

    const incoming = (await s.as("bob").data(ALLY_REQUESTS, {})).allyRequests;
    assert.deepEqual(incoming.nodes.map((r: { id: string }) => r.id), [sent.request.id]);
    assert.equal(incoming.totalCount, 1);
    assert.deepEqual(
      (await s.as("alice").data(ALLY_REQUESTS, { d: "outgoing" })).allyRequests.nodes.length,
      1,
    );
    assert.equal(
      codeOf(await s.as("alice").run(ALLY_REQUESTS, { d: "OUTGOING" })),
      "BAD_USER_INPUT",
    );
    // Only the asked user answers; a stranger's attempt is not_found, the asker's refused.
    const noRequest = { code: "not_found", message: "no such request", field: "requestId" };
    for (const accept of [true, false]) {
      assert.deepEqual(await respond(s, "carol", sent.request.id, accept), {
        request: null,
        errors: [noRequest],
      });
      assert.deepEqual((await respond(s, "alice", sent.request.id, accept)).errors, [
        { code: "not_addressee", message: "only the asked user can answer", field: "requestId" },
      ]);
      assert.deepEqual((await respond(s, "bob", "?", accept)).errors, [noRequest]);
    }
    assert.equal(codeOf(await s.as("bob").run(ACCEPT_ALLY, { id: 5 })), "BAD_USER_INPUT");
    assert.equal(
      (await s.as("bob").data(ALLY_REQUESTS, {})).allyRequests.nodes[0].status,
      "pending",
    );

    const accepted = await respond(s, "bob", sent.request.id, true);
    assert.equal(accepted.request.status, "accepted");
    assert.equal(accepted.request.respondedAt, "2026-03-02T12:00:00.000Z");
    assert.deepEqual((await notes(s, "alice"))[0], {
      kind: "ally.accepted",
      content: "bob accepted your ally request.",
    });
    const again = await respond(s, "bob", sent.request.id, false);
    assert.deepEqual(again.errors.map(flat), ["not_pending: the request is already accepted"]);
    assert.deepEqual(await respond(s, "bob", sent.request.id, true), accepted);
    const connected = (await s.as("alice").data(SEND_ALLY_AGAIN, { userId: bob })).sendAllyRequest;
    assert.deepEqual(connected, {
      request: { ...sent.request, status: "accepted" },
      alreadyRequested: false,
      alreadyAllies: true,
      errors: [],
    });

    s.clock.advance(1000);
    await allies(s, "carol", "alice");
    s.clock.advance(1000);
    await allies(s, "dave", "alice");
    s.clock.advance(1000);
    const list = (await s.as("alice").data(ALLIES, { first: 2 })).allies;
    assert.equal(list.totalCount, 3);
    assert.deepEqual(
      list.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["dave", "carol"],
    );
    // Backward from the end, then back again from there.
    const tail = (await s.as("alice").data(ALLIES, { last: 1 })).allies;
    assert.deepEqual(
      tail.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["bob"],
    );
    assert.equal(tail.pageInfo.hasPreviousPage, true);
    const head = (await s.as("alice").data(ALLIES, { last: 5, before: tail.pageInfo.startCursor }))
      .allies;
    assert.deepEqual(
      head.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["dave", "carol"],
    );
    assert.equal(head.pageInfo.hasPreviousPage, false);
    assert.equal(head.pageInfo.hasNextPage, true);
    const rest =
      (await s.as("alice").data(ALLIES, { first: 1, after: list.pageInfo.endCursor })).allies;
    assert.deepEqual(
      rest.edges.map((e: { node: { user: { username: string } } }) => e.node.user.username),
      ["bob"],
    );
    assert.equal(rest.pageInfo.hasNextPage, false);
    assert.deepEqual((await s.as("carol").data(ALLIES, {})).allies.edges.length, 1);
    assert.equal(codeOf(await s.as("alice").run(ALLIES, { after: "@@" })), "BAD_USER_INPUT");

    s.clock.advance(5000);
    const removed = (await s.as("bob").data(REMOVE, { userId: alice })).removeAlly;
    assert.deepEqual(removed.errors, []);
    assert.equal(removed.ally.id, accepted.request.id);
    assert.deepEqual(removed.ally.user, { username: "alice" });
    assert.equal(removed.ally.connectedAt, "2026-03-02T12:00:00.000Z");
    assert.equal(removed.ally.endedAt, "2026-03-02T12:00:08.000Z");
    // Again (either of the two): the connection as it ended.
    s.clock.advance(5000);
    assert.deepEqual((await s.as("bob").data(REMOVE, { userId: alice })).removeAlly, {
      ...removed,
      alreadyRemoved: true,
    });
    assert.deepEqual((await s.as("alice").data(REMOVE, { userId: bob })).removeAlly.ally, {
      ...removed.ally,
      user: { username: "bob" },
    });
    // Two who never were allies: not_ally.
    assert.deepEqual(
      (await s.as("bob").data(REMOVE, { userId: await s.idOf("carol") })).removeAlly,
      {
        ally: null,
        alreadyRemoved: false,
        errors: [
          { code: "not_ally", message: "you are not allies with this user", field: "userId" },
        ],
      },
    );
    assert.equal((await s.as("alice").data(ALLIES, {})).allies.edges.length, 2);

    // Declining does not notify; a new request after a decline is possible.
    const bobNotes = (await notes(s, "bob")).length;
    const req2 = (await s.as("bob").data(SEND_ALLY, { userId: alice })).sendAllyRequest;
    const declined = await respond(s, "alice", req2.request.id, false);
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
      (await s.as("alice").data(SEND_PARTNER, { userId: bob })).sendPartnerRequest.errors.map(flat),
      ["not_ally: partners must be accepted allies first"],
    );
    assert.deepEqual(
      (await s.as("alice").data(SEND_PARTNER, { userId: "nobody" })).sendPartnerRequest,
      {
        partnership: null,
        errors: [{ code: "not_found", message: "no such user", field: "userId" }],
      },
    );
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
      (await s.as("alice").data(SEND_PARTNER_AGAIN, { userId: bob })).sendPartnerRequest,
      { ...req, alreadyRequested: true, alreadyPartners: false },
    );
    const incoming = (await s.as("bob").data(PARTNER_REQUESTS, {})).partnerRequests;
    assert.deepEqual(incoming.nodes.map((r: { id: string }) => r.id), [req.partnership.id]);
    assert.equal(incoming.totalCount, 1);
    // Another user's request behaves as missing; the asker cannot accept their own.
    assert.deepEqual(
      codesOf((await s.as("carol").data(ACCEPT, { id: req.partnership.id })).acceptPartnerRequest),
      ["not_found"],
    );
    assert.deepEqual(
      (await s.as("carol").data(DECLINE, { id: req.partnership.id })).declinePartnerRequest,
      {
        partnership: null,
        errors: [{ code: "not_found", message: "no such request", field: "requestId" }],
      },
    );
    assert.deepEqual(
      (await s.as("alice").data(ACCEPT, { id: req.partnership.id })).acceptPartnerRequest.errors
        .map(flat),
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
      (await s.as("alice").data(SEND_PARTNER, { userId: carol })).sendPartnerRequest.errors.map(
        flat,
      ),
      ["has_partner: you already have an active partner"],
    );
    assert.deepEqual(
      (await s.as("carol").data(SEND_PARTNER, { userId: await s.idOf("alice") })).sendPartnerRequest
        .errors.map(flat),
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
      (await s.as("dave").data(ACCEPT, { id: req2.partnership.id })).acceptPartnerRequest.errors
        .map(flat),
      ["not_pending: the request is already declined"],
    );

    const ended = (await s.as("bob").data(END)).endPartnership;
    assert.equal(ended.partnership.status, "ended");
    // Again, by either partner: the partnership as it ended.
    for (const who of ["bob", "alice"]) {
      assert.deepEqual((await s.as(who).data(END)).endPartnership, {
        ...ended,
        alreadyEnded: true,
      });
    }
    // Someone who never had a partner: no_partner.
    assert.deepEqual((await s.as("erin").data(END)).endPartnership.errors.map(flat), [
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
    const forAlice = (await s.as("alice").data(PARTNER_REQUESTS, {})).partnerRequests.nodes;
    const forBob = (await s.as("bob").data(PARTNER_REQUESTS, {})).partnerRequests.nodes;
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

Deno.test("allies: request lists page both ways at a constant statement count", async () => {
  const s = await setup(SOCIAL);
  try {
    const alice = await s.idOf("alice");
    const senders = ["user1", "user2", "user3", "user4", "user5"];
    for (const u of senders) {
      s.clock.advance(1000);
      assert.deepEqual(
        (await s.as(u).data(SEND_ALLY, { userId: alice })).sendAllyRequest.errors,
        [],
      );
    }
    const from = (page: { nodes: { from: { username: string } }[] }) =>
      page.nodes.map((n) => n.from.username);
    // Twice: the first request of alice's after the senders' also reads her user row, which the
    // viewer cache then holds for the next ones.
    await s.as("alice").data(ALLY_REQUESTS, { first: 1 });
    await s.as("alice").data(ALLY_REQUESTS, { first: 1 });
    const one = s.lastStatements();
    const all = (await s.as("alice").data(ALLY_REQUESTS, { first: 5 })).allyRequests;
    assert.equal(s.lastStatements(), one);
    assert.deepEqual(from(all), ["user5", "user4", "user3", "user2", "user1"]);
    assert.equal(all.pageInfo.hasNextPage, false);
    // Newest first; backward from the end and from a cursor.
    const oldest = (await s.as("alice").data(ALLY_REQUESTS, { last: 2 })).allyRequests;
    assert.deepEqual(from(oldest), ["user2", "user1"]);
    assert.equal(oldest.pageInfo.hasPreviousPage, true);
    const middle = (await s.as("alice").data(ALLY_REQUESTS, {
      last: 2,
      before: oldest.pageInfo.startCursor,
    })).allyRequests;
    assert.deepEqual(from(middle), ["user4", "user3"]);
    assert.equal(middle.pageInfo.hasNextPage, true);
    assert.equal(middle.totalCount, 5);
    const outgoing = (await s.as("user1").data(ALLY_REQUESTS, { d: "outgoing" })).allyRequests;
    assert.deepEqual([from(outgoing), outgoing.totalCount], [["user1"], 1]);
    assert.equal(
      codeOf(await s.as("alice").run(ALLY_REQUESTS, { first: 2, last: 2 })),
      "BAD_USER_INPUT",
    );
  } finally {
    await s.close();
  }
});
