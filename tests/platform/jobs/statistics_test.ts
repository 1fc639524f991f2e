import assert from "node:assert/strict";
import { createTestDatabase } from "../../support/db.ts";
import { createTestJobs } from "../../support/jobs.ts";
import { waitFor } from "../../support/wait.ts";
import { ManualClock } from "../../../src/platform/clock.ts";
import type { Database } from "../../../src/platform/db.ts";

/** ANALYZE runs on `jobs` so far (autovacuum's own are counted apart). */
async function analyzesOfJobs(db: Database): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`
    select analyze_count::int as n from pg_stat_user_tables where relid = to_regclass('jobs')`;
  return row.n;
}

function burst(count: number) {
  return Array.from({ length: count }, (_, i) => ({ kind: "tick", payload: { i } }));
}

Deno.test("jobs: a backlog gets the table analyzed, at most once per interval", async () => {
  const db = await createTestDatabase();
  const clock = new ManualClock();
  const { jobs } = createTestJobs(db, {
    clock,
    concurrency: 2,
    localQueueSize: 8,
    pollIntervalMs: 20,
    analyzeIntervalMs: 60_000,
  });
  let ran = 0;
  jobs.handle("tick", () => {
    ran++;
  });
  const before = await analyzesOfJobs(db);
  const drain = async (count: number) => {
    const target = ran + count;
    await jobs.enqueueMany(db.sql, burst(count));
    await waitFor(() => ran >= target, { timeoutMs: 30_000, what: `${count} jobs run` });
  };
  try {
    await jobs.start();
    await drain(200);
    // Dozens of full claims, one analysis; the table was analyzed while the jobs were waiting.
    await waitFor(async () => await analyzesOfJobs(db) - before === 1, {
      timeoutMs: 10_000,
      what: "the jobs table analyzed once",
    });
    await drain(200);
    clock.advance(59_000);
    await drain(200);
    assert.equal(await analyzesOfJobs(db) - before, 1, "once within the interval");
    clock.advance(1_000);
    await drain(200);
    await waitFor(async () => await analyzesOfJobs(db) - before === 2, {
      timeoutMs: 10_000,
      what: "a second analysis after the interval",
    });
  } finally {
    await jobs.stop();
    await db.close();
  }
});

Deno.test("jobs: a worker that is never behind never analyzes the table", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db, { concurrency: 2, localQueueSize: 8, pollIntervalMs: 20 });
  let ran = 0;
  jobs.handle("tick", () => {
    ran++;
  });
  const before = await analyzesOfJobs(db);
  try {
    await jobs.start();
    for (let i = 1; i <= 20; i++) {
      await jobs.enqueue(db.sql, "tick", { i });
      await waitFor(() => ran >= i, { what: `job ${i} run` });
    }
    await jobs.stop();
    assert.equal(await analyzesOfJobs(db) - before, 0);
  } finally {
    await jobs.stop();
    await db.close();
  }
});
