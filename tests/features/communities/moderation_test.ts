/** Community posts pass the coaching issue's moderation hook when the `moderation` flag is on. */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { setup } from "../../support/setup.ts";
import { createCommunity, POST, SOCIAL } from "../../support/social.ts";

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
      const refused = (await s.as("alice").data(POST, { id: c.id, body: "you are all idiots" }))
        .createCommunityPost;
      const ok = (await s.as("alice").data(POST, { id: c.id, body: "Nice run today" }))
        .createCommunityPost;
      assert.deepEqual(ok.errors, []);
      const [{ posts }] = await s.t.deps.db.sql`select count(*)::int as posts from community_posts`;
      if (flags.includes("moderation")) {
        assert.deepEqual(refused, { post: null, errors: ["content_rejected: insults a member"] });
        assert.equal(posts, 1);
        assert.match(llm.calls[0].body.messages[1].content!, /community_post/);
      } else {
        // Flag off: no model call, everything is stored.
        assert.deepEqual(refused.errors, []);
        assert.equal(posts, 2);
        assert.equal(llm.calls.length, 0);
      }
    } finally {
      await s.close();
    }
  });
}
