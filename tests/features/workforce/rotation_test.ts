/**
 * Rotating the shared `X-Workforce-Signature` secret without a gap (docs/runbook.md, "Rotating the
 * workforce webhook secret"), end to end with the real runner, in both database modes. At every
 * step of the procedure a run goes service -> runner (`POST /runs`, signed by the service) ->
 * service (`/integrations/activation-funnel` and the result webhook, signed by the runner), each
 * side signing with its current secret and accepting its current and next one. A signature made
 * with a secret neither side knows is refused throughout, and once the rotation is over the old
 * secret is refused too.
 */
import assert from "node:assert/strict";
import { reply } from "../../support/fake-llm.ts";
import { callTools } from "../../support/scripted-models.ts";
import {
  asAdmin,
  createEmployee,
  setupWithRealRunner,
  triggerRun,
  type WorkforceWithRunner,
} from "../../support/workforce.ts";
import { hmacSha256Hex, SIGNATURE_HEADER } from "../../../src/platform/hmac.ts";
import { signRequest } from "../../../src/platform/contract/request-signature.ts";

const OLD = "old-workforce-secret-0123456789abcdef";
const NEW = "new-workforce-secret-fedcba9876543210";
const UNKNOWN = "unknown-secret-not-configured-anywhere";

interface Stage {
  name: string;
  service: { WORKFORCE_WEBHOOK_SECRET: string; WORKFORCE_WEBHOOK_SECRET_NEXT?: string };
  runner: { WEBHOOK_SECRET: string; WEBHOOK_SECRET_NEXT?: string };
  /** The secrets whose signatures both sides accept at this step. */
  accepted: string[];
}

/** The procedure of docs/runbook.md, one configuration per step. */
const STAGES: Stage[] = [
  {
    name: "1. the next secret added on both sides",
    service: { WORKFORCE_WEBHOOK_SECRET: OLD, WORKFORCE_WEBHOOK_SECRET_NEXT: NEW },
    runner: { WEBHOOK_SECRET: OLD, WEBHOOK_SECRET_NEXT: NEW },
    accepted: [OLD, NEW],
  },
  {
    name: "2. the runner swapped: it signs with the new secret, the service still with the old",
    service: { WORKFORCE_WEBHOOK_SECRET: OLD, WORKFORCE_WEBHOOK_SECRET_NEXT: NEW },
    runner: { WEBHOOK_SECRET: NEW, WEBHOOK_SECRET_NEXT: OLD },
    accepted: [OLD, NEW],
  },
  {
    name: "3. the service swapped too: both sign with the new secret and still accept the old",
    service: { WORKFORCE_WEBHOOK_SECRET: NEW, WORKFORCE_WEBHOOK_SECRET_NEXT: OLD },
    runner: { WEBHOOK_SECRET: NEW, WEBHOOK_SECRET_NEXT: OLD },
    accepted: [OLD, NEW],
  },
  {
    name: "4. the old secret removed on both sides",
    service: { WORKFORCE_WEBHOOK_SECRET: NEW },
    runner: { WEBHOOK_SECRET: NEW },
    accepted: [NEW],
  },
];

/** A run that reads the funnel through the integration endpoint, then submits a report. */
async function runEndToEnd(ctx: WorkforceWithRunner): Promise<string> {
  const employee = await createEmployee(ctx, { skills: [], taskPrompt: "Report the funnel." });
  const updated = await asAdmin(
    ctx,
    `mutation($id: String!) { updateAiEmployee(employeeId: $id, tools: ["activation_funnel"]) {
      errors { message } } }`,
    { id: employee.id },
  );
  assert.deepEqual(updated.updateAiEmployee.errors, []);
  ctx.tr.llm.script(
    callTools("activation_funnel"),
    reply.submit({ kind: "report", title: "Funnel", payload: "Read the funnel." }),
  );
  const { run, errors } = await triggerRun(ctx, employee.id);
  assert.deepEqual(errors, []);
  await ctx.t.app.jobs.runUntilIdle(); // the dispatch, signed by the service
  await ctx.tr.runner.idle(); // the funnel read and the result, signed by the runner
  await ctx.t.app.jobs.runUntilIdle();
  const data = await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { status errorMessage artifacts { title } } }`,
    { id: run!.id },
  );
  assert.equal(data.aiRun.status, "succeeded", data.aiRun.errorMessage);
  assert.deepEqual(data.aiRun.artifacts, [{ title: "Funnel" }]);
  return run!.id;
}

/** The statuses the three verifying endpoints answer to `{}` signed with `secret`. */
async function probe(ctx: WorkforceWithRunner, secret: string) {
  const body = "{}";
  const headers = { "content-type": "application/json", [SIGNATURE_HEADER]: "" };
  headers[SIGNATURE_HEADER] = await hmacSha256Hex(secret, body);
  const toService = (path: string) =>
    ctx.t.app.handler(
      new Request(`http://service.test${path}`, { method: "POST", headers, body }),
    );
  const webhook = await toService("/webhooks/ai-workforce");
  const funnel = await toService("/integrations/activation-funnel");
  // The runner's requests are signed over timestamp, method, path and body (DESIGN 3.3).
  const at = Math.floor(ctx.tr.clock.now().getTime() / 1000);
  const runs = await ctx.tr.runner.handler(
    new Request("http://runner.test/runs", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...await signRequest(secret, at, { method: "POST", path: "/runs", body }),
      },
      body,
    }),
  );
  await Promise.all([webhook.body?.cancel(), funnel.body?.cancel(), runs.body?.cancel()]);
  return { webhook: webhook.status, funnel: funnel.status, runs: runs.status };
}

for (const stage of STAGES) {
  Deno.test(`secret rotation: ${stage.name}`, async () => {
    const ctx = await setupWithRealRunner({ env: stage.service, runnerEnv: stage.runner });
    try {
      const runId = await runEndToEnd(ctx);

      // The runner signed its calls with its current secret; the service accepted them.
      const signedByRunner = ctx.tr.hook.requests.filter((r) =>
        r.path === "/integrations/activation-funnel" || r.path === "/webhooks/ai-workforce"
      );
      assert.equal(signedByRunner.length, 2, "one funnel read, one result");
      for (const request of signedByRunner) {
        assert.equal(
          request.headers.get(SIGNATURE_HEADER),
          await hmacSha256Hex(stage.runner.WEBHOOK_SECRET, request.body),
          `${request.path} is signed with the runner's current secret`,
        );
      }
      assert.ok(
        ctx.tr.hook.requests.some((r) => r.body.includes(runId)),
        "the result of the run reached the service",
      );

      for (const secret of [OLD, NEW, UNKNOWN]) {
        const answers = await probe(ctx, secret);
        const label = secret === OLD ? "old" : secret === NEW ? "new" : "unknown";
        if (stage.accepted.includes(secret)) {
          // Past the signature: `{}` is not a run result (400), is the funnel's body (200), and
          // is not a run request (400).
          assert.deepEqual(answers, { webhook: 400, funnel: 200, runs: 400 }, `${label} accepted`);
        } else {
          assert.deepEqual(answers, { webhook: 401, funnel: 401, runs: 401 }, `${label} refused`);
        }
      }
    } finally {
      await ctx.close();
    }
  });
}
