import assert from "node:assert/strict";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import * as social from "../../support/social.ts";

const UPDATE = `mutation U($id: String!, $body: String!) {
  updateCommunityPost(postId: $id, body: $body) {
    post { id body editedAt createdAt author { username } } ${USER_ERRORS} } }`;
const DELETE = `mutation D($id: String!) {
  deleteCommunityPost(postId: $id) { post { id body } ${USER_ERRORS} } }`;

async function post(s: TestSetup, as: string, communityId: string, body: string) {
  s.clock.advance(1000);
  const res = (await s.data(social.POST, { id: communityId, body }, as)).createCommunityPost;
  assert.deepEqual(res.errors, []);
  return res.post.id as string;
}

const feedBodies = async (s: TestSetup, as: string, communityId: string) =>
  (await s.data(social.FEED, { id: communityId }, as)).communityFeed.edges.map((
    e: { node: { body: string } },
  ) => e.node.body);

const unifiedBodies = async (s: TestSetup, as: string) =>
  (await s.data(social.UNIFIED, {}, as)).unifiedFeed.edges
    .filter((e: { node: { kind: string } }) => e.node.kind === "community_post")
    .map((e: { node: { activity: { post: { body: string } } } }) => e.node.activity.post.body);

const errorsOf = (data: Record<string, { errors: unknown[] }>) => Object.values(data)[0].errors;

Deno.test("community posts: the author edits; author, owner and admin remove; others cannot", async () => {
  const s = await setup({ ...social.SOCIAL, admins: ["root"] });
  try {
    const c = await social.createCommunity(s, "owner", { name: "Runners" });
    for (const m of ["bob", "dave"]) await s.data(social.JOIN, { id: c.id }, m);
    const first = await post(s, "bob", c.id, "first");
    const second = await post(s, "bob", c.id, "second");
    const third = await post(s, "dave", c.id, "third");

    // The author edits: trimmed, editedAt set, the feeds show the new body.
    s.clock.advance(60_000);
    const edited = (await s.data(UPDATE, { id: first, body: "  first, edited " }, "bob"))
      .updateCommunityPost;
    assert.deepEqual(edited.errors, []);
    assert.equal(edited.post.body, "first, edited");
    assert.equal(edited.post.editedAt, s.clock.now().toISOString());
    assert.deepEqual(await feedBodies(s, "owner", c.id), ["third", "second", "first, edited"]);
    assert.ok((await unifiedBodies(s, "dave")).includes("first, edited"));

    // Bad bodies, other members, the owner (edit is the author's), readers outside: refused.
    const refused = async (q: string, vars: Record<string, unknown>, as: string) =>
      errorsOf(await s.data(q, vars, as));
    assert.deepEqual(await refused(UPDATE, { id: first, body: "   " }, "bob"), [{
      code: "invalid",
      message: "body must not be empty",
      field: "body",
    }]);
    const notAuthor = [{
      code: "not_allowed",
      message: "only the post's author, while a member, can edit it",
      field: "postId",
    }];
    for (const who of ["dave", "owner", "carol", "root"]) {
      assert.deepEqual(await refused(UPDATE, { id: first, body: "x" }, who), notAuthor, who);
    }
    const notRemover = [{
      code: "not_allowed",
      message: "only the post's author, the community's owner or an admin can remove it",
      field: "postId",
    }];
    for (const who of ["dave", "carol"]) {
      assert.deepEqual(await refused(DELETE, { id: first }, who), notRemover, who);
    }
    const noPost = [{ code: "not_found", message: "no such post", field: "postId" }];
    assert.deepEqual(await refused(DELETE, { id: "not-a-post" }, "bob"), noPost);
    assert.deepEqual(await refused(UPDATE, { id: "x".repeat(22), body: "x" }, "bob"), noPost);
    assert.equal(codeOf(await s.run(DELETE, {}, "bob")), "BAD_USER_INPUT");
    assert.deepEqual(await feedBodies(s, "owner", c.id), ["third", "second", "first, edited"]);

    // The owner removes a member's post, an admin another; the author their own.
    assert.deepEqual((await s.data(DELETE, { id: second }, "owner")).deleteCommunityPost, {
      post: { id: second, body: "second" },
      errors: [],
    });
    assert.deepEqual(errorsOf(await s.data(DELETE, { id: third }, "root")), []);
    assert.deepEqual(await feedBodies(s, "owner", c.id), ["first, edited"]);
    assert.deepEqual(await unifiedBodies(s, "dave"), ["first, edited"]);
    assert.deepEqual(await refused(DELETE, { id: second }, "owner"), noPost);

    // After leaving, the author can no longer edit but can still remove their post.
    assert.deepEqual(errorsOf(await s.data(social.LEAVE, { id: c.id }, "bob")), []);
    assert.deepEqual(await refused(UPDATE, { id: first, body: "again" }, "bob"), notAuthor);
    assert.deepEqual(errorsOf(await s.data(DELETE, { id: first }, "bob")), []);
    assert.deepEqual(await feedBodies(s, "owner", c.id), []);
    assert.deepEqual(await unifiedBodies(s, "bob"), []);
  } finally {
    await s.close();
  }
});

Deno.test("community posts: a private community's posts do not exist for outsiders", async () => {
  const s = await setup(social.SOCIAL);
  try {
    const c = await social.createCommunity(s, "owner", { name: "Quiet", visibility: "private" });
    await s.data(social.INVITE, { id: c.id, userId: await s.idOf("bob") }, "owner");
    await s.data(social.JOIN, { id: c.id }, "bob");
    const id = await post(s, "bob", c.id, "hello");
    const noPost = [{ code: "not_found", message: "no such post", field: "postId" }];
    assert.deepEqual(errorsOf(await s.data(DELETE, { id }, "carol")), noPost);
    assert.deepEqual(errorsOf(await s.data(UPDATE, { id, body: "x" }, "carol")), noPost);
    assert.deepEqual(await feedBodies(s, "owner", c.id), ["hello"]);
    // The owner of a private community removes posts in it.
    assert.deepEqual(errorsOf(await s.data(DELETE, { id }, "owner")), []);
  } finally {
    await s.close();
  }
});

const BLOCK = `mutation B($userId: String!) { blockUser(userId: $userId) { ${USER_ERRORS} } }`;
const totalOf = async (s: TestSetup, as: string, communityId: string) =>
  (await s.data(social.FEED, { id: communityId }, as)).communityFeed.totalCount as number;

Deno.test("community posts: the feed's totalCount is kept through posts, removals, blocks and erasure", async () => {
  const s = await setup(social.SOCIAL);
  try {
    const c = await social.createCommunity(s, "owner", { name: "Counted" });
    const other = await social.createCommunity(s, "owner", { name: "Elsewhere" });
    for (const m of ["bob", "dave"]) {
      for (const id of [c.id, other.id]) await s.data(social.JOIN, { id }, m);
    }
    const first = await post(s, "bob", c.id, "one");
    await post(s, "bob", c.id, "two");
    await post(s, "dave", c.id, "three");
    await post(s, "bob", other.id, "elsewhere");
    const rowsIn = async (publicId: string) =>
      (await s.t.deps.db.sql<{ n: number }[]>`
        select count(*)::int as n from community_posts p join communities k on k.id = p.community_id
        where k.public_id = ${publicId}`)[0].n;
    assert.equal(await totalOf(s, "owner", c.id), 3);

    assert.deepEqual(errorsOf(await s.data(DELETE, { id: first }, "bob")), []);
    // A refused removal changes nothing.
    const again = errorsOf(await s.data(DELETE, { id: first }, "bob")) as { code: string }[];
    assert.equal(again[0].code, "not_found");
    assert.equal(await totalOf(s, "owner", c.id), 2);
    assert.equal(await rowsIn(c.id), 2);

    // A block hides the other's posts from the count both ways.
    assert.deepEqual(errorsOf(await s.data(BLOCK, { userId: await s.idOf("bob") }, "dave")), []);
    assert.equal(await totalOf(s, "dave", c.id), 1);
    assert.equal(await totalOf(s, "bob", c.id), 1);
    assert.equal(await totalOf(s, "owner", c.id), 2);

    // Erasing an author takes their posts out of every community's count.
    const { communitiesPersonalData } = await import(
      "../../../src/features/communities/personal-data.ts"
    );
    const bob = await s.t.deps.db.sql<{ id: string }[]>`
      select id from users where username = 'bob'`;
    await s.t.deps.db.sql.begin((tx) =>
      communitiesPersonalData(s.t.deps.db.sql).eraseFor(tx, bob[0].id, s.clock.now(), [])
    );
    assert.equal(await totalOf(s, "owner", c.id), 1);
    assert.equal(await totalOf(s, "owner", other.id), 0);
    assert.equal(await rowsIn(c.id), 1);
  } finally {
    await s.close();
  }
});
