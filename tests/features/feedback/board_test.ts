import assert from "node:assert/strict";
import type { TestApp } from "../../support/app.ts";
import { codeOf, codesOf, dataOf, gql, USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";

/** The board's users are named after their subject; "admin" is the service admin. */
const board = () => setup({ admins: ["admin"], usernames: true });
type Board = TestSetup;

const POST_FIELDS =
  `id title description category status voteCount commentCount viewerHasVoted createdAt author { id username }`;
const CREATE = `mutation($t: String!, $d: String!, $c: FeedbackCategory!) {
  createFeedbackPost(title: $t, description: $d, category: $c) { post { ${POST_FIELDS} } ${USER_ERRORS} } }`;
const LIST = `query($category: FeedbackCategory, $status: FeedbackStatus, $sort: FeedbackSort,
  $first: Int, $after: String) {
  feedbackPosts(category: $category, status: $status, sort: $sort, first: $first, after: $after) {
    edges { cursor node { id title voteCount } } pageInfo { hasNextPage endCursor } } }`;
const GET = `query($id: String!) { feedbackPost(id: $id) { ${POST_FIELDS}
  comments(first: 10) { edges { node { id body author { username } createdAt } } } } }`;
const VOTE =
  `mutation($id: String!) { voteFeedbackPost(postId: $id) { voted post { voteCount viewerHasVoted } ${USER_ERRORS} } }`;
const COMMENT = `mutation($id: String!, $body: String!) {
  createFeedbackComment(postId: $id, body: $body) { comment { id body } post { commentCount } ${USER_ERRORS} } }`;
const DELETE =
  `mutation($id: String!) { deleteFeedbackPost(postId: $id) { deletedPostId ${USER_ERRORS} } }`;
const STATUS = `mutation($id: String!, $s: FeedbackStatus!) {
  updateFeedbackStatus(postId: $id, status: $s) { post { id status } ${USER_ERRORS} } }`;

async function create(b: Board, token: string, title: string, category = "feature") {
  const out = dataOf(await gql(b.t, CREATE, { t: title, d: "details", c: category }, { token }));
  assert.deepEqual(out.createFeedbackPost.errors, []);
  return out.createFeedbackPost.post;
}

async function counts(t: TestApp) {
  const [row] = await t.deps.db.sql`
    select (select count(*) from feedback_posts)::int as posts,
      (select count(*) from feedback_votes)::int as votes,
      (select count(*) from feedback_comments)::int as comments,
      (select coalesce(sum(vote_count), 0) from feedback_posts)::int as vote_sum,
      (select count(*) from feedback_posts where deleted_at is not null)::int as deleted,
      (select string_agg(status, ',' order by id) from feedback_posts) as statuses`;
  return row;
}

Deno.test("feedback board: create, read, list NEW and TOP with pages and filters", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const bob = await b.token("bob");
    const first = await create(b, ada, "  Dark mode  ");
    assert.equal(first.title, "Dark mode");
    assert.equal(first.category, "feature");
    assert.equal(first.status, "open");
    assert.equal(first.voteCount, 0);
    assert.equal(first.author.username, "ada");
    assert.match(first.id, /^[A-Za-z0-9_-]{22}$/);
    assert.match(first.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await create(b, bob, "Crash on save", "bug");
    const third = await create(b, bob, "Faster sync", "improvement");
    dataOf(await gql(b.t, VOTE, { id: second.id }, { token: ada }));

    const fetched = dataOf(await gql(b.t, GET, { id: first.id }, { token: bob })).feedbackPost;
    assert.equal(fetched.description, "details");
    assert.equal(fetched.viewerHasVoted, false);

    const titles = (data: { feedbackPosts: { edges: { node: { title: string } }[] } }) =>
      data.feedbackPosts.edges.map((e) => e.node.title);
    const page1 = dataOf(await gql(b.t, LIST, { first: 2 }, { token: ada }));
    assert.deepEqual(titles(page1), ["Faster sync", "Crash on save"]);
    assert.equal(page1.feedbackPosts.pageInfo.hasNextPage, true);
    const page2 = dataOf(
      await gql(b.t, LIST, { first: 2, after: page1.feedbackPosts.pageInfo.endCursor }, {
        token: ada,
      }),
    );
    assert.deepEqual(titles(page2), ["Dark mode"]);
    assert.equal(page2.feedbackPosts.pageInfo.hasNextPage, false);

    const top = dataOf(await gql(b.t, LIST, { sort: "top", first: 1 }, { token: ada }));
    assert.deepEqual(titles(top), ["Crash on save"]);
    const topRest = dataOf(
      await gql(b.t, LIST, { sort: "top", after: top.feedbackPosts.pageInfo.endCursor }, {
        token: ada,
      }),
    );
    assert.deepEqual(titles(topRest), ["Faster sync", "Dark mode"]);

    const bugs = dataOf(await gql(b.t, LIST, { category: "bug" }, { token: ada }));
    assert.deepEqual(titles(bugs), ["Crash on save"]);
    assert.equal(third.category, "improvement");

    // A cursor of the other sort, or a forged one, is a user error.
    const wrong = await gql(b.t, LIST, {
      sort: "top",
      after: page1.feedbackPosts.pageInfo.endCursor,
    }, {
      token: ada,
    });
    assert.equal(codeOf(wrong), "BAD_USER_INPUT");
    assert.equal(
      codeOf(await gql(b.t, LIST, { after: "garbage" }, { token: ada })),
      "BAD_USER_INPUT",
    );
    // Signed-out callers see nothing.
    assert.equal(codeOf(await gql(b.t, LIST, {})), "UNAUTHENTICATED");
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: invalid input is refused and changes nothing", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const before = await counts(b.t);
    const bad = dataOf(
      await gql(b.t, CREATE, { t: "x".repeat(151), d: "   ", c: "bug" }, { token: ada }),
    );
    assert.equal(bad.createFeedbackPost.post, null);
    assert.deepEqual(bad.createFeedbackPost.errors.map((e: { field: string }) => e.field), [
      "title",
      "description",
    ]);
    assert.deepEqual(codesOf(bad.createFeedbackPost), ["invalid", "invalid"]);
    assert.equal(
      (await gql(b.t, CREATE, { t: "Fine title", d: "d", c: "rant" }, { token: ada })).body.errors
        .length,
      1,
    );
    assert.equal(
      (await gql(b.t, CREATE, { t: 5, d: "d", c: "bug" }, { token: ada })).body.errors.length,
      1,
    );
    const post = await create(b, ada, "Valid");
    const longComment = dataOf(
      await gql(b.t, COMMENT, { id: post.id, body: "x".repeat(2001) }, { token: ada }),
    );
    assert.deepEqual(longComment.createFeedbackComment.errors, [
      { code: "invalid", message: "body must be 1 to 2000 characters", field: "body" },
    ]);
    assert.equal(longComment.createFeedbackComment.comment, null);
    const notFound = [{ code: "not_found", message: "no such feedback post", field: "postId" }];
    for (const id of ["nope", "AAAAAAAAAAAAAAAAAAAAAA", "1"]) {
      assert.deepEqual(dataOf(await gql(b.t, GET, { id }, { token: ada })), {
        feedbackPost: null,
      });
      const vote = dataOf(await gql(b.t, VOTE, { id }, { token: ada })).voteFeedbackPost;
      assert.deepEqual(vote, { voted: null, post: null, errors: notFound });
      const comment = dataOf(await gql(b.t, COMMENT, { id, body: "hi" }, { token: ada }));
      assert.deepEqual(comment.createFeedbackComment.errors, notFound);
      const del = dataOf(await gql(b.t, DELETE, { id }, { token: ada })).deleteFeedbackPost;
      assert.deepEqual(del, { deletedPostId: null, errors: notFound });
    }
    // An enum value of the old schema (upper case) is refused before any resolver runs.
    const old = await gql(b.t, LIST, { sort: "NEW" }, { token: ada });
    assert.equal(codeOf(old), "BAD_USER_INPUT");
    assert.match(old.body.errors[0].message, /\$sort/);
    const after = await counts(b.t);
    assert.equal(after.posts, before.posts + 1);
    assert.equal(after.comments, 0);
    assert.equal(after.votes, 0);
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: a vote toggles, one per user, and comments are counted", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const bob = await b.token("bob");
    const post = await create(b, ada, "Widgets");
    const v1 = dataOf(await gql(b.t, VOTE, { id: post.id }, { token: bob })).voteFeedbackPost;
    assert.deepEqual(v1, { voted: true, post: { voteCount: 1, viewerHasVoted: true }, errors: [] });
    const v2 = dataOf(await gql(b.t, VOTE, { id: post.id }, { token: ada })).voteFeedbackPost;
    assert.equal(v2.post.voteCount, 2);
    const v3 = dataOf(await gql(b.t, VOTE, { id: post.id }, { token: bob })).voteFeedbackPost;
    assert.deepEqual(v3, {
      voted: false,
      post: { voteCount: 1, viewerHasVoted: false },
      errors: [],
    });

    const c = dataOf(await gql(b.t, COMMENT, { id: post.id, body: " +1 " }, { token: bob }))
      .createFeedbackComment;
    assert.equal(c.comment.body, "+1");
    assert.equal(c.post.commentCount, 1);
    dataOf(await gql(b.t, COMMENT, { id: post.id, body: "me too" }, { token: ada }));
    const read = dataOf(await gql(b.t, GET, { id: post.id }, { token: ada })).feedbackPost;
    assert.equal(read.commentCount, 2);
    assert.equal(read.viewerHasVoted, true);
    assert.deepEqual(read.comments.edges.map((e: { node: { body: string } }) => e.node.body), [
      "+1",
      "me too",
    ]);
    assert.equal(read.comments.edges[0].node.author.username, "bob");
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: concurrent votes keep vote_count equal to the votes", async () => {
  const b = await board();
  try {
    const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) => b.token(`voter${i}`)));
    const post = await create(b, tokens[0], "Popular");
    // Make every user exist first, so the race is about votes, not sign-ups.
    for (const token of tokens) dataOf(await gql(b.t, `{ me { id } }`, {}, { token }));
    await Promise.all(tokens.map((token) => gql(b.t, VOTE, { id: post.id }, { token })));
    let state = await counts(b.t);
    assert.equal(state.votes, 8);
    assert.equal(state.vote_sum, 8);
    // The same user toggling twice at once ends where the rows say.
    await Promise.all([0, 1, 2].map(() => gql(b.t, VOTE, { id: post.id }, { token: tokens[1] })));
    await Promise.all(tokens.slice(4).map((token) => gql(b.t, VOTE, { id: post.id }, { token })));
    state = await counts(b.t);
    assert.equal(state.vote_sum, state.votes);
    // voter1's racing toggles may land as off-on-off or collapse (a delete that finds the row
    // already gone); either way the counter matches the rows.
    assert.ok(state.votes === 3 || state.votes === 4, String(state.votes));
    // Concurrent comments too.
    await Promise.all(
      tokens.map((token, i) => gql(b.t, COMMENT, { id: post.id, body: `c${i}` }, { token })),
    );
    const read = dataOf(await gql(b.t, GET, { id: post.id }, { token: tokens[0] })).feedbackPost;
    assert.equal(read.commentCount, 8);
    assert.equal(read.voteCount, state.votes);
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: only the author or an admin deletes; deleted posts are gone everywhere", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const bob = await b.token("bob");
    const admin = await b.token("admin");
    const mine = await create(b, ada, "Mine");
    const other = await create(b, ada, "Other");
    const refused = dataOf(await gql(b.t, DELETE, { id: mine.id }, { token: bob }));
    assert.deepEqual(codesOf(refused.deleteFeedbackPost), ["not_allowed"]);
    assert.equal(refused.deleteFeedbackPost.deletedPostId, null);
    assert.equal((await counts(b.t)).deleted, 0);

    const done = dataOf(await gql(b.t, DELETE, { id: mine.id }, { token: ada }));
    assert.deepEqual(done.deleteFeedbackPost, { deletedPostId: mine.id, errors: [] });
    assert.equal(dataOf(await gql(b.t, GET, { id: mine.id }, { token: ada })).feedbackPost, null);
    const vote = dataOf(await gql(b.t, VOTE, { id: mine.id }, { token: bob }));
    assert.deepEqual(codesOf(vote.voteFeedbackPost), ["not_found"]);
    const again = dataOf(await gql(b.t, DELETE, { id: mine.id }, { token: ada }));
    assert.deepEqual(codesOf(again.deleteFeedbackPost), ["not_found"]);
    const list = dataOf(await gql(b.t, LIST, {}, { token: ada }));
    assert.deepEqual(list.feedbackPosts.edges.map((e: { node: { id: string } }) => e.node.id), [
      other.id,
    ]);
    dataOf(await gql(b.t, DELETE, { id: other.id }, { token: admin }));
    const state = await counts(b.t);
    assert.equal(state.posts, 2);
    assert.equal(state.deleted, 2);
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: only an admin changes the status", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const admin = await b.token("admin");
    const post = await create(b, ada, "Roadmap item");
    assert.equal(
      codeOf(await gql(b.t, STATUS, { id: post.id, s: "planned" }, { token: ada })),
      "FORBIDDEN",
    );
    assert.equal((await counts(b.t)).statuses, "open");
    assert.equal(
      (await gql(b.t, STATUS, { id: post.id, s: "shipped" }, { token: admin })).body
        .errors.length,
      1,
    );
    const out = dataOf(await gql(b.t, STATUS, { id: post.id, s: "in_progress" }, { token: admin }));
    assert.deepEqual(out.updateFeedbackStatus, {
      post: { id: post.id, status: "in_progress" },
      errors: [],
    });
    const filtered = dataOf(await gql(b.t, LIST, { status: "in_progress" }, { token: ada }));
    assert.equal(filtered.feedbackPosts.edges.length, 1);
    assert.equal(
      dataOf(await gql(b.t, LIST, { status: "open" }, { token: ada })).feedbackPosts
        .edges.length,
      0,
    );
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: pages back with last/before and counts with totalCount", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    for (const title of ["One", "Two", "Three", "Four", "Five"]) await create(b, ada, title);
    const PAGE = `query($first: Int, $after: String, $last: Int, $before: String) {
      feedbackPosts(first: $first, after: $after, last: $last, before: $before) {
        nodes { title } totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const page = async (vars: Record<string, unknown>) =>
      dataOf(await gql(b.t, PAGE, vars, { token: ada })).feedbackPosts;
    const last = await page({ last: 2 });
    assert.deepEqual(last.nodes.map((n: { title: string }) => n.title), ["Two", "One"]);
    assert.equal(last.totalCount, 5);
    assert.deepEqual(
      [last.pageInfo.hasPreviousPage, last.pageInfo.hasNextPage],
      [true, false],
    );
    const before = await page({ last: 2, before: last.pageInfo.startCursor });
    assert.deepEqual(before.nodes.map((n: { title: string }) => n.title), ["Four", "Three"]);
    const start = await page({ last: 5, before: before.pageInfo.startCursor });
    assert.deepEqual(start.nodes.map((n: { title: string }) => n.title), ["Five"]);
    assert.equal(start.pageInfo.hasPreviousPage, false);
    const top = dataOf(
      await gql(b.t, `{ feedbackPosts(sort: top, last: 1) { nodes { title } totalCount } }`, {}, {
        token: ada,
      }),
    );
    assert.deepEqual(top.feedbackPosts, { nodes: [{ title: "One" }], totalCount: 5 });
    assert.equal(
      codeOf(await gql(b.t, PAGE, { first: 1, last: 1 }, { token: ada })),
      "BAD_USER_INPUT",
    );
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: comments of a page of posts cost the same statements for 2 or 8 posts", async () => {
  const b = await board();
  try {
    const ada = await b.token("ada");
    const LIST_COMMENTS = `query($first: Int) { feedbackPosts(first: $first) {
      nodes { title comments(first: 2) { totalCount nodes { body author { username } createdAt }
        pageInfo { hasNextPage } } } } }`;
    for (let i = 0; i < 8; i++) {
      const post = await create(b, ada, `Post ${i}`);
      for (let c = 0; c < 3; c++) {
        dataOf(await gql(b.t, COMMENT, { id: post.id, body: `c${c}` }, { token: ada }));
      }
    }
    const small = dataOf(await gql(b.t, LIST_COMMENTS, { first: 2 }, { token: ada }));
    const smallCount = b.lastStatements();
    const big = dataOf(await gql(b.t, LIST_COMMENTS, { first: 8 }, { token: ada }));
    assert.equal(b.lastStatements(), smallCount);
    assert.equal(small.feedbackPosts.nodes.length, 2);
    assert.equal(big.feedbackPosts.nodes.length, 8);
    for (const post of big.feedbackPosts.nodes) {
      assert.equal(post.comments.totalCount, 3);
      assert.deepEqual(post.comments.nodes.map((n: { body: string }) => n.body), ["c0", "c1"]);
      assert.equal(post.comments.pageInfo.hasNextPage, true);
      assert.match(post.comments.nodes[0].createdAt, /^\d{4}-\d\d-\d\dT[\d:]{8}\.\d{3}Z$/);
    }
  } finally {
    await b.close();
  }
});

Deno.test("feedback board: totalCount is kept through posts, statuses, deletions and erasure, per filter", async () => {
  const b = await board();
  try {
    const [ada, bob, admin] = await Promise.all(["ada", "bob", "admin"].map((u) => b.token(u)));
    const TOTAL = `query($category: FeedbackCategory, $status: FeedbackStatus) {
      feedbackPosts(category: $category, status: $status, first: 1) { totalCount } }`;
    const filters = [{}, { category: "bug" }, { status: "planned" }, {
      category: "feature",
      status: "open",
    }];
    // Each filter's totalCount equals the live rows it selects.
    const agree = async (label: string) => {
      for (const f of filters) {
        const shown = dataOf(await gql(b.t, TOTAL, f, { token: bob })).feedbackPosts.totalCount;
        const [{ n }] = await b.t.deps.db.sql<{ n: number }[]>`
          select count(*)::int as n from feedback_posts where deleted_at is null
            and (${(f as { category?: string }).category ?? null}::text is null
              or category = ${(f as { category?: string }).category ?? null})
            and (${(f as { status?: string }).status ?? null}::text is null
              or status = ${(f as { status?: string }).status ?? null})`;
        assert.equal(shown, n, `${label}: ${JSON.stringify(f)}`);
      }
    };
    const posts = [
      await create(b, ada, "One"),
      await create(b, ada, "Two", "bug"),
      await create(b, bob, "Three", "bug"),
      await create(b, bob, "Four"),
    ];
    await agree("created");
    for (const s of ["planned", "planned", "in_progress", "planned"]) {
      const out = dataOf(await gql(b.t, STATUS, { id: posts[1].id, s }, { token: admin }));
      assert.deepEqual(out.updateFeedbackStatus.errors, []);
    }
    // A refused status change (not an admin) moves nothing.
    await gql(b.t, STATUS, { id: posts[0].id, s: "planned" }, { token: bob });
    await agree("statuses");
    dataOf(await gql(b.t, DELETE, { id: posts[2].id }, { token: bob }));
    dataOf(await gql(b.t, DELETE, { id: posts[2].id }, { token: bob }));
    await agree("deleted");
    const { feedbackPersonalData } = await import(
      "../../../src/features/feedback/personal-data.ts"
    );
    const [{ id }] = await b.t.deps.db.sql<{ id: string }[]>`
      select id from users where username = 'ada'`;
    const erase = feedbackPersonalData(b.t.deps.db.sql);
    await b.t.deps.db.sql.begin((tx) => erase.eraseFor(tx, id, new Date(), []));
    await agree("erased");
    assert.equal(dataOf(await gql(b.t, TOTAL, {}, { token: bob })).feedbackPosts.totalCount, 1);
  } finally {
    await b.close();
  }
});
