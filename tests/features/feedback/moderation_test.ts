/** Feedback posts and comments pass the moderation hook (`deps.moderation.check`). */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { setup } from "../../support/setup.ts";

Deno.test("moderation: feedback posts and comments refused by the model are not stored", async () => {
  const c = await setup({ llm: true });
  try {
    const create = `mutation($t: String!, $d: String!) {
      createFeedbackPost(title: $t, description: $d, category: feature) { post { id } errors } }`;
    const comment = `mutation($id: String!, $b: String!) {
      addFeedbackComment(postId: $id, body: $b) { comment { id } errors } }`;
    const no = reply.json({ allowed: false, categories: ["spam"], reason: "advertising" });
    const yes = reply.json({ allowed: true, categories: [], reason: null });
    c.llm.script(no, yes, no);
    const refused = (await c.data(create, { t: "Buy pills", d: "cheap pills here" }))
      .createFeedbackPost;
    assert.deepEqual(refused, { post: null, errors: ["content_rejected: advertising"] });
    assert.match(c.llm.calls[0].body.messages[1].content!, /Buy pills\n\ncheap pills here/);
    const post = (await c.data(create, { t: "Dark mode", d: "Please add it" })).createFeedbackPost;
    assert.deepEqual(post.errors, []);
    const bad =
      (await c.data(comment, { id: post.post.id, b: "visit my shop" })).addFeedbackComment;
    assert.deepEqual(bad, { comment: null, errors: ["content_rejected: advertising"] });
    const [counts] = await c.t.deps.db.sql`
      select (select count(*)::int from feedback_posts) as posts,
             (select count(*)::int from feedback_comments) as comments`;
    assert.deepEqual({ ...counts }, { posts: 1, comments: 0 });
    // Invalid input is refused before any model call.
    const empty = (await c.data(create, { t: "", d: "" })).createFeedbackPost;
    assert.equal(empty.post, null);
    assert.equal(c.llm.calls.length, 3);
  } finally {
    await c.close();
  }
});
