import assert from "node:assert/strict";
import { codeOf, codesOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";
import {
  COMMUNITY_FIELDS,
  CREATE_COMMUNITY,
  createCommunity,
  FEED,
  INVITE,
  JOIN,
  LEAVE,
  POST,
  SOCIAL,
  UNIFIED,
} from "../../support/social.ts";

const LIST = `query L($scope: CommunityScope, $first: Int, $after: String, $last: Int,
  $before: String) {
  communities(scope: $scope, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id name memberCount viewerRole viewerInvited } }
    nodes { name }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
const JOIN_AGAIN = `mutation J($id: String!) {
  joinCommunity(communityId: $id) {
    community { id memberCount viewerRole } alreadyMember errors { code message field } } }`;
const LEAVE_AGAIN = `mutation L($id: String!) {
  leaveCommunity(communityId: $id) {
    community { id memberCount viewerRole } alreadyLeft errors { code message field } } }`;
const ONE = `query O($id: String!) { community(id: $id) { ${COMMUNITY_FIELDS} } }`;
const COUNT = `select (select count(*) from communities)::int as communities,
  (select count(*) from community_members)::int as members,
  (select count(*) from community_posts)::int as posts,
  (select count(*) from community_invites)::int as invites`;

const names = (conn: { edges: { node: { name: string } }[] }) => conn.edges.map((e) => e.node.name);

Deno.test("communities: create validates input and changes nothing on bad input", async () => {
  const s = await setup(SOCIAL);
  try {
    const bad: [Record<string, unknown>, string, RegExp][] = [
      [{ name: "ab" }, "name", /name must be 3-60/],
      [{ name: "x".repeat(61) }, "name", /name must be 3-60/],
      [{ name: "two\nlines" }, "name", /single line/],
      [
        { name: "Runners", description: "d".repeat(1001) },
        "description",
        /description must be at most 1000/,
      ],
      [
        { name: "Runners", memberLimit: 1 },
        "memberLimit",
        /memberLimit must be between 2 and 100000/,
      ],
      [{ name: "Runners", memberLimit: 100_001 }, "memberLimit", /memberLimit/],
    ];
    for (const [vars, field, message] of bad) {
      const res = (await s.as("alice").data(CREATE_COMMUNITY, vars)).createCommunity;
      assert.equal(res.community, null);
      assert.equal(res.errors.length, 1);
      assert.equal(res.errors[0].code, "invalid");
      assert.equal(res.errors[0].field, field);
      assert.match(res.errors[0].message, message);
    }
    // Wrong types and unknown enum values are refused by the schema.
    for (
      const vars of [{ name: 42 }, { name: "Runners", visibility: "secret" }, {
        name: "Runners",
        memberLimit: "ten",
      }]
    ) {
      assert.equal(codeOf(await s.as("alice").run(CREATE_COMMUNITY, vars)), "BAD_USER_INPUT");
    }
    const [before] = await s.t.deps.db.sql`${s.t.deps.db.sql.unsafe(COUNT)}`;
    assert.deepEqual(before, { communities: 0, members: 0, posts: 0, invites: 0 });

    const c = await createCommunity(s, "alice", {
      name: "  Morning Runners ",
      description: "Early miles",
      memberLimit: 10,
    });
    assert.equal(c.name, "Morning Runners");
    assert.equal(c.visibility, "public");
    assert.equal(c.memberCount, 1);
    assert.equal(c.memberLimit, 10);
    assert.equal(c.viewerRole, "owner");
    assert.equal(c.owner.id, await s.idOf("alice"));
    // Names are unique regardless of case.
    const dup = (await s.as("bob").data(CREATE_COMMUNITY, { name: "morning runners" }))
      .createCommunity;
    assert.deepEqual(dup.errors, [
      { code: "name_taken", message: "a community with this name exists", field: "name" },
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("communities: discover and joined lists, join and leave rules", async () => {
  const s = await setup(SOCIAL);
  try {
    const a = await createCommunity(s, "alice", { name: "Alpha" });
    s.clock.advance(1000);
    const b = await createCommunity(s, "alice", { name: "Beta" });
    s.clock.advance(1000);
    await createCommunity(s, "alice", { name: "Gamma", visibility: "private" });

    // Bob discovers the public ones (newest first), not the private one.
    const discover = (await s.as("bob").data(LIST, {})).communities;
    assert.deepEqual(names(discover), ["Beta", "Alpha"]);
    assert.deepEqual(names((await s.as("bob").data(LIST, { scope: "joined" })).communities), []);

    const joined = (await s.as("bob").data(JOIN, { id: a.id })).joinCommunity;
    assert.deepEqual(joined.errors, []);
    assert.equal(joined.community.memberCount, 2);
    assert.equal(joined.community.viewerRole, "member");
    // A retried join answers the community as it is, with the flag.
    const again = (await s.as("bob").data(JOIN_AGAIN, { id: a.id })).joinCommunity;
    assert.deepEqual(again, {
      community: { id: a.id, memberCount: 2, viewerRole: "member" },
      alreadyMember: true,
      errors: [],
    });
    s.clock.advance(1000);
    await s.as("bob").data(JOIN, { id: b.id });

    const mine = (await s.as("bob").data(LIST, { scope: "joined", first: 1 })).communities;
    assert.deepEqual(names(mine), ["Beta"]);
    assert.equal(mine.pageInfo.hasNextPage, true);
    const next = (await s.as("bob").data(LIST, {
      scope: "joined",
      first: 1,
      after: mine.pageInfo.endCursor,
    })).communities;
    assert.deepEqual(names(next), ["Alpha"]);
    assert.equal(next.pageInfo.hasNextPage, false);
    // Backward: the last one, then the page before it.
    const last = (await s.as("bob").data(LIST, { scope: "joined", last: 1 })).communities;
    assert.deepEqual(last.nodes, [{ name: "Alpha" }]);
    assert.equal(last.pageInfo.hasPreviousPage, true);
    assert.equal(last.pageInfo.hasNextPage, false);
    const before = (await s.as("bob").data(LIST, {
      scope: "joined",
      last: 5,
      before: last.pageInfo.startCursor,
    })).communities;
    assert.deepEqual(names(before), ["Beta"]);
    assert.equal(before.pageInfo.hasPreviousPage, false);
    assert.equal(before.pageInfo.hasNextPage, true);
    assert.deepEqual(names((await s.as("bob").data(LIST, {})).communities), []);

    // Leaving: once (again: the community as it is, with alreadyLeft); the owner cannot.
    const left = (await s.as("bob").data(LEAVE, { id: a.id })).leaveCommunity;
    assert.deepEqual(left.errors, []);
    assert.equal(left.community.memberCount, 1);
    assert.equal(left.community.viewerRole, null);
    const twice = (await s.as("bob").data(LEAVE_AGAIN, { id: a.id })).leaveCommunity;
    assert.deepEqual(twice, {
      community: { id: a.id, memberCount: 1, viewerRole: null },
      alreadyLeft: true,
      errors: [],
    });
    const owner = (await s.as("alice").data(LEAVE, { id: a.id })).leaveCommunity;
    assert.deepEqual(owner.errors, [
      {
        code: "owner_cannot_leave",
        message: "the owner cannot leave their community; transfer ownership to a member first",
        field: null,
      },
    ]);
    assert.equal((await s.as("alice").data(ONE, { id: a.id })).community.memberCount, 1);

    // Bad ids: malformed and unknown are not_found in errors (null lookups); wrong-typed refused.
    for (const id of ["nope", "A".repeat(22)]) {
      for (const [query, field] of [[JOIN, "joinCommunity"], [LEAVE, "leaveCommunity"]]) {
        const res = (await s.as("bob").data(query, { id }))[field];
        assert.equal(res.community, null);
        assert.deepEqual(res.errors, [
          { code: "not_found", message: "no such community", field: "communityId" },
        ]);
      }
      assert.equal((await s.as("bob").data(ONE, { id })).community, null);
    }
    assert.equal(codeOf(await s.as("bob").run(JOIN, { id: 7 })), "BAD_USER_INPUT");
    assert.equal(codeOf(await s.as("bob").run(LIST, { first: -1 })), "BAD_USER_INPUT");
    assert.equal(codeOf(await s.as("bob").run(LIST, { after: "%%%" })), "BAD_USER_INPUT");
  } finally {
    await s.close();
  }
});

Deno.test("communities: a private community is not found by outsiders until invited", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "alice", { name: "Inner Circle", visibility: "private" });
    await s.as("alice").data(POST, { id: c.id, body: "members only" });
    const carolId = await s.idOf("carol");
    // Outsiders: not visible, not joinable, no feed, no posting, no inviting.
    assert.deepEqual(await s.as("bob").data(ONE, { id: c.id }), { community: null });
    assert.deepEqual(await s.as("bob").data(FEED, { id: c.id }), { communityFeed: null });
    for (
      const [query, vars, field] of [
        [JOIN, { id: c.id }, "joinCommunity"],
        [LEAVE, { id: c.id }, "leaveCommunity"],
        [POST, { id: c.id, body: "hi" }, "createCommunityPost"],
        [INVITE, { id: c.id, userId: carolId }, "inviteToCommunity"],
      ] as const
    ) {
      const res = (await s.as("bob").data(query, vars))[field];
      assert.deepEqual(res.errors, [
        { code: "not_found", message: "no such community", field: "communityId" },
      ]);
    }
    const [{ posts, invites }] = await s.t.deps.db.sql`
      select (select count(*) from community_posts)::int as posts,
             (select count(*) from community_invites)::int as invites`;
    assert.deepEqual({ posts, invites }, { posts: 1, invites: 0 });
    // An invite makes it visible and joinable (once), and notifies.
    const bobId = await s.idOf("bob");
    assert.deepEqual(
      (await s.as("alice").data(INVITE, { id: c.id, userId: bobId })).inviteToCommunity
        .errors,
      [],
    );
    const seen = (await s.as("bob").data(ONE, { id: c.id })).community;
    assert.equal(seen.viewerInvited, true);
    assert.equal(seen.viewerRole, null);
    assert.equal((await s.as("bob").data(FEED, { id: c.id })).communityFeed, null);
    const discover = (await s.as("bob").data(LIST, {})).communities;
    assert.deepEqual(names(discover), ["Inner Circle"]);
    const notes = (await s.as("bob").data(`{ notifications { edges { node { kind content } } } }`))
      .notifications.edges.map((e: { node: unknown }) => e.node);
    assert.deepEqual(notes, [{
      kind: "community.invite",
      content: "You are invited to join the community Inner Circle.",
    }]);
    assert.equal(
      (await s.as("bob").data(JOIN, { id: c.id })).joinCommunity.community.memberCount,
      2,
    );
    assert.equal((await s.as("bob").data(FEED, { id: c.id })).communityFeed.edges.length, 1);
    // Inviting: members only, not a member, not oneself, known users only.
    const inv = (id: string) => s.as("bob").data(INVITE, { id: c.id, userId: id });
    assert.deepEqual((await inv(bobId)).inviteToCommunity.errors, [
      { code: "invalid", message: "userId must be another user", field: "userId" },
    ]);
    assert.deepEqual((await inv(await s.idOf("alice"))).inviteToCommunity.errors, [
      {
        code: "already_member",
        message: "that user is a member of this community",
        field: "userId",
      },
    ]);
    assert.deepEqual((await inv("B".repeat(22))).inviteToCommunity, {
      community: null,
      errors: [{ code: "not_found", message: "no such user", field: "userId" }],
    });
    // The invite was spent: after leaving, the community is hidden again until a new invite.
    await s.as("bob").data(LEAVE, { id: c.id });
    assert.deepEqual(codesOf((await s.as("bob").data(JOIN, { id: c.id })).joinCommunity), [
      "not_found",
    ]);
    await s.as("alice").data(INVITE, { id: c.id, userId: bobId });
    assert.deepEqual((await s.as("bob").data(JOIN, { id: c.id })).joinCommunity.errors, []);
    await s.as("bob").data(LEAVE, { id: c.id });
    assert.equal((await s.as("alice").data(ONE, { id: c.id })).community.memberCount, 1);
  } finally {
    await s.close();
  }
});

Deno.test("communities: posts validated, members only, paged newest first", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "alice", { name: "Writers" });
    const bad: [unknown, string][] = [
      ["   ", "body must not be empty"],
      ["x".repeat(2001), "body must be at most 2000 characters"],
    ];
    for (const [body, error] of bad) {
      const res = (await s.as("alice").data(POST, { id: c.id, body })).createCommunityPost;
      assert.deepEqual(res, {
        post: null,
        errors: [{ code: "invalid", message: error, field: "body" }],
      });
    }
    assert.equal(codeOf(await s.as("alice").run(POST, { id: c.id, body: 5 })), "BAD_USER_INPUT");
    // Control characters break the text rule of every string (docs/graphql.md): refused whole.
    const bell = await s.as("alice").run(POST, { id: c.id, body: "bell\u0007" });
    assert.equal(codeOf(bell), "BAD_USER_INPUT");
    assert.match(bell.body.errors[0].message, /Variable "\$body" contains a control character/);
    // Bob can read a public community's feed but not post before joining.
    const notMember =
      (await s.as("bob").data(POST, { id: c.id, body: "hello" })).createCommunityPost;
    assert.deepEqual(codesOf(notMember), ["not_member"]);
    assert.equal((await s.as("bob").data(FEED, { id: c.id })).communityFeed.edges.length, 0);

    const bodies: string[] = [];
    for (let i = 0; i < 5; i++) {
      s.clock.advance(1000);
      const body = `post ${i}\nwith a second line`;
      const res = (await s.as("alice").data(POST, { id: c.id, body: `  ${body}  ` }))
        .createCommunityPost;
      assert.deepEqual(res.errors, []);
      assert.equal(res.post.body, body);
      bodies.unshift(body);
    }
    const p1 = (await s.as("bob").data(FEED, { id: c.id, first: 2 })).communityFeed;
    assert.equal(p1.pageInfo.hasNextPage, true);
    const p2 = (await s.as("bob").data(FEED, { id: c.id, first: 2, after: p1.pageInfo.endCursor }))
      .communityFeed;
    const p3 = (await s.as("bob").data(FEED, { id: c.id, first: 2, after: p2.pageInfo.endCursor }))
      .communityFeed;
    assert.equal(p3.pageInfo.hasNextPage, false);
    const seen = [...p1.edges, ...p2.edges, ...p3.edges].map((e: { node: { body: string } }) =>
      e.node.body
    );
    assert.deepEqual(seen, bodies);
    assert.equal(p1.totalCount, 5);
    // Backward from the end: the oldest two, then the two before them.
    const b1 = (await s.as("bob").data(FEED, { id: c.id, last: 2 })).communityFeed;
    assert.deepEqual(b1.edges.map((e: { node: { body: string } }) => e.node.body), bodies.slice(3));
    assert.equal(b1.pageInfo.hasPreviousPage, true);
    assert.equal(b1.pageInfo.hasNextPage, false);
    const b2 =
      (await s.as("bob").data(FEED, { id: c.id, last: 2, before: b1.pageInfo.startCursor }))
        .communityFeed;
    assert.deepEqual(
      b2.edges.map((e: { node: { body: string } }) => e.node.body),
      bodies.slice(1, 3),
    );
    assert.equal(b2.pageInfo.hasNextPage, true);
    assert.equal(
      codeOf(await s.as("bob").run(FEED, { id: c.id, first: 1, last: 1 })),
      "BAD_USER_INPUT",
    );
    // Statements per page do not grow with the page size.
    await s.as("bob").data(FEED, { id: c.id, first: 1 });
    const one = s.lastStatements();
    await s.as("bob").data(FEED, { id: c.id, first: 5 });
    assert.equal(s.lastStatements(), one);

    assert.equal(
      codeOf(await s.as("bob").run(FEED, { id: c.id, after: "junk" })),
      "BAD_USER_INPUT",
    );
    const [{ posts }] = await s.t.deps.db.sql`select count(*)::int as posts from community_posts`;
    assert.equal(posts, 5);
  } finally {
    await s.close();
  }
});

Deno.test("communities: concurrent joins at the member cap leave consistent rows", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "owner", { name: "Tiny", memberLimit: 3 });
    const joiners = ["u1", "u2", "u3", "u4", "u5"];
    for (const u of joiners) await s.token(u);
    const results = await Promise.all(
      joiners.map(async (u) => (await s.as(u).data(JOIN, { id: c.id })).joinCommunity.errors),
    );
    const ok = results.filter((e) => e.length === 0).length;
    assert.equal(ok, 2);
    for (const e of results.filter((e) => e.length)) {
      assert.deepEqual(e, [
        {
          code: "community_full",
          message: "this community has reached its member limit",
          field: null,
        },
      ]);
    }
    // The same user joining twice at once: one membership.
    const d = await createCommunity(s, "owner", { name: "Doubles" });
    const twice = await Promise.all(
      [1, 2, 3].map(() => s.as("u1").data(JOIN_AGAIN, { id: d.id })),
    );
    assert.ok(twice.every((r) => r.joinCommunity.errors.length === 0), JSON.stringify(twice));
    assert.deepEqual(twice.map((r) => r.joinCommunity.alreadyMember).sort(), [false, true, true]);
    const rows = await s.t.deps.db.sql`
      select c.name, c.member_count as "memberCount", count(m.user_id)::int as members
      from communities c join community_members m on m.community_id = c.id
      group by c.id order by c.name`;
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { name: "Doubles", memberCount: 2, members: 2 },
      { name: "Tiny", memberCount: 3, members: 3 },
    ]);
    // Leaving twice at once: one leave.
    const leaves = await Promise.all(
      [1, 2].map(() => s.as("u1").data(LEAVE_AGAIN, { id: d.id })),
    );
    assert.ok(leaves.every((r) => r.leaveCommunity.errors.length === 0), JSON.stringify(leaves));
    assert.deepEqual(leaves.map((r) => r.leaveCommunity.alreadyLeft).sort(), [false, true]);
    assert.equal((await s.as("owner").data(ONE, { id: d.id })).community.memberCount, 1);
  } finally {
    await s.close();
  }
});

Deno.test("communities: members see community posts in unifiedFeed; leaving hides them", async () => {
  const s = await setup(SOCIAL);
  try {
    const c = await createCommunity(s, "alice", { name: "Climbers" });
    const other = await createCommunity(s, "carol", { name: "Painters" });
    await s.as("bob").data(JOIN, { id: c.id });
    s.clock.advance(1000);
    const post = (await s.as("alice").data(POST, { id: c.id, body: "Send it" })).createCommunityPost
      .post;
    s.clock.advance(1000);
    await s.as("carol").data(POST, { id: other.id, body: "not for bob" });

    const feed = (await s.as("bob").data(UNIFIED, {})).unifiedFeed.edges.map((
      e: { node: unknown },
    ) => e.node);
    assert.equal(feed.length, 1);
    assert.equal(feed[0].kind, "community_post");
    assert.equal(feed[0].actor.username, "alice");
    assert.deepEqual(feed[0].activity, {
      __typename: "CommunityPostActivity",
      post: { id: post.id, body: "Send it" },
      community: { id: c.id, name: "Climbers" },
    });
    // The author sees their own post once.
    const mine = (await s.as("alice").data(UNIFIED, {})).unifiedFeed.edges
      .filter((e: { node: { kind: string } }) => e.node.kind === "community_post");
    assert.equal(mine.length, 1);
    // Paging through a mix of own and followed items keeps order and repeats nothing.
    for (let i = 0; i < 4; i++) {
      s.clock.advance(1000);
      await s.as(i % 2 ? "alice" : "bob").data(POST, { id: c.id, body: `p${i}` });
    }
    const all = (await s.as("bob").data(UNIFIED, { first: 50 })).unifiedFeed.edges.map((
      e: { node: { id: string } },
    ) => e.node.id);
    assert.equal(all.length, 5);
    const paged: string[] = [];
    let after: string | null = null;
    do {
      const page: {
        edges: { node: { id: string } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string };
      } = (await s.as("bob").data(UNIFIED, { first: 2, after })).unifiedFeed;
      paged.push(...page.edges.map((e) => e.node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    assert.deepEqual(paged, all);
    // A cursor of an item Bob cannot see gives an empty page.
    const carolCursor = (await s.as("carol").data(UNIFIED, {})).unifiedFeed.pageInfo.endCursor;
    assert.deepEqual(
      (await s.as("bob").data(UNIFIED, { after: carolCursor })).unifiedFeed.edges,
      [],
    );

    await s.as("bob").data(LEAVE, { id: c.id });
    const after2 = (await s.as("bob").data(UNIFIED, { first: 50 })).unifiedFeed.edges;
    // Only Bob's own posts remain.
    assert.deepEqual(
      after2.map((e: { node: { actor: { username: string } } }) => e.node.actor.username),
      ["bob", "bob"],
    );
  } finally {
    await s.close();
  }
});
