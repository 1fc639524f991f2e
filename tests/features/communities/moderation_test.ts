/** Community posts pass the moderation hook; with the `moderation` flag off they answer AI_DISABLED. */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { setup } from "../../support/setup.ts";
import { createCommunity, FEED, JOIN, POST, SOCIAL, UNIFIED } from "../../support/social.ts";

for (const flags of ["coaching,moderation,batch", "coaching"]) {
  Deno.test(`moderation: community posts with AI_FLAGS=${flags}`, async () => {
    const s = await setup({ ...SOCIAL, llm: true, env: { AI_FLAGS: flags } });
    const llm = s.llm;
    try {
      const c = await createCommunity(s, "alice", { name: "Moderated" });
      llm.script(
        reply.json({ allowed: false, categories: ["harassment"], reason: "insults a member" }),
      );
      llm.fallback = reply.json({ allowed: true, categories: [], reason: null });
      const count = async () =>
        (await s.t.deps.db.sql`select count(*)::int as posts from community_posts`)[0].posts;
      if (flags.includes("moderation")) {
        const refused = (await s.as("alice").data(POST, { id: c.id, body: "you are all idiots" }))
          .createCommunityPost;
        const ok = (await s.as("alice").data(POST, { id: c.id, body: "Nice run today" }))
          .createCommunityPost;
        assert.deepEqual(ok.errors, []);
        assert.deepEqual(refused, {
          post: null,
          errors: [{ code: "content_rejected", message: "insults a member", field: "body" }],
        });
        assert.equal(await count(), 1);
        assert.match(llm.calls[0].body.messages[1].content!, /community_post/);
      } else {
        // Flag off (spec 7): the mutation answers AI_DISABLED, nothing is stored, no model call.
        const res = await s.as("alice").run(POST, { id: c.id, body: "Nice run today" });
        assert.equal(res.body.errors[0].extensions.code, "AI_DISABLED");
        assert.equal(await count(), 0);
        assert.equal(llm.calls.length, 0);
      }
    } finally {
      await s.close();
    }
  });
}

Deno.test("moderation seam: createCommunityPost checks the validated, trimmed body; a refusal leaves no post and no feed item", async () => {
  const s = await setup({ ...SOCIAL, llm: true, env: { AI_FLAGS: "moderation" } });
  try {
    const c = await createCommunity(s, "alice", { name: "Seam" });
    assert.deepEqual((await s.as("bob").data(JOIN, { id: c.id })).joinCommunity.errors, []);
    s.llm.script(reply.json({ allowed: false, categories: ["spam"], reason: "advertising" }));
    const refused = (await s.as("alice").data(POST, { id: c.id, body: "  Buy pills  " }))
      .createCommunityPost;
    assert.deepEqual(refused, {
      post: null,
      errors: [{ code: "content_rejected", message: "advertising", field: "body" }],
    });
    assert.equal(s.llm.calls.length, 1);
    const prompt = s.llm.calls[0].body.messages[1].content!;
    assert.match(prompt, /<post>Buy pills<\/post>/);
    assert.match(prompt, /community_post/);

    // Invalid bodies and non-members are refused before the hook: no model call.
    for (const body of ["   ", "x".repeat(5000)]) {
      const res = (await s.as("alice").data(POST, { id: c.id, body })).createCommunityPost;
      assert.equal(res.post, null);
      assert.equal(res.errors[0].code, "invalid");
      assert.match(res.errors[0].message, /^body must/);
    }
    const outsider = (await s.as("carol").data(POST, { id: c.id, body: "hello" }))
      .createCommunityPost;
    assert.equal(outsider.errors[0].code, "not_member");
    assert.equal(s.llm.calls.length, 1);

    // Nothing of the refused post is stored or shown.
    const [{ posts }] = await s.t.deps.db.sql`select count(*)::int as posts from community_posts`;
    assert.equal(posts, 0);
    for (const name of ["alice", "bob"]) {
      assert.deepEqual((await s.as(name).data(FEED, { id: c.id })).communityFeed.edges, []);
      assert.deepEqual((await s.as(name).data(UNIFIED, {})).unifiedFeed.edges, []);
    }

    // An allowed post is stored and reaches the members' feeds.
    s.llm.script(reply.json({ allowed: true, categories: [], reason: null }));
    const ok = (await s.as("alice").data(POST, { id: c.id, body: "Nice run today" }))
      .createCommunityPost;
    assert.deepEqual(ok.errors, []);
    const feed = (await s.as("bob").data(FEED, { id: c.id })).communityFeed.edges;
    assert.deepEqual(feed.map((e: { node: { body: string } }) => e.node.body), ["Nice run today"]);
  } finally {
    await s.close();
  }
});
