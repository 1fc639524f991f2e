/** The moderation hook other features call (`deps.moderation.check`). */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { logged } from "../../support/app.ts";
import { COACHING } from "../../support/coaching.ts";
import { setup } from "../../support/setup.ts";

const context = { category: "feedback_post", post: "draft-1" };

Deno.test("moderation: flag on, the model allows or refuses, and the call is recorded", async () => {
  const c = await setup(COACHING);
  try {
    const { moderation } = c.t.app.features.coaching.api;
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

Deno.test("moderation: flag off, the check answers AI_DISABLED after a warn log (spec 7)", async () => {
  for (const off of ["env", "admin"] as const) {
    const c = await setup({ ...COACHING, env: off === "env" ? { AI_FLAGS: "coaching" } : {} });
    try {
      if (off === "admin") await c.t.app.features.coaching.api.flags.set("moderation", false, null);
      const { moderation } = c.t.app.features.coaching.api;
      await assert.rejects(
        moderation.check("anything", { ...context, userId: "42" }),
        (err: Error & { extensions?: Record<string, unknown> }) =>
          err.extensions?.code === "AI_DISABLED" && err.extensions?.flag === "moderation",
      );
      const warn = logged(c.t.log, "ai feature disabled")[0];
      assert.equal(warn.level, "warn");
      assert.equal(warn.flag, "moderation");
      assert.equal(warn.category, "feedback_post");
      assert.equal(warn.reason, "flag_off");
      // The internal user id is not logged.
      assert.deepEqual(warn.context, context);
      assert.equal(c.llm.calls.length, 0);
    } finally {
      await c.close();
    }
  }
});

Deno.test("moderation: without an LLM the content is accepted unchecked and the skip is logged", async () => {
  const c = await setup({ ...COACHING, env: { LLM_BASE_URL: "" } });
  try {
    const { moderation } = c.t.app.features.coaching.api;
    const verdict = await moderation.check("anything", { ...context, userId: "42" });
    assert.deepEqual(verdict, { allowed: true, checked: false, reason: null, categories: [] });
    const warn = logged(c.t.log, "moderation skipped: no LLM configured, content accepted")[0];
    assert.equal(warn.level, "warn");
    assert.equal(warn.category, "feedback_post");
    assert.deepEqual(warn.context, context);
  } finally {
    await c.close();
  }
});

Deno.test("moderation: a model outage or unusable answer fails open with an error log", async () => {
  const c = await setup(COACHING);
  try {
    const { moderation } = c.t.app.features.coaching.api;
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
