/**
 * The challenge announcement's fan-out at one size: a challenge with every participant of the
 * bench's challenge (50,000 at 100x) whose start, then end, is announced by the app's own
 * `challenges.announce` schedule, fired once and drained by the app's job worker in this process
 * (`fireSchedule` and `runUntilIdle`, as the tests do) until every participant has the
 * notification and no job is due, or no job is left at all (then the figures say who was not
 * notified; a design that fans out on read instead needs its own check here).
 *
 * Observed meanwhile: each transaction's span from its start to its last write of a
 * notification, job or challenge mark (triggers of the bench's own, on its own database, dropped
 * afterwards), the size of every job payload written, and on PostgreSQL the longest open
 * transaction of the app's connections sampled from `pg_stat_activity` every few milliseconds.
 */
import { buildApp, type Deps } from "../../src/app.ts";
import { parseConfig } from "../../src/config.ts";
import type { Database, Sql } from "../../src/platform/db.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { createErrorTracker } from "../../src/platform/errors.ts";
import { systemClock } from "../../src/platform/clock.ts";
import { createMemoryKv } from "../../src/platform/kv.ts";
import { type Base, PUBLIC_ID } from "./grow.ts";

const DRAIN_TIMEOUT_MS = 5 * 60_000;

export interface AnnouncementFigures {
  participants: number;
  /** Notifications of this announcement, and how many distinct participants have one. */
  notified: number;
  recipients: number;
  /** From firing the schedule to every participant notified and no job due. */
  wall_ms: number;
  /** The longest transaction: the larger of the sampled and the probed figure. */
  longest_transaction_ms: number;
  /** The longest span from a transaction's start to its last probed write. */
  probed_transaction_ms: number;
  /** The longest open transaction of the app's connections in pg_stat_activity (PostgreSQL). */
  sampled_transaction_ms: number | null;
  /** Transactions that wrote notifications. */
  notification_transactions: number;
  jobs_written: number;
  largest_job_payload_bytes: number;
  largest_job: string | null;
  timed_out: boolean;
}

const PROBE = [
  `create table if not exists bench_scale_probe (
     txid bigint, xact_start timestamptz, at timestamptz, what text, payload_bytes int)`,
  `create or replace function bench_scale_probe_statement() returns trigger language plpgsql as $$
   begin
     insert into bench_scale_probe values (txid_current(), now(), clock_timestamp(), TG_TABLE_NAME, null);
     return null;
   end $$`,
  `create or replace function bench_scale_probe_job() returns trigger language plpgsql as $$
   begin
     insert into bench_scale_probe
       values (txid_current(), now(), clock_timestamp(), 'job ' || new.name, octet_length(new.payload::text));
     return null;
   end $$`,
  `create or replace trigger bench_scale_probe_notifications after insert on notifications
     for each statement execute function bench_scale_probe_statement()`,
  `create or replace trigger bench_scale_probe_challenges after update on community_challenges
     for each statement execute function bench_scale_probe_statement()`,
  `create or replace trigger bench_scale_probe_jobs after insert on jobs
     for each row execute function bench_scale_probe_job()`,
];
const UNPROBE = [
  `drop trigger if exists bench_scale_probe_notifications on notifications`,
  `drop trigger if exists bench_scale_probe_challenges on community_challenges`,
  `drop trigger if exists bench_scale_probe_jobs on jobs`,
  `drop function if exists bench_scale_probe_statement()`,
  `drop function if exists bench_scale_probe_job()`,
  `drop table if exists bench_scale_probe`,
];

export interface AnnounceOptions {
  /** The bench's own connection (no statement bound): setup, probes, counts. */
  sql: Sql;
  /** The database the in-process app runs on (the service's defaults on PostgreSQL). */
  appDb: Database;
  /** A connection beside the app's for pg_stat_activity (PostgreSQL only). */
  sampler: Sql | null;
  base: Base;
  size: number;
}

/** Announces the start, then the end, of a challenge of every participant; their figures. */
export async function measureAnnouncements(
  o: AnnounceOptions,
): Promise<{ start: AnnouncementFigures; end: AnnouncementFigures }> {
  const { sql, base } = o;
  const [challenge] = await sql<{ id: string; publicId: string }[]>`
    insert into community_challenges (public_id, community_id, creator_id, title, description,
                                      metric, starts_at, ends_at, entry_cost, created_at)
    values (${sql.unsafe(PUBLIC_ID)}, ${base.communityId}, ${base.adminId},
            ${`Scale announcement ${o.size}x`}, null, 'check_ins', now() - interval '1 minute',
            now() + interval '1 day', 0, now() - interval '2 minutes')
    returning id, public_id as "publicId"`;
  await sql`
    with p as (
      insert into challenge_participants (public_id, challenge_id, user_id, score,
                                          entry_cost_paid, joined_at)
      select ${sql.unsafe(PUBLIC_ID)}, ${challenge.id}, user_id, 0, 0, now() - interval '2 minutes'
      from challenge_participants where challenge_id = ${base.challengeId}
      returning 1
    ), counted as (
      update community_challenges set participant_count = (select count(*) from p)
      where id = ${challenge.id}
    )
    insert into challenge_score_counts (challenge_id, score, n)
    select ${challenge.id}, 0, count(*)::int from p`;
  for (const statement of PROBE) await sql.unsafe(statement);
  const log = memoryLogger("warn");
  const deps: Deps = {
    config: parseConfig({ DATA_DIR: "/nonexistent", ADMIN_SUBJECTS: "bench-admin" }),
    db: o.appDb,
    kv: createMemoryKv(systemClock),
    log,
    clock: systemClock,
    tracker: createErrorTracker({ log }),
    fetch,
  };
  const app = buildApp(deps);
  try {
    const start = await announce(o, app, challenge, "challenge.started");
    await sql`
      update community_challenges set ends_at = now() - interval '1 second'
      where id = ${challenge.id}`;
    const end = await announce(o, app, challenge, "challenge.ended");
    const errors = log.entries.filter((e) => e.level === "error");
    if (errors.length) console.error("announcement errors:", JSON.stringify(errors.slice(0, 5)));
    return { start, end };
  } finally {
    await app.stop();
    for (const statement of UNPROBE) await sql.unsafe(statement);
  }
}

async function announce(
  o: AnnounceOptions,
  app: ReturnType<typeof buildApp>,
  challenge: { id: string; publicId: string },
  kind: string,
): Promise<AnnouncementFigures> {
  const { sql } = o;
  await sql`delete from bench_scale_probe`;
  const [{ participants }] = await sql<{ participants: number }[]>`
    select count(*)::int as participants from challenge_participants
    where challenge_id = ${challenge.id}`;
  const notified = async () => {
    const [row] = await sql<{ n: number; users: number }[]>`
      select count(*)::int as n, count(distinct user_id)::int as users from notifications
      where subject_id = ${challenge.publicId} and kind = ${kind}`;
    return row;
  };
  let sampled = 0;
  let sampling = o.sampler !== null;
  const sampler = (async () => {
    while (sampling && o.sampler) {
      const [row] = await o.sampler<{ ms: number }[]>`
        select coalesce(max(extract(epoch from clock_timestamp() - xact_start) * 1000), 0)::float8
          as ms
        from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and xact_start is not null and application_name = 'goals-service'`;
      sampled = Math.max(sampled, row.ms);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const started = performance.now();
  let timedOut = false;
  let counts = { n: 0, users: 0 };
  try {
    await app.jobs.fireSchedule("challenges.announce", new Date());
    for (;;) {
      const ran = await app.jobs.runUntilIdle();
      counts = await notified();
      if (ran > 0) continue;
      if (counts.n >= participants) break;
      // Nothing is due: done unless a job waits for later (a batch's continuation).
      const [{ waiting }] = await sql<{ waiting: number }[]>`
        select count(*)::int as waiting from jobs where dead_at is null`;
      if (waiting === 0) break;
      if (performance.now() - started > DRAIN_TIMEOUT_MS) {
        timedOut = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    sampling = false;
    await sampler;
  }
  const wall = performance.now() - started;
  const [probe] = await sql<
    { span: number; transactions: number; jobs: number; payload: number; job: string | null }[]
  >`
    with t as (
      select txid, max(extract(epoch from at - xact_start) * 1000) as span,
             bool_or(what = 'notifications') as notifies
      from bench_scale_probe group by txid
    )
    select coalesce((select max(span) from t), 0)::float8 as span,
           (select count(*) from t where notifies)::int as transactions,
           (select count(*) from bench_scale_probe where what like 'job %')::int as jobs,
           coalesce((select max(payload_bytes) from bench_scale_probe), 0)::int as payload,
           (select substr(what, 5) from bench_scale_probe where payload_bytes is not null
            order by payload_bytes desc limit 1) as job`;
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    participants,
    notified: counts.n,
    recipients: counts.users,
    wall_ms: round(wall),
    longest_transaction_ms: round(Math.max(probe.span, sampled)),
    probed_transaction_ms: round(probe.span),
    sampled_transaction_ms: o.sampler ? round(sampled) : null,
    notification_transactions: probe.transactions,
    jobs_written: probe.jobs,
    largest_job_payload_bytes: probe.payload,
    largest_job: probe.job,
    timed_out: timedOut,
  };
}
