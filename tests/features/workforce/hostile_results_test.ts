/**
 * Signed machine payloads are stored whatever they hold: a run result whose artifact, memory,
 * error or run log carries NULs or lone surrogates is kept with U+FFFD in their place (the runner
 * would only send the same bytes again if it were refused), and identifying fields that cannot
 * name a run answer 422, never 500. The other signed endpoints read bodies the same way.
 */
import assert from "node:assert/strict";
import {
  ARTIFACT_FIELDS,
  asAdmin,
  createEmployee,
  postResult,
  resultBody,
  triggerRun,
  withWorkforce,
  WORKFORCE_SECRET,
} from "../../support/workforce.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../../src/platform/contract/mod.ts";

Deno.test("workforce webhook: NULs and lone surrogates anywhere in a result are stored as U+FFFD", async () => {
  await withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    const res = await postResult(
      ctx,
      resultBody(run!.id, {
        artifact: { kind: "report", title: "Week\u0000ly", payload: "grew \u0000 20% \ud800" },
        memory: { "key\u0000": "v\u0000", notes: ["a\u0000"] },
        run_log: [{ at: "2026-01-05T12:00:01.000Z", type: "start\u0000", "x\u0000": "\udfff" }],
      }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
    await ctx.t.app.jobs.runUntilIdle();
    const data = await asAdmin(
      ctx,
      `query($id: String!) { aiRun(id: $id) { status runLog artifacts { ${ARTIFACT_FIELDS} } } }`,
      { id: run!.id },
    );
    assert.equal(data.aiRun.status, "succeeded");
    const [artifact] = data.aiRun.artifacts;
    assert.equal(artifact.title, "Week\ufffdly");
    assert.equal(artifact.payload, "grew \ufffd 20% \ufffd");
    assert.equal(data.aiRun.runLog[0].type, "start\ufffd");
    assert.equal(data.aiRun.runLog[0]["x\ufffd"], "\ufffd");
    const memory = await asAdmin(
      ctx,
      `query($id: String!) { aiEmployee(id: $id) { memories { key value } } }`,
      { id: employee.id },
    );
    const keys = memory.aiEmployee.memories.map((m: { key: string }) => m.key);
    assert.ok(keys.includes("key\ufffd"), JSON.stringify(keys));

    // A run id that cannot be one (NUL, overlong, a path) names no run: 422 or 400, never 5xx.
    for (const runId of ["run\u0000", "../../etc/passwd", "x".repeat(64), "\ud800"]) {
      const refused = await postResult(ctx, resultBody(runId));
      assert.ok([400, 422].includes(refused.status), `${runId}: ${refused.status}`);
      await refused.body?.cancel();
    }
    const tooLong = await postResult(ctx, resultBody("x".repeat(10_000)));
    assert.equal(tooLong.status, 400);
    await tooLong.body?.cancel();
  });
});

Deno.test("signed integration endpoints: NULs and odd values in a signed body answer 4xx or 200, never 5xx", async () => {
  await withWorkforce(async (ctx) => {
    const send = async (path: string, body: string) => {
      const res = await ctx.t.request(path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [SIGNATURE_HEADER]: await hmacSha256Hex(WORKFORCE_SECRET, body),
        },
        body,
      });
      await res.body?.cancel();
      return res.status;
    };
    for (const path of ["/integrations/feedback/export", "/integrations/activation-funnel"]) {
      for (
        const body of [
          '{"since":"2026-01-05\\u0000","limit":5}',
          '{"since":"\\ud800"}',
          '{"limit":1e308}',
          '{"since":"' + "9".repeat(10_000) + '"}',
          '{"\\u0000":"\\u0000"}',
          "[]",
          '"x"',
        ]
      ) {
        const status = await send(path, body);
        assert.ok(status < 500, `${path} ${body.slice(0, 40)}: ${status}`);
      }
    }
  });
});
