/**
 * `deno task bench:fanout`: announcing a challenge's start and end, and the streak reminder, to
 * 1,000, 10,000 and 100,000 recipients grown in place, in batches of FAN_OUT_BATCH_SIZE (default
 * 1,000), on a real PostgreSQL (docs/jobs.md, "Fan-out"). Each batch runs as the worker runs it
 * (its job taken, its handler called) and is timed whole: its one transaction. Reports per size
 * the batches, the longest and the median batch, the whole walk, the largest job payload queued
 * (batches, broadcasts) and the notifications stored, which must equal the recipients.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server; the
 * benchmark creates and drops its own database there. Figures go to bench/results/fanout.json.
 */
import { round2, runAppBenchmark, summary } from "./support.ts";
import type { Sql } from "../src/platform/db.ts";
import { announce, announceBatch, announceBatchJob } from "../src/features/challenges/service.ts";
import {
  remindBatch,
  reminderBatchJob,
  remindStreaksAtRisk,
} from "../src/features/goals/service.ts";

const SIZES = [1_000, 10_000, 100_000];
const SLOT = new Date("2026-03-02T20:00:00Z");

/** A public id as the service makes them (16 random bytes, URL-safe base64), in SQL. */
const publicIdSql = (sql: Sql) =>
  sql`translate(rtrim(encode(decode(md5(random()::text), 'hex'), 'base64'), '='), '+/', '-_')`;

/** Takes and runs queued jobs of `name` one at a time, as a worker would: each batch timed. */
async function walk(sql: Sql, name: string, run: (payload: never) => Promise<number>) {
  const times: number[] = [];
  let stored = 0;
  let largest = 0;
  const started = performance.now();
  for (;;) {
    const [job] = await sql<{ id: string; payload: never; bytes: number }[]>`
      select id, payload, octet_length(payload::text) as bytes from jobs
      where name = ${name} and dead_at is null order by id limit 1`;
    if (!job) break;
    largest = Math.max(largest, job.bytes);
    await sql`delete from jobs where id = ${job.id}`;
    const t = performance.now();
    stored += await run(job.payload);
    times.push(performance.now() - t);
  }
  const total = performance.now() - started;
  const [queued] = await sql<{ bytes: number | null }[]>`
    select max(octet_length(payload::text)) as bytes from jobs`;
  await sql`delete from jobs`;
  return {
    batches: times.length,
    max_batch_ms: round2(Math.max(...times)),
    median_batch_ms: summary(times).median_ms,
    total_ms: round2(total),
    largest_batch_payload_bytes: largest,
    largest_other_payload_bytes: queued.bytes ?? 0,
    notifications: stored,
  };
}

await runAppBenchmark("fanout", async ({ sql, app }) => {
  const deps = {
    db: app.deps.db,
    clock: app.deps.clock,
    jobs: app.jobs,
    notifications: app.features.notifications.api,
    fanOutBatchSize: app.deps.config.fanOutBatchSize,
  };
  await sql`
    insert into users (public_id, subject, username)
    select 'owner', 'owner', 'owner'`;
  await sql`
    insert into communities (public_id, owner_id, name, visibility)
    select 'community', id, 'Everyone', 'public' from users where subject = 'owner'`;
  await sql`
    insert into community_challenges
      (public_id, community_id, creator_id, title, metric, starts_at, ends_at)
    select ${publicIdSql(sql)}, c.id, c.owner_id, 'Spring', 'check_ins',
           now() - interval '2 days', now() - interval '1 day'
    from communities c`;
  const rows: Record<string, unknown> = {};
  let users = 0;
  for (const size of SIZES) {
    // Grown in place: the users, their participation (scores with ties), a daily habit each,
    // checked in the day before the reminder's slot.
    await sql`
      insert into users (public_id, subject, username)
      select 'u' || n, 'u' || n, 'u' || n from generate_series(${users}::int, ${size - 1}::int) n`;
    await sql`
      insert into challenge_participants (public_id, challenge_id, user_id, score)
      select 'p' || u.subject, c.id, u.id, (u.id % 97)::float8
      from users u, community_challenges c where u.subject <> 'owner'
        and not exists (select 1 from challenge_participants p where p.user_id = u.id)`;
    await sql`
      update community_challenges set participant_count = (select count(*) from
        challenge_participants), start_announced_at = null, end_announced_at = null`;
    await sql`
      insert into goals (public_id, user_id, title, kind, cadence)
      select ${publicIdSql(sql)}, u.id, 'Walk', 'habit', 'daily' from users u
      where u.subject <> 'owner' and not exists (select 1 from goals g where g.user_id = u.id)`;
    await sql`
      insert into habit_check_ins (public_id, goal_id, user_id, day)
      select 'c' || g.id, g.id, g.user_id, date '2026-03-01' from goals g
      on conflict do nothing`;
    await sql`delete from notifications`;
    await sql`delete from jobs`;
    await sql`analyze`;
    users = size;

    await announce(deps);
    const kinds = await walk(sql, announceBatchJob.name, (p) => announceBatch(deps, p));
    await remindStreaksAtRisk(deps, SLOT);
    const reminder = await walk(sql, reminderBatchJob.name, (p) => remindBatch(deps, p));
    rows[`recipients_${size}`] = { announcements_start_and_end: kinds, streak_reminder: reminder };
    console.log(size, JSON.stringify(rows[`recipients_${size}`]));
  }
  return {
    ...rows,
    batch_size: deps.fanOutBatchSize,
    measured_at: new Date().toISOString(),
    load_average: Deno.loadavg(),
    note:
      "a batch = one job's handler, its one transaction, timed in-process; the start and the end of the challenge are announced in one walk (twice the recipients' notifications)",
  };
});
