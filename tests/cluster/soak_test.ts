/**
 * About a minute of `deno task soak` on the real topology (PgBouncer, HAProxy, three instances, two
 * runners, a Redis of its own): a service instance and a runner are SIGKILLed and restarted and
 * Redis restarted once under the mixed workload, and every invariant of `cluster/invariants.ts`
 * holds. Real PostgreSQL only; the figures are printed, never asserted.
 */
import assert from "node:assert/strict";
import { runSoak } from "../../cluster/soak.ts";
import { startTopology } from "../../cluster/topology.ts";
import { TEST_DATABASE_URL } from "../support/db.ts";
import { HAPROXY, PGBOUNCER, REDIS_SERVER, testNeeding } from "../support/requirements.ts";

const test = TEST_DATABASE_URL
  ? testNeeding(PGBOUNCER, HAPROXY, REDIS_SERVER)
  : (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `${name} (ignored: real PostgreSQL only)`, ignore: true, fn });

test("cluster soak: a minute of mixed load through HAProxy with instances, a runner and Redis failing keeps every invariant", async () => {
  const topology = await startTopology({ serverUrl: TEST_DATABASE_URL });
  try {
    const report = await runSoak(
      { durationMs: 60_000, users: 8, failureEveryMs: 12_000 },
      topology,
    );
    console.log(`soak figures ${JSON.stringify(report.figures)}`);
    const failures = (report.figures.failures as { failure: string }[]).map((f) => f.failure);
    assert.ok(failures.some((f) => f.startsWith("SIGKILL service")), failures.join(", "));
    assert.ok(failures.includes("redis restart"), failures.join(", "));
    assert.deepEqual(
      report.invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`),
      [],
    );
  } finally {
    await topology.close();
  }
});
