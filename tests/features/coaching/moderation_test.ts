/** The moderation hook other features call (`deps.moderation.check`). */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { logged } from "../../support/app.ts";
import { createAi } from "../../../src/features/coaching/ai.ts";
import { setup } from "./setup.ts";

const context = { category: "feedback_post", post: "draft-1" };

Deno.test("moderation: flag on, the model allows or refuses, and the call is recorded", async () => {
  const c = await setup();
  try {
    const { moderation } = createAi(c.t.deps);
    c.llm.script(
      reply.json({ allowed: true, categories: [], reason: null }),
      reply.json({ allowed: false, categories: ["harassment"], reason: "insults a member" }),
    );
    assert.deepEqual(await moderation.check("Great app!", context), {
      allowed: true,
      checked: true,
      reason: null,
      categories: [],
    });
    assert.deepEqual(await moderation.check("you are an idiot", context), {
      allowed: false,
      checked: true,
      reason: "insults a member",
      categories: ["harassment"],
    });
    const body = c.llm.calls[1].body;
    assert.equal(body.temperature, 0);
    assert.match(body.messages[1].content!, /<post>you are an idiot<\/post>/);
    assert.match(body.messages[1].content!, /feedback_post/);
    const rows = await c.t.deps.db.sql`select feature, outcome from ai_calls order by id`;
    assert.deepEqual(rows.map((r) => [r.feature, r.outcome]), [
      ["moderation", "ok"],
      ["moderation", "ok"],
    ]);
    // Moderation is system work: never rate limited.
    c.llm.fallback = reply.json({ allowed: true, categories: [], reason: null });
    for (let i = 0; i < 15; i++) {
      assert.equal((await moderation.check("hi", context)).checked, true);
    }
  } finally {
    await c.close();
  }
});

Deno.test("moderation: flag off or no LLM, content is accepted and the skip is logged", async () => {
  const envs: Record<string, string>[] = [{ AI_FLAGS: "coaching" }, { LLM_BASE_URL: "" }];
  for (const env of envs) {
    const c = await setup({ env });
    try {
      const { moderation } = createAi(c.t.deps);
      const verdict = await moderation.check("anything", { ...context, userId: "42" });
      assert.deepEqual(verdict, { allowed: true, checked: false, reason: null, categories: [] });
      const warn = logged(c.t.log, "ai feature disabled")[0];
      assert.equal(warn.level, "warn");
      assert.equal(warn.flag, "moderation");
      assert.equal(warn.category, "feedback_post");
      // The internal user id is not logged.
      assert.deepEqual(warn.context, context);
      assert.equal(c.llm.calls.length, 0);
    } finally {
      await c.close();
    }
  }
});

Deno.test("moderation: a model outage or unusable answer fails open with an error log", async () => {
  const c = await setup();
  try {
    const { moderation } = createAi(c.t.deps);
    const down = await moderation.check("hello", context);
    assert.deepEqual(down, { allowed: true, checked: false, reason: null, categories: [] });
    assert.equal(c.llm.calls.length, 2);
    c.llm.script(reply.text("maybe?"), reply.json({ allowed: "yes" }));
    assert.equal((await moderation.check("hello", context)).checked, false);
    const errors = logged(c.t.log, "moderation check failed, content accepted");
    assert.deepEqual(errors.map((e) => [e.level, e.kind]), [
      ["error", "unavailable"],
      ["error", "invalid_output"],
    ]);
    const rows = await c.t.deps.db.sql`select outcome from ai_calls order by id`;
    assert.deepEqual(rows.map((r) => r.outcome), ["unavailable", "invalid_output"]);
  } finally {
    await c.close();
  }
});

Deno.test("moderation: feedback posts and comments refused by the model are not stored", async () => {
  const c = await setup();
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
