/**
 * SIGTERM to a real runner while a signed cancel request is half uploaded and a run is in a slow
 * model call: the run reports `cancelled`, and the request, finished after that report, is still
 * answered (not cut by the shutdown).
 */
import assert from "node:assert/strict";
import { systemClock } from "../../src/platform/clock.ts";
import { reply } from "../support/fake-llm.ts";
import { runRequest, serviceSigner, startRunnerProcess, TEST_SECRET } from "../support/runner.ts";
import { startSlowUpload } from "../support/slow-upload.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("faults: runner SIGTERM mid-upload and mid-run: the run reports cancelled, the upload is answered", async () => {
  const { llm, hook, runner, close } = await startRunnerProcess({
    SHUTDOWN_TIMEOUT_MS: "5000",
    SHUTDOWN_DRAIN_MS: "20000",
  });
  const sign = serviceSigner(TEST_SECRET, systemClock);
  try {
    llm.script(reply.submit({ kind: "report", title: "t", payload: "p" }, { delayMs: 60_000 }));
    const run = runRequest();
    const text = JSON.stringify(run);
    const accepted = await fetch(`${runner.url}/runs`, {
      method: "POST",
      headers: await sign({ method: "POST", path: "/runs", body: text }),
      body: text,
    });
    assert.equal(accepted.status, 202);
    await accepted.body?.cancel();
    await waitFor(() => llm.calls.length >= 1, { timeoutMs: 20_000, what: "the model call" });

    const cancelBody = JSON.stringify({ reason: "x".repeat(2_000) });
    const cancelPath = `/runs/${run.run_id}/cancel`;
    const upload = await startSlowUpload(runner.port, cancelPath, cancelBody, {
      headers: await sign({ method: "POST", path: cancelPath, body: cancelBody }),
    });
    // Another connection answered: the upload's headers, sent first, have been read too.
    assert.equal((await fetch(`${runner.url}/health`)).status, 200);

    runner.child.kill("SIGTERM");
    await runner.waitForLog("shutting down");
    // The run's cancellation is reported while the upload is still in flight.
    await waitFor(() => hook.requests.length >= 1, { timeoutMs: 20_000, what: "the report" });
    const report = JSON.parse(hook.requests[0].body);
    assert.equal(report.error?.subtype, "cancelled");

    const answer = await upload.finish();
    assert.ok(answer.status >= 200 && answer.status < 500, answer.text);
    assert.equal(await runner.stop(), 0);
    assert.ok(!runner.lines.some((l) => l.msg === "in-flight requests did not finish in time"));
  } finally {
    await close();
  }
});
