/** getInsight, getAdvice, generateMilestones and acceptMilestones through GraphQL. */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { logged } from "../../support/app.ts";
import {
  ACCEPT,
  ADVICE,
  COACHING,
  goalId,
  INSIGHT,
  insight,
  MILESTONES,
} from "../../support/coaching.ts";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

Deno.test("coaching: getInsight builds its prompt from the goal, progress, streak and own moods only", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, {
      title: "Run 100 km",
      kind: "target",
      targetValue: 100,
      unit: "km",
    });
    await c.data(
      `mutation($id: String!) { addGoalEvent(goalId: $id, value: 12, note: "rainy") {
      errors { code } } }`,
      { id },
    );
    await c.data(`mutation { addMoodLog(mood: 4, note: "upbeat alice") { errors { code } } }`);
    await c.data(
      `mutation { addMoodLog(mood: 1, note: "bob secret") { errors { code } } }`,
      {},
      "bob",
    );
    c.llm.script(reply.json(insight, { costUsd: 0.002 }));
    const res = await c.data(INSIGHT, { id });
    assert.deepEqual(res.getInsight, {
      insight: {
        goalId: id,
        summary: "Steady progress.",
        highlights: ["3 runs this week"],
        generatedAt: "2026-01-05T12:00:00.000Z",
      },
      errors: [],
    });
    assert.equal(c.llm.calls.length, 1);
    const prompt = c.llm.calls[0].body.messages.map((m) => m.content).join("\n");
    assert.match(prompt, /Run 100 km/);
    assert.match(prompt, /rainy/);
    assert.match(prompt, /upbeat alice/);
    assert.match(prompt, /"currentValue":12/);
    assert.match(prompt, /"streak":\{"current":1/);
    assert.doesNotMatch(prompt, /bob secret/);
    assert.equal(c.llm.calls[0].headers.get("authorization"), "Bearer sk-test");
    const [call] = await c.t.deps.db.sql`
      select feature, outcome, cost_usd, input_tokens from ai_calls`;
    assert.deepEqual({ ...call }, {
      feature: "insight",
      outcome: "ok",
      cost_usd: 0.002,
      input_tokens: 100,
    });
  } finally {
    await c.close();
  }
});

Deno.test("coaching: getAdvice answers the question; bad questions change nothing", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, { title: "Meditate", kind: "habit" });
    for (const date of ["2026-01-03", "2026-01-04"]) {
      await c.data(
        `mutation($id: String!, $date: Date) { checkInHabit(goalId: $id, date: $date) {
        errors { code } } }`,
        { id, date },
      );
    }
    c.llm.script(reply.json({ answer: "Start with two minutes.", steps: ["Set a timer"] }));
    const res = await c.data(ADVICE, { id, q: "  How do I start?  " });
    assert.deepEqual(res.getAdvice, {
      advice: {
        goalId: id,
        question: "How do I start?",
        answer: "Start with two minutes.",
        steps: ["Set a timer"],
        generatedAt: "2026-01-05T12:00:00.000Z",
      },
      errors: [],
    });
    assert.match(
      c.llm.calls[0].body.messages[1].content!,
      /<question>How do I start\?<\/question>/,
    );
    const data = c.llm.calls[0].body.messages[1].content!;
    assert.match(data, /\{"day":"2026-01-04","total":1,"entries":1\}/);
    assert.match(data, /\{"day":"2026-01-05","total":0,"entries":0\}/);
    assert.match(data, /"streak":\{"current":2,"longest":2\}/);
    for (
      const [q, message] of [
        ["", "question must not be empty"],
        ["   ", "question must not be empty"],
        ["x".repeat(501), "question must be at most 500 characters"],
      ]
    ) {
      assert.deepEqual((await c.data(ADVICE, { id, q })).getAdvice, {
        advice: null,
        errors: [{ code: "invalid", message, field: "question" }],
      });
    }
    assert.equal(codeOf(await c.run(ADVICE, { id, q: 42 })), "BAD_USER_INPUT");
    assert.equal(c.llm.calls.length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("coaching: another user's goal, malformed ids and no session call no model", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, { title: "Private", kind: "habit" });
    const noGoal = [{ code: "not_found", message: "no such goal", field: "goalId" }];
    for (const [op, field] of [[INSIGHT, "getInsight"], [MILESTONES, "generateMilestones"]]) {
      for (const [goal, as] of [[id, "bob"], ["1", undefined], ["x".repeat(5000), undefined]]) {
        const res = (await c.data(op, { id: goal }, as))[field];
        assert.deepEqual(res.errors, noGoal);
      }
    }
    assert.deepEqual((await c.data(ADVICE, { id, q: "why?" }, "bob")).getAdvice, {
      advice: null,
      errors: noGoal,
    });
    assert.equal(codeOf(await c.run(INSIGHT, { id }, null)), "UNAUTHENTICATED");
    assert.equal(c.llm.calls.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("coaching: generateMilestones stores nothing until acceptMilestones makes sub-goals", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, {
      title: "Save 1000",
      kind: "target",
      targetValue: 1000,
      unit: "EUR",
      dueDate: "2026-12-31",
    });
    const milestones = [
      { title: "First 250", targetValue: 250, dueDate: "2026-03-31" },
      { title: "Half way", targetValue: 500, dueDate: null },
      { title: "Review budget", targetValue: null, dueDate: "2026-06-30" },
    ];
    c.llm.script(reply.json({ milestones }));
    const gen = (await c.data(MILESTONES, { id })).generateMilestones;
    assert.deepEqual(gen.milestones, milestones);
    assert.deepEqual(gen.errors, []);
    const subGoals = `query($id: String!) { goal(id: $id) { subGoals { title } } }`;
    assert.deepEqual((await c.data(subGoals, { id })).goal.subGoals, []);
    // Bob cannot accept Alice's suggestion; bad indexes change nothing.
    const noSuggestion = {
      goals: [],
      errors: [
        { code: "not_found", message: "no such milestone suggestion", field: "suggestionId" },
      ],
    };
    assert.deepEqual(
      (await c.data(ACCEPT, { id: gen.suggestionId }, "bob")).acceptMilestones,
      noSuggestion,
    );
    assert.deepEqual((await c.data(ACCEPT, { id: "nope" })).acceptMilestones, noSuggestion);
    for (const indexes of [[3], [-1], [0, 0], []]) {
      const bad = (await c.data(ACCEPT, { id: gen.suggestionId, indexes })).acceptMilestones;
      assert.equal(bad.errors.length, 1, JSON.stringify(indexes));
      assert.equal(bad.errors[0].code, "invalid");
      assert.equal(bad.errors[0].field, "indexes");
      assert.deepEqual(bad.goals, []);
    }
    assert.deepEqual((await c.data(subGoals, { id })).goal.subGoals, []);
    const ok = (await c.data(ACCEPT, { id: gen.suggestionId, indexes: [2, 0] })).acceptMilestones;
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(
      ok.goals.map((g: Record<string, unknown>) => ({ ...g, id: undefined })),
      [
        {
          id: undefined,
          title: "First 250",
          targetValue: 250,
          dueDate: "2026-03-31",
          unit: "EUR",
          parent: { id },
        },
        {
          id: undefined,
          title: "Review budget",
          targetValue: 1,
          dueDate: "2026-06-30",
          unit: null,
          parent: { id },
        },
      ],
    );
    const again = (await c.data(ACCEPT, { id: gen.suggestionId })).acceptMilestones;
    assert.deepEqual(again.errors, [
      { code: "already_accepted", message: "these milestones were already accepted", field: null },
    ]);
    assert.equal((await c.data(subGoals, { id })).goal.subGoals.length, 2);
  } finally {
    await c.close();
  }
});

Deno.test("coaching: milestones that do not fit the goal are asked for again, then refused cleanly", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, { title: "Read 20 books", kind: "target", targetValue: 20 });
    const beyond = { milestones: [{ title: "Read 50", targetValue: 50, dueDate: null }] };
    const fine = { milestones: [{ title: "Read 5", targetValue: 5, dueDate: null }] };
    c.llm.script(reply.json(beyond), reply.json(fine));
    const gen = (await c.data(MILESTONES, { id })).generateMilestones;
    assert.deepEqual(gen.milestones, fine.milestones);
    assert.match(c.llm.calls[1].body.messages.at(-1)!.content!, /targetValue/);

    const past = { milestones: [{ title: "Late", targetValue: null, dueDate: "2025-01-01" }] };
    c.llm.script(reply.json(past), reply.text("not json at all"));
    const res = await c.run(MILESTONES, { id });
    assert.equal(codeOf(res), "INTERNAL");
    assert.match(res.body.errors[0].message, /could not be used/);
    assert.equal(res.body.errors[0].extensions.reason, "ai_invalid_output");
    const rows = await c.t.deps.db.sql`select outcome from ai_calls order by id`;
    assert.deepEqual(rows.map((r) => r.outcome), ["ok", "invalid_output"]);
    const stored = await c.t.deps.db.sql`select count(*)::int as n from milestone_suggestions`;
    assert.equal(stored[0].n, 1);
  } finally {
    await c.close();
  }
});

Deno.test("coaching: an LLM that is down answers a clean error after one retry", async () => {
  const c = await setup(COACHING);
  try {
    const id = await goalId(c, { title: "Walk", kind: "habit" });
    const res = await c.run(INSIGHT, { id });
    assert.equal(codeOf(res), "INTERNAL");
    assert.match(res.body.errors[0].message, /not available right now/);
    assert.doesNotMatch(JSON.stringify(res.body), /fake LLM/);
    assert.equal(c.llm.calls.length, 2);
    const warn = logged(c.t.log, "ai call failed")[0];
    assert.equal(warn.kind, "unavailable");
    // It recovers when the proxy does.
    c.llm.script(reply.json(insight));
    assert.equal((await c.data(INSIGHT, { id })).getInsight.insight.summary, "Steady progress.");
  } finally {
    await c.close();
  }
});
