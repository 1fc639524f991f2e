/** AI feature flags: AI_FLAGS, the admin override, unknown names, no LLM; and the rate limits. */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { logged } from "../../support/app.ts";
import { kvImplementations } from "../../support/kv.ts";
import { createAi } from "../../../src/features/coaching/ai.ts";
import { createLlmClient } from "../../../src/platform/llm.ts";
import { ADVICE, COACHING, goalId, INSIGHT, insight, MILESTONES } from "../../support/coaching.ts";
import { codeOf, USER_ERRORS } from "../../support/graphql.ts";
import { addGoal } from "../../support/goals.ts";
import { setup } from "../../support/setup.ts";

const FLAGS = `{ aiFlags { name enabled configured source } }`;
const SET = `mutation($name: AiFlagName!, $enabled: Boolean!) {
  setAiFlag(name: $name, enabled: $enabled) {
    flag { name enabled configured source } ${USER_ERRORS} } }`;

Deno.test("flags: coaching off in AI_FLAGS answers AI_DISABLED with a warn log, no model call", async () => {
  const c = await setup({ ...COACHING, env: { AI_FLAGS: "moderation,batch" } });
  try {
    const id = await goalId(c, { title: "Swim", kind: "habit" });
    for (const [op, vars] of [[INSIGHT, { id }], [ADVICE, { id, q: "?" }], [MILESTONES, { id }]]) {
      const res = await c.run(op as string, vars as Record<string, unknown>);
      assert.equal(codeOf(res), "AI_DISABLED");
      assert.equal(res.body.errors[0].extensions.flag, "coaching");
    }
    const warns = logged(c.t.log, "ai feature disabled");
    assert.deepEqual(warns.map((w) => [w.level, w.flag, w.category, w.reason]), [
      ["warn", "coaching", "insight", "flag_off"],
      ["warn", "coaching", "advice", "flag_off"],
      ["warn", "coaching", "milestones", "flag_off"],
    ]);
    assert.deepEqual(warns[0].context, {
      operation: "getInsight",
      user_id: (await c.data(`{ me { id } }`)).me.id,
      goal_id: id,
    });
    assert.equal(c.llm.calls.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("flags: an admin's setAiFlag overrides AI_FLAGS both ways and persists", async () => {
  const c = await setup({ ...COACHING, env: { AI_FLAGS: "moderation" } });
  try {
    const id = await goalId(c, { title: "Swim", kind: "habit" });
    assert.deepEqual((await c.data(FLAGS, {}, "root")).aiFlags, [
      { name: "coaching", enabled: false, configured: false, source: "environment" },
      { name: "moderation", enabled: true, configured: true, source: "environment" },
      { name: "batch", enabled: false, configured: false, source: "environment" },
    ]);
    const on = (await c.data(SET, { name: "coaching", enabled: true }, "root")).setAiFlag;
    assert.deepEqual(on, {
      flag: { name: "coaching", enabled: true, configured: true, source: "database" },
      errors: [],
    });
    c.llm.script(reply.json(insight));
    assert.equal((await c.data(INSIGHT, { id })).getInsight.insight.summary, "Steady progress.");
    await c.data(SET, { name: "moderation", enabled: false }, "root");
    // A second app on the same database (another instance) sees the overrides.
    const other = createAi({
      ...c.t.deps,
      llm: createLlmClient({ baseUrl: c.t.deps.config.llmBaseUrl!, fetch }),
    });
    assert.equal(await other.flags.isEnabled("coaching"), true);
    assert.equal(await other.flags.isEnabled("moderation"), false);
    await c.data(SET, { name: "coaching", enabled: false }, "root");
    assert.equal(codeOf(await c.run(INSIGHT, { id })), "AI_DISABLED");
    assert.equal(c.llm.calls.length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("flags: only admins see or set flags; an unknown name is refused and logged", async () => {
  const c = await setup(COACHING);
  try {
    assert.equal(codeOf(await c.run(FLAGS)), "FORBIDDEN");
    assert.equal(codeOf(await c.run(SET, { name: "coaching", enabled: false })), "FORBIDDEN");
    // Names are an enum: an unknown one is refused before any resolver runs.
    const unknown = await c.run(SET, { name: "coachin", enabled: true }, "root");
    assert.equal(unknown.status, 200);
    assert.equal(codeOf(unknown), "BAD_USER_INPUT");
    assert.match(unknown.body.errors[0].message, /\$name/);
    const rows = await c.t.deps.db.sql`select name from ai_flags`;
    assert.equal(rows.length, 0);
    assert.equal(
      (await c.data(FLAGS, {}, "root")).aiFlags.every((f: { enabled: boolean }) => f.enabled),
      true,
    );
  } finally {
    await c.close();
  }
});

Deno.test("flags: an unknown flag name fails closed and logs an error", async () => {
  const c = await setup({ ...COACHING, env: { AI_FLAGS: "coaching,moderation,batch,typo" } });
  try {
    const startup = logged(c.t.log, "unknown ai flag in AI_FLAGS");
    assert.equal(startup[0].level, "error");
    assert.equal(startup[0].flag, "typo");
    const ai = c.t.app.features.coaching.api;
    assert.equal(await ai.flags.isEnabled("typo"), false);
    assert.equal(await ai.flags.isEnabled("coaching"), true);
    await assert.rejects(
      ai.flags.require("typo", "batch_insights", { job: "nightly" }),
      (err: Error & { extensions?: Record<string, unknown> }) =>
        err.extensions?.code === "AI_DISABLED",
    );
    const errors = logged(c.t.log, "unknown ai flag");
    assert.ok(errors.length >= 2);
    assert.ok(errors.every((e) => e.level === "error" && e.flag === "typo"));
    const warn = logged(c.t.log, "ai feature disabled").at(-1)!;
    assert.deepEqual([warn.flag, warn.category, warn.reason], [
      "typo",
      "batch_insights",
      "unknown_flag",
    ]);
  } finally {
    await c.close();
  }
});

Deno.test("flags: without an LLM every flag is off, whatever AI_FLAGS or the admin say", async () => {
  const c = await setup({ ...COACHING, env: { LLM_BASE_URL: "" } });
  try {
    const id = await goalId(c, { title: "Swim", kind: "habit" });
    await c.data(SET, { name: "coaching", enabled: true }, "root");
    const flags = (await c.data(FLAGS, {}, "root")).aiFlags;
    assert.ok(flags.every((f: { enabled: boolean }) => !f.enabled));
    const res = await c.run(MILESTONES, { id });
    assert.equal(codeOf(res), "AI_DISABLED");
    assert.equal(logged(c.t.log, "ai feature disabled")[0].reason, "no_llm");
    const ai = c.t.app.features.coaching.api;
    for (const name of ["coaching", "moderation", "batch"]) {
      assert.equal(await ai.flags.isEnabled(name), false);
    }
  } finally {
    await c.close();
  }
});

for (const impl of kvImplementations()) {
  Deno.test(`rate limits (${impl.name}): the 11th coaching call and the 6th milestones call in a minute`, async () => {
    const c = await setup({ ...COACHING, kv: (clock) => impl.make(clock) });
    try {
      const id = await goalId(c, { title: "Swim 10 km", kind: "target", targetValue: 10 });
      const otherId = await goalId(c, { title: "Bob's", kind: "habit" }, "bob");
      c.llm.fallback = (call) =>
        /Propose/.test(call.body.messages[1].content ?? "")
          ? reply.json({ milestones: [{ title: "Swim 2 km", targetValue: 2, dueDate: null }] })
          : /<question>/.test(call.body.messages[1].content ?? "")
          ? reply.json({ answer: "Keep going.", steps: [] })
          : reply.json(insight);
      c.clock.advance(15_000); // 12:00:15, the window ends at 12:01:00
      for (let i = 0; i < 10; i++) {
        const res = i % 2 ? await c.run(INSIGHT, { id }) : await c.run(ADVICE, { id, q: "how?" });
        assert.equal(codeOf(res), undefined, `call ${i + 1}: ${JSON.stringify(res.body)}`);
      }
      const refused = await c.run(INSIGHT, { id });
      assert.equal(codeOf(refused), "AI_RATE_LIMITED");
      assert.equal(refused.body.errors[0].extensions.retryAfter, 45);
      assert.equal(codeOf(await c.run(ADVICE, { id, q: "and now?" })), "AI_RATE_LIMITED");
      // Milestones count apart: 5 allowed, the 6th refused.
      for (let i = 0; i < 5; i++) {
        assert.equal(codeOf(await c.run(MILESTONES, { id })), undefined, `milestones ${i + 1}`);
      }
      const sixth = await c.run(MILESTONES, { id });
      assert.equal(codeOf(sixth), "AI_RATE_LIMITED");
      assert.equal(sixth.body.errors[0].extensions.retryAfter, 45);
      // Another user has a quota of their own.
      assert.equal(codeOf(await c.run(INSIGHT, { id: otherId }, "bob")), undefined);
      assert.equal(c.llm.calls.length, 16);
      // After the window, both recover.
      c.clock.advance(45_000);
      assert.equal(codeOf(await c.run(INSIGHT, { id })), undefined);
      assert.equal(codeOf(await c.run(MILESTONES, { id })), undefined);
    } finally {
      await c.close();
    }
  });
}

Deno.test("flags: without LLM configuration generateMilestones answers AI_DISABLED and logs a warning", async () => {
  const g = await setup();
  try {
    const goal = await addGoal(g, { title: "Learn Go", kind: "target", targetValue: 10 });
    const res = await g.run(
      `mutation($id: String!) { generateMilestones(goalId: $id) { milestones { title } errors { code } } }`,
      { id: goal.id },
    );
    assert.equal(codeOf(res), "AI_DISABLED");
    const warn = g.t.log.entries.find((e) => e.msg === "ai feature disabled");
    assert.equal(warn?.level, "warn");
    assert.equal(warn?.flag, "coaching");
  } finally {
    await g.close();
  }
});
