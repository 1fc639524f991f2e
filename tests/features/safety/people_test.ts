import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import * as social from "../../support/social.ts";
import { searchStatement } from "../../../src/features/users/store.ts";
import { USER_LOOKUP_LIMIT } from "../../../src/features/users/rules.ts";

const LOOKUP = `query L($u: String!) { userByUsername(username: $u) { id username } }`;
const SEARCH = `query S($p: String!, $first: Int, $after: String) {
  searchUsers(prefix: $p, first: $first, after: $after) {
    nodes { username } pageInfo { hasNextPage startCursor endCursor } } }`;
const SET = `mutation S($d: Discoverability!) {
  setDiscoverability(discoverability: $d) { user { discoverability } ${USER_ERRORS} } }`;
const BLOCK =
  `mutation B($userId: String!) { blockUser(userId: $userId) { user { username } ${USER_ERRORS} } }`;
const UNBLOCK = `mutation B($userId: String!) {
  unblockUser(userId: $userId) { user { username } alreadyUnblocked ${USER_ERRORS} } }`;
const BLOCKED = `{ blockedUsers { nodes { user { username } blockedAt } totalCount } }`;
const SEND_ALLY = `mutation S($userId: String!) {
  sendAllyRequest(userId: $userId) { request { id } ${USER_ERRORS} } }`;
const ACCEPT_ALLY = `mutation R($id: String!) {
  acceptAllyRequest(requestId: $id) { request { status } ${USER_ERRORS} } }`;
const SEND_PARTNER = `mutation S($userId: String!) {
  sendPartnerRequest(userId: $userId) { partnership { id } ${USER_ERRORS} } }`;
const ACCEPT_PARTNER = `mutation A($id: String!) {
  acceptPartnerRequest(requestId: $id) { partnership { status } ${USER_ERRORS} } }`;
const PARTNER = `{ accountabilityPartner { id } }`;
const ALLIES = `{ allies { totalCount } }`;

const names = async (s: TestSetup, as: string, prefix: string, first?: number) =>
  (await s.data(SEARCH, { p: prefix, first }, as)).searchUsers.nodes.map(
    (n: { username: string }) => n.username,
  );
const lookup = async (s: TestSetup, as: string, username: string) =>
  (await s.data(LOOKUP, { u: username }, as)).userByUsername?.username ?? null;

async function searchable(s: TestSetup, ...subjects: string[]) {
  for (const sub of subjects) {
    const res = (await s.data(SET, { d: "searchable" }, sub)).setDiscoverability;
    assert.deepEqual(res, { user: { discoverability: "searchable" }, errors: [] });
  }
}

Deno.test("finding people: exact lookup by default, prefix search only for searchable users", async () => {
  const s = await setup(social.SOCIAL);
  try {
    for (const u of ["alice", "Alfred", "al_x", "alx", "albert", "bob", "hermit"]) {
      await s.idOf(u);
    }
    assert.equal(
      (await s.data(`{ me { discoverability } }`, {}, "bob")).me.discoverability,
      "exact_username",
    );
    // Exact, case-insensitive; a prefix is not a username; the viewer finds themself.
    assert.equal(await lookup(s, "bob", "ALFRED"), "Alfred");
    assert.equal(await lookup(s, "bob", "alfre"), null);
    assert.equal(await lookup(s, "bob", "bob"), "bob");
    // Nobody opted in to search yet.
    assert.deepEqual(await names(s, "bob", "al"), []);
    await searchable(s, "alice", "Alfred", "al_x", "alx", "bob");
    assert.deepEqual(await names(s, "bob", "AL"), ["al_x", "Alfred", "alice", "alx"]);
    // `_` is itself, not a wildcard; `-` and `.` too.
    assert.deepEqual(await names(s, "bob", "al_"), ["al_x"]);
    assert.deepEqual(await names(s, "bob", "al."), []);
    // Pages follow the lower-cased username; the cursor continues after the last one.
    const first = (await s.data(SEARCH, { p: "al", first: 2 }, "bob")).searchUsers;
    assert.deepEqual(first.nodes.map((n: { username: string }) => n.username), ["al_x", "Alfred"]);
    assert.equal(first.pageInfo.hasNextPage, true);
    const next =
      (await s.data(SEARCH, { p: "al", first: 2, after: first.pageInfo.endCursor }, "bob"))
        .searchUsers;
    assert.deepEqual(next.nodes.map((n: { username: string }) => n.username), ["alice", "alx"]);
    assert.equal(next.pageInfo.hasNextPage, false);
    const back = (await s.data(
      `query S($p: String!, $b: String) { searchUsers(prefix: $p, last: 1, before: $b) {
        nodes { username } } }`,
      { p: "al", b: next.pageInfo.startCursor },
      "bob",
    )).searchUsers;
    assert.deepEqual(back.nodes, [{ username: "Alfred" }]);
    // Constant statements per page, whatever its size.
    await s.data(SEARCH, { p: "al", first: 1 }, "bob");
    const small = s.lastStatements();
    await s.data(SEARCH, { p: "al", first: 100 }, "bob");
    assert.equal(s.lastStatements(), small);
    await s.data(LOOKUP, { u: "alice" }, "bob");
    assert.equal(s.lastStatements(), 1);

    // Hidden: found by neither; the setting is the user's own.
    await s.data(SET, { d: "hidden" }, "Alfred");
    assert.equal(await lookup(s, "bob", "alfred"), null);
    assert.equal(await lookup(s, "Alfred", "alfred"), "Alfred");
    assert.deepEqual(await names(s, "bob", "al"), ["al_x", "alice", "alx"]);
    await s.data(SET, { d: "exact_username" }, "alice");
    assert.deepEqual(await names(s, "bob", "al"), ["al_x", "alx"]);
    assert.equal(await lookup(s, "bob", "alice"), "alice");
    assert.equal(codeOf(await s.as("bob").run(SET, { d: "everyone" })), "BAD_USER_INPUT");
  } finally {
    await s.close();
  }
});

Deno.test("finding people: hostile input is refused or finds nobody, and lookups are rate-limited", async () => {
  const s = await setup(social.SOCIAL);
  try {
    await searchable(s, "alice", "bob");
    for (const prefix of ["%", "a%", "%%", "a", "", "a".repeat(31), "al ice", "al*", "ål", "a\\"]) {
      const res = await s.as("bob").run(SEARCH, { p: prefix });
      assert.equal(codeOf(res), "BAD_USER_INPUT", prefix);
    }
    // The text rule refuses a NUL byte before any resolver runs.
    for (const q of [SEARCH, LOOKUP]) {
      const res = await s.as("bob").run(q, { p: "al\u0000", u: "al\u0000" });
      assert.equal(codeOf(res), "BAD_USER_INPUT");
      assert.match(res.body.errors[0].message, /control character/);
    }
    for (const u of ["%", "_lice", "ali%", "a".repeat(5000), "", "alice'--"]) {
      assert.equal(await lookup(s, "bob", u), null, u);
    }
    assert.equal(codeOf(await s.run(LOOKUP, { u: "alice" }, null)), "UNAUTHENTICATED");
    // The limit counts lookups and searches together, per user; the next window is free again.
    s.clock.advance(60_000 - (s.clock.now().getTime() % 60_000));
    for (let i = 0; i < USER_LOOKUP_LIMIT.points; i++) {
      await s.data(i % 2 ? LOOKUP : SEARCH, { u: "alice", p: "al" }, "carol");
    }
    const refused = await s.as("carol").run(LOOKUP, { u: "alice" });
    assert.equal(codeOf(refused), "RATE_LIMITED");
    assert.ok(refused.body.errors[0].extensions.retryAfter >= 1);
    assert.equal(await lookup(s, "bob", "alice"), "alice");
    s.clock.advance(60_000);
    assert.equal(await lookup(s, "carol", "alice"), "alice");
  } finally {
    await s.close();
  }
});

Deno.test("finding people: prefix search reads a range of its index, in order", async () => {
  const s = await setup(social.SOCIAL);
  try {
    const sql = s.t.deps.db.sql;
    const viewer = (await s.idOf("bob"), await s.userId("bob"));
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      const statement = searchStatement(tx, viewer, { from: "al", to: "al~" }, {
        limit: 21,
        after: null,
        before: null,
        backward: false,
      });
      const rows = await tx<{ "QUERY PLAN": string }[]>`explain ${statement}`;
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    assert.match(plan, /Index Scan using users_username_search_idx/);
    assert.match(plan, /Index Cond: .*>= 'al'.*< 'al~'/);
    assert.doesNotMatch(plan, /Sort/);
  } finally {
    await s.close();
  }
});

async function allies(s: TestSetup, a: string, b: string) {
  const req = (await s.data(SEND_ALLY, { userId: await s.idOf(b) }, a)).sendAllyRequest;
  assert.deepEqual(req.errors, []);
  assert.deepEqual(
    (await s.data(ACCEPT_ALLY, { id: req.request.id }, b)).acceptAllyRequest.errors,
    [],
  );
}

Deno.test("blocking: ends the partnership, hides both ways in lookups, requests and feeds", async () => {
  const s = await setup(social.SOCIAL);
  try {
    const [alice, bob, carol] = [await s.idOf("alice"), await s.idOf("bob"), await s.idOf("carol")];
    await searchable(s, "alice", "bob");
    // Alice and Bob are partners and share a community with Carol.
    await allies(s, "alice", "bob");
    const asked = (await s.data(SEND_PARTNER, { userId: bob }, "alice")).sendPartnerRequest;
    const accepted = (await s.data(ACCEPT_PARTNER, { id: asked.partnership.id }, "bob"))
      .acceptPartnerRequest;
    assert.equal(accepted.partnership.status, "active");
    const habit = (await s.data(social.ADD_HABIT, { title: "Run" }, "bob")).addGoal.goal.id;
    await s.data(social.CHECK_IN, { goalId: habit }, "bob");
    const c = await social.createCommunity(s, "carol", { name: "Runners" });
    for (const m of ["alice", "bob"]) await s.data(social.JOIN, { id: c.id }, m);
    s.clock.advance(1000);
    await s.data(social.POST, { id: c.id, body: "from bob" }, "bob");
    s.clock.advance(1000);
    await s.data(social.POST, { id: c.id, body: "from alice" }, "alice");
    const kinds = async (as: string) =>
      (await s.data(social.UNIFIED, {}, as)).unifiedFeed.edges.map((
        e: { node: { kind: string; actor: { username: string } } },
      ) => `${e.node.kind}:${e.node.actor.username}`);
    assert.ok((await kinds("alice")).includes("check_in:bob"));
    assert.ok((await kinds("alice")).includes("community_post:bob"));

    // Hostile ids and oneself change nothing.
    for (const userId of ["x", "Z".repeat(22), alice]) {
      const res = (await s.data(BLOCK, { userId }, "alice")).blockUser;
      assert.equal(res.user, null);
      assert.equal(res.errors[0].code, userId === alice ? "invalid" : "not_found");
    }
    const blocked = (await s.data(BLOCK, { userId: bob }, "alice")).blockUser;
    assert.deepEqual(blocked, { user: { username: "bob" }, errors: [] });
    // A retry answers the user with the flag; nothing changes.
    const again = `mutation B($userId: String!) {
      blockUser(userId: $userId) { user { username } alreadyBlocked ${USER_ERRORS} } }`;
    assert.deepEqual((await s.data(again, { userId: bob }, "alice")).blockUser, {
      ...blocked,
      alreadyBlocked: true,
    });
    const list = (await s.data(BLOCKED, {}, "alice")).blockedUsers;
    assert.equal(list.totalCount, 1);
    assert.equal(list.nodes[0].user.username, "bob");
    assert.equal((await s.data(BLOCKED, {}, "bob")).blockedUsers.totalCount, 0);

    // The partnership and the ally link ended; nobody was told.
    for (const who of ["alice", "bob"]) {
      assert.equal((await s.data(PARTNER, {}, who)).accountabilityPartner, null);
      assert.equal((await s.data(ALLIES, {}, who)).allies.totalCount, 0);
    }
    // Hidden both ways: lookups, search, feeds, the community's posts.
    assert.equal(await lookup(s, "alice", "bob"), null);
    assert.equal(await lookup(s, "bob", "alice"), null);
    assert.deepEqual(await names(s, "bob", "al"), []);
    assert.deepEqual(await names(s, "alice", "bo"), []);
    assert.ok(!(await kinds("alice")).some((k: string) => k.endsWith(":bob")));
    assert.ok(!(await kinds("bob")).some((k: string) => k.endsWith(":alice")));
    const bodies = async (as: string) => {
      const feed = (await s.data(social.FEED, { id: c.id }, as)).communityFeed;
      return {
        bodies: feed.edges.map((e: { node: { body: string } }) => e.node.body),
        n: feed.totalCount,
      };
    };
    assert.deepEqual(await bodies("alice"), { bodies: ["from alice"], n: 1 });
    assert.deepEqual(await bodies("bob"), { bodies: ["from bob"], n: 1 });
    assert.deepEqual(await bodies("carol"), { bodies: ["from alice", "from bob"], n: 2 });
    assert.ok((await kinds("carol")).includes("community_post:bob"));

    // Requests: the blocker is told why, the blocked user gets "no such user".
    const toBob = (await s.data(SEND_ALLY, { userId: bob }, "alice")).sendAllyRequest;
    assert.deepEqual(toBob.errors, [{
      code: "blocked",
      message: "you blocked this user; unblock them first",
      field: "userId",
    }]);
    const toAlice = (await s.data(SEND_ALLY, { userId: alice }, "bob")).sendAllyRequest;
    assert.deepEqual(toAlice.errors, [{
      code: "not_found",
      message: "no such user",
      field: "userId",
    }]);
    const [{ n }] = await s.t.deps.db.sql`
      select count(*)::int as n from ally_links where status = 'pending'`;
    assert.equal(n, 0);

    // A pending request between them is cancelled by a block.
    const pending = (await s.data(SEND_ALLY, { userId: carol }, "bob")).sendAllyRequest;
    assert.deepEqual(pending.errors, []);
    await s.data(BLOCK, { userId: bob }, "carol");
    assert.equal(
      (await s.data(ACCEPT_ALLY, { id: pending.request.id }, "carol")).acceptAllyRequest.errors[0]
        .code,
      "not_pending",
    );

    // Unblocking lifts the hiding, not what the block ended.
    // A user the viewer does not block: answered as the state is.
    assert.deepEqual((await s.data(UNBLOCK, { userId: carol }, "alice")).unblockUser, {
      user: { username: "carol" },
      alreadyUnblocked: true,
      errors: [],
    });
    assert.deepEqual((await s.data(UNBLOCK, { userId: bob }, "alice")).unblockUser, {
      user: { username: "bob" },
      alreadyUnblocked: false,
      errors: [],
    });
    assert.equal(await lookup(s, "alice", "bob"), "bob");
    assert.equal((await s.data(PARTNER, {}, "alice")).accountabilityPartner, null);
    assert.deepEqual(
      (await s.data(SEND_ALLY, { userId: bob }, "alice")).sendAllyRequest.errors,
      [],
    );
  } finally {
    await s.close();
  }
});
