/** Feedback posts and comments pass the moderation hook (`deps.moderation.check`). */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { setup } from "../../support/setup.ts";

const REJECTED = { code: "content_rejected", message: "advertising", field: null };

Deno.test("moderation: feedback posts and comments refused by the model are not stored", async () => {
  const c = await setup({ llm: true });
  try {
    const create = `mutation($t: String!, $d: String!) {
      createFeedbackPost(title: $t, description: $d, category: feature) { post { id } errors { code message field } } }`;
    const comment = `mutation($id: String!, $b: String!) {
      createFeedbackComment(postId: $id, body: $b) { comment { id } errors { code message field } } }`;
    const no = reply.json({ allowed: false, categories: ["spam"], reason: "advertising" });
    const yes = reply.json({ allowed: true, categories: [], reason: null });
    c.llm.script(no, yes, no);
    const refused = (await c.data(create, { t: "Buy pills", d: "cheap pills here" }))
      .createFeedbackPost;
    assert.deepEqual(refused, { post: null, errors: [REJECTED] });
    assert.match(c.llm.calls[0].body.messages[1].content!, /Buy pills\n\ncheap pills here/);
    const post = (await c.data(create, { t: "Dark mode", d: "Please add it" })).createFeedbackPost;
    assert.deepEqual(post.errors, []);
    const bad =
      (await c.data(comment, { id: post.post.id, b: "visit my shop" })).createFeedbackComment;
    assert.deepEqual(bad, { comment: null, errors: [REJECTED] });
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
