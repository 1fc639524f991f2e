/**
 * The AI coach's mutations are safe to retry with an `idempotencyKey` (docs/graphql.md, "Retrying
 * mutations"): the same request twice (one after the other, at once, twice in a batch) asks the
 * model once, spends one call of the rate limit, and answers the same; in both database modes.
 */
import assert from "node:assert/strict";
import { setup, type TestSetup } from "../support/setup.ts";
import { reply } from "../support/fake-llm.ts";
import { assertRetrySafe, rows } from "../support/retries.ts";
import { USER_ERRORS } from "../support/graphql.ts";
import { waitFor } from "../support/wait.ts";

const ADD_GOAL = `mutation G($title: String!) {
  addGoal(title: $title, kind: target, targetValue: 1000) { goal { id } ${USER_ERRORS} } }`;
const INSIGHT = `mutation I($id: String!, $key: String) {
  getInsight(goalId: $id, idempotencyKey: $key) {
    insight { goalId summary highlights generatedAt } ${USER_ERRORS} } }`;
const ADVICE = `mutation A($id: String!, $q: String!, $key: String) {
  getAdvice(goalId: $id, question: $q, idempotencyKey: $key) {
    advice { goalId question answer steps generatedAt } ${USER_ERRORS} } }`;
const MILESTONES = `mutation M($id: String!, $key: String) {
  generateMilestones(goalId: $id, idempotencyKey: $key) {
    suggestionId milestones { title targetValue dueDate } ${USER_ERRORS} } }`;

/** Makes the fake model answer each call with its own text (a repeat shows as another answer). */
function numberedAnswers(s: TestSetup) {
  let n = 0;
  s.llm.fallback = (call) => {
    n++;
    const asked = JSON.stringify(call.body.messages);
    if (asked.includes("milestones")) {
      return reply.json({
        milestones: [
          { title: `First ${n}`, targetValue: 250, dueDate: null },
          { title: `Half ${n}`, targetValue: 500, dueDate: null },
        ],
      });
    }
    if (asked.includes("question")) {
      return reply.json({ answer: `Answer ${n}`, steps: [`Step ${n}`] });
    }
    return reply.json({ summary: `Summary ${n}`, highlights: [`Highlight ${n}`] });
  };
}

const goalOf = async (s: TestSetup, as: string) =>
  (await s.data(ADD_GOAL, { title: "Save" }, as)).addGoal.goal.id;

Deno.test("retries: getInsight, getAdvice and generateMilestones with a key ask the model once", async () => {
  const s = await setup({ llm: true });
  try {
    numberedAnswers(s);
    const [mine, bobs] = [await goalOf(s, "alice"), await goalOf(s, "bob")];
    const calls = (feature: string) => rows(s, "ai_calls", `feature = '${feature}'`);
    const insight = await assertRetrySafe(s, {
      mutation: "getInsight",
      query: INSIGHT,
      vars: { id: mine },
      otherVars: { id: bobs },
      object: "insight",
      count: () => calls("insight"),
      otherUser: "bob",
      otherUserVars: { id: bobs },
    });
    assert.match(insight.insight.summary, /^Summary \d+$/);
    await assertRetrySafe(s, {
      mutation: "getAdvice",
      query: ADVICE,
      vars: { id: mine, q: "How do I keep going?" },
      otherVars: { id: mine, q: "How do I start?" },
      object: "advice",
      count: () => calls("advice"),
      otherUser: "bob",
      otherUserVars: { id: bobs, q: "How do I keep going?" },
    });
    const suggested = await assertRetrySafe(s, {
      mutation: "generateMilestones",
      query: MILESTONES,
      vars: { id: mine },
      otherVars: { id: bobs },
      object: "suggestionId",
      count: () => rows(s, "milestone_suggestions"),
      otherUser: "bob",
      otherUserVars: { id: bobs },
    });
    assert.equal(suggested.milestones.length, 2);
    // One model call per suggestion stored, and per answer given: none for a retry.
    assert.equal(await calls("milestones"), await rows(s, "milestone_suggestions"));
    assert.equal(s.llm.calls.length, 12, "four requests each (three rounds and bob's)");

    // Without a key each request asks the model again, as before.
    const before = s.llm.calls.length;
    const plain = async () => (await s.data(INSIGHT, { id: mine })).getInsight;
    assert.notDeepEqual(await plain(), await plain());
    assert.equal(s.llm.calls.length, before + 2);
  } finally {
    await s.close();
  }
});

Deno.test("retries: a keyed retry of getInsight spends nothing of the rate limit", async () => {
  const s = await setup({ llm: true });
  try {
    numberedAnswers(s);
    const goal = await goalOf(s, "alice");
    const first = (await s.data(INSIGHT, { id: goal, key: "insight-1" })).getInsight;
    for (let i = 0; i < 11; i++) {
      assert.deepEqual((await s.data(INSIGHT, { id: goal, key: "insight-1" })).getInsight, first);
    }
    assert.equal(s.llm.calls.length, 1);
    // Ten calls a minute: the twelve requests spent one, so nine more go through.
    for (let i = 0; i < 9; i++) {
      assert.deepEqual((await s.data(INSIGHT, { id: goal })).getInsight.errors, []);
    }
    const limited = await s.run(INSIGHT, { id: goal });
    assert.equal(limited.body.errors?.[0]?.extensions?.code, "AI_RATE_LIMITED");
    // A keyed retry of an answer given is still answered, limit or not.
    assert.deepEqual((await s.data(INSIGHT, { id: goal, key: "insight-1" })).getInsight, first);
  } finally {
    await s.close();
  }
});

Deno.test("retries: a keyed retry while the model is still answering waits for that answer", async () => {
  const s = await setup({ llm: true });
  try {
    const goal = await goalOf(s, "alice");
    let answer!: () => void;
    const slow = new Promise<void>((resolve) => answer = resolve);
    s.llm.script(reply.json({ summary: "Slow but sure.", highlights: [] }, { until: slow }));
    const vars = { id: goal, key: "slow-1" };
    const first = s.data(INSIGHT, vars);
    await waitFor(() => s.llm.calls.length === 1, { what: "the model asked" });
    const second = s.data(INSIGHT, vars);
    // The held key is committed: the second request finds it held, not free.
    await waitFor(() => rows(s, "idempotency_keys", "response is null").then((n) => n === 1), {
      what: "the key held while the model answers",
    });
    answer();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.getInsight.insight.summary, "Slow but sure.");
    assert.deepEqual(b, a);
    assert.equal(s.llm.calls.length, 1, "one model call (an unscripted second would fail)");
    assert.equal(await rows(s, "idempotency_keys", "response is null"), 0);

    // A model failure frees the key: the retry asks again and gets an answer.
    s.llm.script(reply.error(400));
    const failed = await s.run(INSIGHT, { id: goal, key: "fails-first" });
    assert.equal(failed.body.errors?.[0]?.extensions?.code, "INTERNAL");
    s.llm.script(reply.json({ summary: "Second time lucky.", highlights: [] }));
    const retried = (await s.data(INSIGHT, { id: goal, key: "fails-first" })).getInsight;
    assert.equal(retried.insight.summary, "Second time lucky.");
  } finally {
    await s.close();
  }
});
