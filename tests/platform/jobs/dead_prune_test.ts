/**
 * The dead set is pruned (`JOBS_DEAD_RETENTION_DAYS`, `JOBS_DEAD_MAX`, docs/runbook.md
 * "Retention"): the hourly schedule deletes dead jobs older than the retention and beyond the
 * newest `max`, in bounded batches, and the kept size of the dead set moves with them.
 */
import assert from "node:assert/strict";
import { setup } from "../../support/setup.ts";
import { recountKeptCounts } from "../../support/kept-counts.ts";

const DAY_MS = 86_400_000;

Deno.test("dead jobs: the schedule prunes the old ones and those beyond the most kept", async () => {
  const s = await setup({ env: { JOBS_DEAD_RETENTION_DAYS: "30", JOBS_DEAD_MAX: "4" } });
  try {
    const sql = s.t.deps.db.sql;
    const now = s.clock.now();
    // Ten dead jobs, one a day back from yesterday (`dead…01` newest), and one that is retrying.
    await sql`
      insert into jobs (name, payload, run_at, attempts, max_attempts, last_error, dead_at,
                        public_id, created_at)
      select case when i % 2 = 0 then 'mail.send' else 'sync.pull' end, '{}', ${now}, 3, 3,
        'failed', ${now}::timestamptz - make_interval(days => i * 10), 'dead' || lpad(i::text, 2, '0'),
        ${now}::timestamptz - make_interval(days => i * 10 + 1)
      from generate_series(1, 10) as i`;
    await sql`
      insert into jobs (name, payload, run_at, attempts, max_attempts, last_error, public_id,
                        created_at)
      values ('sync.pull', '{}', ${new Date(now.getTime() + DAY_MS)}, 1, 3, 'failed', 'retrying',
        ${now})`;
    await recountKeptCounts(sql);
    const left = async () =>
      (await sql<{ id: string }[]>`
        select public_id as id from jobs where dead_at is not null order by dead_at desc`)
        .map((r) => r.id);

    // Older than 30 days: dead03 (30 days) stays, dead04..dead10 go; then at most 4 stay.
    assert.equal(await s.t.app.jobs.fireSchedule("jobs.prune_dead", now), true);
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(await left(), ["dead01", "dead02", "dead03"]);
    assert.equal(
      (await sql`select count(*)::int as n from jobs where public_id = 'retrying'`)[0].n,
      1,
      "a retrying job is not dead",
    );
    await s.t.deps.db.sql`
      insert into jobs (name, payload, run_at, attempts, max_attempts, last_error, dead_at,
                        public_id, created_at)
      select 'mail.send', '{}', ${now}, 3, 3, 'failed',
        ${now}::timestamptz - make_interval(hours => i), 'fresh' || i, ${now}
      from generate_series(1, 3) as i`;
    await recountKeptCounts(sql);
    assert.equal(
      await s.t.app.jobs.fireSchedule("jobs.prune_dead", new Date(now.getTime() + 1)),
      true,
    );
    await s.t.app.jobs.runUntilIdle();
    assert.deepEqual(await left(), ["fresh1", "fresh2", "fresh3", "dead01"]);
    const [{ kept }] = await sql<{ kept: number }[]>`
      select sum(value)::int as kept from job_counters where name like 'dead:%'`;
    assert.equal(kept, 4);
  } finally {
    await s.close();
  }
});
