/**
 * SIGTERM while a request body is still uploading, a job is running and a `/cable` socket is
 * open: `/up` turns 503 at once, the job grace runs out and the job is released with its attempt
 * counted, the socket is closed with 1001 (going away) so its client reconnects elsewhere, and
 * the upload, finished after all that, still gets its answer.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { startOwnPostgres } from "../support/servers.ts";
import { waitFor } from "../support/wait.ts";
import { enqueueFaultJobs, readRuns, startFaultService } from "../support/fault-jobs.ts";
import { startSlowUpload } from "../support/slow-upload.ts";
import { FAULT_JOB } from "../support/fault-service.ts";
import { POSTGRES_SERVER, testNeeding } from "../support/requirements.ts";

const test = testNeeding(POSTGRES_SERVER);

test("faults: SIGTERM mid-upload and mid-job: the upload is answered, the job released with its attempt counted", async () => {
  const pg = await startOwnPostgres();
  const runLog = await Deno.makeTempFile({ prefix: "fault-drain-" });
  const service = await startFaultService({
    DATABASE_URL: pg.url,
    JOB_CONCURRENCY: "1",
    SHUTDOWN_TIMEOUT_MS: "300",
    SHUTDOWN_DRAIN_MS: "20000",
    FAULT_JOB_LOG: runLog,
    // Far longer than the test: the job can only end by being released.
    FAULT_JOB_MS: "600000",
  });
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  let socket: WebSocket | undefined;
  try {
    await enqueueFaultJobs(sql, 1);
    await waitFor(async () => (await readRuns(runLog)).length > 0, {
      timeoutMs: 30_000,
      what: "the job to start",
    });
    socket = new WebSocket(`ws://127.0.0.1:${service.port}/cable`, "graphql-transport-ws");
    const ws = socket;
    const closed = new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });

    const upload = await startSlowUpload(
      service.port,
      "/graphql",
      JSON.stringify({ query: `{ __typename }${" ".repeat(4_000)}` }),
    );
    // Another connection answered: the upload's headers, sent first, have been read too.
    assert.equal(await fetch(`${service.url}/up`).then((r) => r.text()), "ok");

    const signalledAt = performance.now();
    service.child.kill("SIGTERM");
    await service.waitForLog("shutting down");
    const up = await fetch(`${service.url}/up`);
    await up.body?.cancel();
    assert.equal(up.status, 503, "/up tells the load balancer to stop sending");
    assert.equal(up.headers.get("connection"), "close");
    assert.equal(await closed, 1001, "the socket is closed as going away");
    // The job grace ends while the upload is still in flight: the drain is not eaten by it.
    await service.waitForLog("jobs released at shutdown", 10_000);

    const answer = await upload.finish();
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /"__typename":"Query"/);

    assert.equal(await service.stop(), 0);
    const drained = service.lines.find((l) => l.msg === "drained")!;
    console.log(
      `SIGTERM to exit: ${Math.round(performance.now() - signalledAt)} ms; ` +
        `drain ${drained.http_ms} ms, jobs ${drained.jobs_ms} ms`,
    );
    assert.ok(!service.lines.some((l) => l.msg === "in-flight requests did not finish in time"));
    // The fault job's row: a schedule's slot may have fallen due meanwhile and queued its own.
    const [job] = await sql`
      select attempts, locked_by, last_error, dead_at from jobs where name = ${FAULT_JOB}`;
    assert.deepEqual([job.attempts, job.locked_by, job.dead_at], [1, null, null]);
    assert.match(job.last_error, /did not finish before shutdown/);
  } finally {
    socket?.close();
    await sql.end();
    await service.stop();
    await service.cleanup();
    await pg.close();
    await Deno.remove(runLog).catch(() => {});
  }
});
