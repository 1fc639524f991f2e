/**
 * End to end: the service dispatches a run over HTTP to the real runner (in-process, served on a
 * loopback port), the runner works it against the fake LLM and posts the signed result back to
 * the service's webhook; the review then feeds the next run.
 */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import {
  ARTIFACT_FIELDS,
  asAdmin,
  createEmployee,
  setupWithRealRunner,
  triggerRun,
} from "../../support/workforce.ts";

Deno.test("e2e: service -> runner -> fake LLM -> signed webhook -> artifact -> review -> next run", async () => {
  const ctx = await setupWithRealRunner();
  const tr = ctx.tr;
  try {
    const employee = await createEmployee(ctx, {
      taskPrompt: "Write this week's report. Sign-ups: 120 (last week 100).",
      skills: ["weekly-report"],
    });
    tr.llm.script(
      reply.toolCall("remember", { key: "last_signups", value: 120 }),
      reply.submit({ kind: "report", title: "Weekly report: W2", payload: "Sign-ups rose 20%." }, {
        costUsd: 0.02,
      }),
    );
    const { run, errors } = await triggerRun(ctx, employee.id);
    assert.deepEqual(errors, []);
    await ctx.t.app.jobs.runUntilIdle(); // dispatch: the runner answers 202
    await tr.runner.idle(); // the runner works the run and posts the result
    assert.equal(tr.hook.requests.length, 1);

    const data = await asAdmin(
      ctx,
      `query($id: String!) { aiRun(id: $id) { status costUsd numTurns inputTokens
        executionLog { type } artifacts { ${ARTIFACT_FIELDS} } } }`,
      { id: run!.id },
    );
    assert.equal(data.aiRun.status, "succeeded");
    assert.equal(data.aiRun.numTurns, 2);
    assert.ok(data.aiRun.costUsd >= 0.02);
    assert.ok(data.aiRun.inputTokens > 0);
    assert.ok(data.aiRun.executionLog.some((e: { type: string }) => e.type === "finish"));
    const [artifact] = data.aiRun.artifacts;
    assert.equal(artifact.approvalStatus, "pending");
    assert.equal(artifact.title, "Weekly report: W2");
    assert.equal(artifact.payload, "Sign-ups rose 20%.");
    assert.equal(tr.llm.calls[0].body.model, "gpt-4o-mini");

    const reason = "Compare against the 4-week average, not last week.";
    const rejected = await asAdmin(
      ctx,
      `mutation($id: String!, $r: String!) { rejectAiArtifact(artifactId: $id, rejectionReason: $r) { errors { code message field } } }`,
      { id: artifact.id, r: reason },
    );
    assert.deepEqual(rejected.rejectAiArtifact.errors, []);

    // The next run receives the rejection and the remembered key.
    tr.llm.script(reply.submit({ kind: "report", title: "Weekly report: W3", payload: "Better." }));
    const second = await triggerRun(ctx, employee.id);
    assert.deepEqual(second.errors, []);
    await ctx.t.app.jobs.runUntilIdle();
    await tr.runner.idle();
    const system = tr.llm.calls.at(-1)!.body.messages[0].content!;
    assert.match(system, /Avoid these mistakes/);
    assert.ok(system.includes(reason));
    assert.match(system, /last_signups/);
    const next = await asAdmin(
      ctx,
      `query($id: String!) { aiRun(id: $id) { status artifacts { title approvalStatus } } }`,
      { id: second.run!.id },
    );
    assert.deepEqual(next.aiRun, {
      status: "succeeded",
      artifacts: [{ title: "Weekly report: W3", approvalStatus: "pending" }],
    });
  } finally {
    await ctx.close();
  }
});
