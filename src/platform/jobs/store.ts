/**
 * The job queue's SQL. Every state change is one statement that carries its own guard (a job is
 * completed, failed or released only `where locked_by = <this worker>`), so a worker that lost
 * its lock cannot touch a job another worker has since claimed.
 */
import type postgres from "postgres";
import type { Queryable, Sql } from "../db.ts";
import type { JobSetPage, QueueFigures } from "./types.ts";

type Fragment = postgres.Fragment;

export const READY_CHANNEL = "jobs_ready";

export interface NewJob {
  queue: string;
  name: string;
  payload: unknown;
  runAt: Date;
  maxAttempts: number;
  key: string | null;
  /** `traceparent` of the enqueuing span; null when not tracing. */
  traceContext: string | null;
  now: Date;
}

export interface ClaimedJob {
  id: string;
  queue: string;
  name: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  traceContext: string | null;
}

/** Inserts a job (no-op on a duplicate key); with `notify`, wakes listening workers at commit. */
export async function insertJob(
  tx: Queryable,
  job: NewJob,
  notify: boolean,
): Promise<string | null> {
  const rows = notify
    ? await tx<{ id: string }[]>`
        with inserted as (
          insert into jobs (queue, name, payload, run_at, max_attempts, key, created_at,
                            trace_context)
          values (${job.queue}, ${job.name}, ${tx.json(job.payload as never)}, ${job.runAt},
                  ${job.maxAttempts}, ${job.key}, ${job.now}, ${job.traceContext})
          on conflict (key) do nothing
          returning id, queue)
        select id, pg_notify(${READY_CHANNEL}, queue) from inserted`
    : await tx<{ id: string }[]>`
        insert into jobs (queue, name, payload, run_at, max_attempts, key, created_at,
                          trace_context)
        values (${job.queue}, ${job.name}, ${tx.json(job.payload as never)}, ${job.runAt},
                ${job.maxAttempts}, ${job.key}, ${job.now}, ${job.traceContext})
        on conflict (key) do nothing
        returning id`;
  return rows[0]?.id ?? null;
}

/** Inserts one job per name with the same payload (an event's subscribers). */
export async function insertJobs(
  tx: Queryable,
  names: string[],
  job: Omit<NewJob, "name" | "key">,
  notify: boolean,
): Promise<void> {
  const payload = tx.json(job.payload as never);
  if (notify) {
    await tx`
      with inserted as (
        insert into jobs (queue, name, payload, run_at, max_attempts, created_at, trace_context)
        select ${job.queue}, n, ${payload}, ${job.runAt}, ${job.maxAttempts}, ${job.now},
          ${job.traceContext}
        from unnest(${names}::text[]) as n
        returning queue)
      select pg_notify(${READY_CHANNEL}, queue) from inserted limit 1`;
  } else {
    await tx`
      insert into jobs (queue, name, payload, run_at, max_attempts, created_at, trace_context)
      select ${job.queue}, n, ${payload}, ${job.runAt}, ${job.maxAttempts}, ${job.now},
        ${job.traceContext}
      from unnest(${names}::text[]) as n`;
  }
}

/**
 * Inserts many jobs in one statement (rows whose key matches an existing job, or an earlier row
 * of the same batch, are skipped); returns how many were inserted. With `notify`, wakes listening
 * workers once at commit.
 */
export async function insertJobBatch(
  tx: Queryable,
  jobs: Omit<NewJob, "now">[],
  now: Date,
  notify: boolean,
): Promise<number> {
  if (!jobs.length) return 0;
  const rows = jobs.map((j) => ({
    queue: j.queue,
    name: j.name,
    payload: j.payload,
    run_at: j.runAt.toISOString(),
    max_attempts: j.maxAttempts,
    key: j.key,
    trace_context: j.traceContext,
  }));
  const records = tx.json(rows as never);
  const [{ count }] = await tx<{ count: number }[]>`
    with inserted as (
      insert into jobs (queue, name, payload, run_at, max_attempts, key, created_at,
                        trace_context)
      select r.queue, r.name, r.payload, r.run_at, r.max_attempts, r.key, ${now}, r.trace_context
      from jsonb_to_recordset(${records}) as r(queue text, name text, payload jsonb,
        run_at timestamptz, max_attempts int, key text, trace_context text)
      on conflict (key) do nothing
      returning queue),
    woken as (select pg_notify(${READY_CHANNEL}, queue) from inserted where ${notify} limit 1)
    select (select count(*)::int from inserted) as count, (select count(*) from woken) as woken`;
  return count;
}

/** `last_error` of a job whose worker stopped heartbeating while it held the job. */
export const WORKER_LOST = "worker lost: the instance running this job stopped before it finished";

/**
 * Locks up to `limit` due jobs for `worker`, spending one attempt each. A job whose lock was last
 * refreshed before `staleBefore` belongs to a worker that died: it is claimed again, its lost
 * attempt stays spent and is recorded as {@link WORKER_LOST}, unless it is one of `held` (the
 * jobs the claiming worker itself still holds, whose locks aged while it could not refresh them).
 */
export async function claimJobs(
  sql: Sql,
  worker: string,
  limit: number,
  now: Date,
  staleBefore: Date,
  held: string[] = [],
): Promise<ClaimedJob[]> {
  // `= any(array(...))` rather than a join: the prepared statement's generic plan would
  // otherwise hash-join against a sequential scan of the whole table on every claim.
  // In `set`, `j.locked_by` is the value before this update: set only for an orphan.
  return await sql<ClaimedJob[]>`
    update jobs j
    set locked_at = ${now}, locked_by = ${worker}, attempts = j.attempts + 1,
        last_error = case when j.locked_by is null then j.last_error else ${WORKER_LOST} end
    where j.id = any(array(
      select id from jobs
      where dead_at is null and run_at <= ${now}
        and (locked_at is null
          or (locked_at < ${staleBefore} and id <> all(${held}::bigint[])))
      order by run_at, id
      limit ${limit}
      for update skip locked))
    returning j.id, j.queue, j.name, j.payload, j.attempts, j.max_attempts as "maxAttempts",
      j.trace_context as "traceContext"`;
}

/**
 * Marks the jobs `worker` holds (running or waiting in its local queue) as alive: their lock was
 * refreshed now. Returns the ids it still held, so a lock taken over by another worker shows as
 * missing.
 */
export async function refreshLocks(
  sql: Sql,
  worker: string,
  ids: string[],
  now: Date,
): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await sql<{ id: string }[]>`
    update jobs set locked_at = ${now}
    where id = any(${ids}::bigint[]) and locked_by = ${worker}
    returning id`;
  return rows.map((r) => r.id);
}

/**
 * Hands back jobs `worker` claimed but never started (they waited in its local queue): unlocked,
 * with the attempt the claim spent given back. Returns how many it still held.
 */
export async function returnJobs(sql: Sql, worker: string, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const rows = await sql`
    update jobs set locked_at = null, locked_by = null, attempts = greatest(0, attempts - 1)
    where id = any(${ids}::bigint[]) and locked_by = ${worker}
    returning id`;
  return rows.length;
}

/**
 * Deletes finished jobs and counts them as processed; returns how many this worker still held
 * (a job whose lock was lost is left to its new holder).
 */
export async function completeJobs(
  sql: Queryable,
  ids: string[],
  worker: string,
  shard: number,
): Promise<number> {
  const rows = await sql<{ done: number }[]>`
    with done as (
      delete from jobs where id = any(${ids}::bigint[]) and locked_by = ${worker} returning id),
    counted as (
      insert into job_counters (name, shard, value)
      select 'processed', ${shard}, count(*) from done having count(*) > 0
      on conflict (name, shard) do update set value = job_counters.value + excluded.value)
    select count(*)::int as done from done`;
  return rows[0].done;
}

export interface FailedAttempt {
  id: string;
  worker: string;
  shard: number;
  error: string;
  retryAt: Date;
  now: Date;
  /** This was the last attempt: the job moves to the dead set. */
  dead: boolean;
  /** The job's public id from now on, unless an earlier failure gave it one. */
  publicId: string;
}

/**
 * The CTE `dead_counted` that adds, per job name, the `delta` column of the CTE `source` to the
 * kept size of the dead set (`job_counters` rows `dead:<name>`, shard 0): each move into or out
 * of the dead set changes it in its own statement, so reading the dead set's size costs one small
 * row per kind however many dead jobs there are.
 */
export const deadCounted = (sql: Queryable, source: string) =>
  sql`dead_counted as (
    insert into job_counters (name, shard, value)
    select 'dead:' || name, 0, sum(delta) from ${sql(source)}
    group by name having sum(delta) <> 0 order by name
    on conflict (name, shard) do update set value = job_counters.value + excluded.value
  )`;

/**
 * Unlocks a failed job for a later retry (it joins the retry set) or moves it to the dead set;
 * counts the failure.
 */
export async function failJob(sql: Sql, f: FailedAttempt): Promise<boolean> {
  const rows = await sql`
    with failed as (
      update jobs
      set locked_at = null, locked_by = null, last_error = ${f.error}, run_at = ${f.retryAt},
          dead_at = ${f.dead ? f.now : null}, public_id = coalesce(public_id, ${f.publicId}),
          attempts = least(attempts, max_attempts)
      where id = ${f.id} and locked_by = ${f.worker}
      returning id, name, case when dead_at is not null then 1 else 0 end as delta),
    ${deadCounted(sql, "failed")}
    insert into job_counters (name, shard, value)
    select c.name, ${f.shard}, 1 from failed, (values ('processed'), ('failed')) as c(name)
    on conflict (name, shard) do update set value = job_counters.value + 1
    returning value`;
  return rows.length > 0;
}

export interface Released {
  /** Jobs back in the queue, due now. */
  requeued: string[];
  /** Jobs that had used their last attempt: moved to the dead set. */
  dead: string[];
}

/**
 * Hands jobs this worker still holds back to the queue, due now. The attempt stays spent (a job
 * that never finishes within the grace would otherwise run at every shutdown forever): a job on
 * its last attempt goes to the dead set instead. A job without a public id gets the one at its
 * index in `publicIds`.
 */
export async function releaseJobs(
  sql: Sql,
  worker: string,
  ids: string[],
  publicIds: string[],
  error: string,
  now: Date,
): Promise<Released> {
  if (!ids.length) return { requeued: [], dead: [] };
  const rows = await sql<{ id: string; dead: boolean }[]>`
    with released as (
      update jobs j
      set locked_at = null, locked_by = null, run_at = ${now}, last_error = ${error},
          dead_at = case when j.attempts >= j.max_attempts then ${now}::timestamptz end,
          public_id = coalesce(j.public_id, r.public_id)
      from unnest(${ids}::bigint[], ${publicIds}::text[]) as r(id, public_id)
      where j.id = r.id and j.locked_by = ${worker}
      returning j.id, j.name, j.dead_at is not null as dead,
        case when j.dead_at is not null then 1 else 0 end as delta
    ), ${deadCounted(sql, "released")}
    select id, dead from released`;
  return {
    requeued: rows.filter((r) => !r.dead).map((r) => r.id),
    dead: rows.filter((r) => r.dead).map((r) => r.id),
  };
}

export async function queueFigures(sql: Sql, now: Date): Promise<QueueFigures> {
  const [totals] = await sql<
    { processed: string; failed: string; enqueued: number; dead: number }[]
  >`
    select
      (select coalesce(sum(value), 0) from job_counters where name = 'processed') as processed,
      (select coalesce(sum(value), 0) from job_counters where name = 'failed') as failed,
      (select count(*)::int from jobs
        where dead_at is null and locked_at is null and run_at <= ${now}) as enqueued,
      (select coalesce(sum(value), 0)::int from job_counters where name like 'dead:%') as dead`;
  const queues = await sql<{ name: string; size: number; oldest: Date | null }[]>`
    select queue as name,
           count(*) filter (where locked_at is null and run_at <= ${now})::int as size,
           min(run_at) filter (where locked_at is null and run_at <= ${now}) as oldest
    from jobs where dead_at is null
    group by queue order by queue`;
  return {
    processed: Number(totals.processed),
    failed: Number(totals.failed),
    enqueued: totals.enqueued,
    dead: totals.dead,
    queues: queues.map((q) => ({
      name: q.name,
      size: q.size,
      latency: q.oldest ? Math.max(0, (now.getTime() - q.oldest.getTime()) / 1000) : 0,
    })),
  };
}

/**
 * The `like` pattern of text contained anywhere: `%`, `_` and the escape character `\` in it
 * stand for themselves.
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, "\\$&")}%`;

/** `and` the job's name or last error contains `search` (any case); nothing without one. */
export function matching(sql: Queryable, search: string | null | undefined) {
  if (!search) return sql``;
  const pattern = containsPattern(search);
  return sql`and (name ilike ${pattern} escape '\\' or last_error ilike ${pattern} escape '\\')`;
}

/**
 * The end of a query reading a window of a set of jobs ordered by `(<key>, public_id)`: rows
 * beyond `after` and before `before` (keys `[<key> ISO, id]`) that match the search, in the
 * set's order, or the reverse for a `backward` read (what a cursor connection expects of one).
 */
export function jobWindow(
  sql: Queryable,
  page: JobSetPage<[string, string]>,
  key: "dead_at" | "run_at",
  descending: boolean,
) {
  const columns = sql.unsafe(`(${key}, public_id)`);
  const beyond = (k: [string, string], side: "after" | "before") => {
    const tuple = sql`(${k[0]}::timestamptz, ${k[1]}::text)`;
    return descending === (side === "after")
      ? sql`and ${columns} < ${tuple}`
      : sql`and ${columns} > ${tuple}`;
  };
  const direction = descending === !page.backward ? "desc" : "asc";
  return sql`${page.after ? beyond(page.after, "after") : sql``}
    ${page.before ? beyond(page.before, "before") : sql``} ${matching(sql, page.search)}
    order by ${sql.unsafe(`${key} ${direction}, public_id ${direction}`)}
    limit ${page.limit}`;
}

/** `and` the job is of the kind `name`; nothing for every kind (null). */
export const ofKind = (sql: Queryable, name: string | null) =>
  name === null ? sql`` : sql`and name = ${name}`;

/**
 * Sets `changes` on the jobs `where` selects, in one statement (so `where` guards each job once
 * against a concurrent change), and wakes the workers; returns how many it moved.
 */
export async function moveJobs(
  sql: Sql,
  changes: Fragment,
  where: Fragment,
  notify: boolean,
): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    with target as (
      select id, dead_at is not null as was_dead from jobs where ${where} for update
    ), moved as (
      update jobs set ${changes} from target where jobs.id = target.id
      returning queue, name,
        (case when dead_at is not null then 1 else 0 end)
          - (case when target.was_dead then 1 else 0 end) as delta
    ), ${deadCounted(sql, "moved")},
    woken as (select pg_notify(${READY_CHANNEL}, queue) from moved where ${notify} limit 1)
    select (select count(*)::int from moved) as count, (select count(*) from woken) as woken`;
  return count;
}

/** Deletes the jobs `where` selects for good, in one statement; returns how many. */
export async function deleteJobs(sql: Sql, where: Fragment): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    with gone as (
      delete from jobs where ${where}
      returning name, case when dead_at is not null then -1 else 0 end as delta
    ), ${deadCounted(sql, "gone")}
    select count(*)::int as count from gone`;
  return count;
}

const SCHEDULE_LOCK_NAMESPACE = 7_240_311;

/**
 * Records `slot` of schedule `name` and enqueues its job, once across instances: the advisory
 * lock keeps concurrent ticks from racing, the slot row keeps late or repeated ticks from firing
 * again. Returns whether this call fired the slot.
 */
export async function fireScheduleSlot(
  sql: Sql,
  name: string,
  slot: Date,
  now: Date,
  enqueue: (tx: Queryable) => Promise<unknown>,
): Promise<boolean> {
  return await sql.begin(async (tx) => {
    const [{ locked }] = await tx<{ locked: boolean }[]>`
      select pg_try_advisory_xact_lock(${SCHEDULE_LOCK_NAMESPACE}, hashtext(${name})) as locked`;
    if (!locked) return false;
    const inserted = await tx`
      insert into job_schedule_slots (name, slot, fired_at) values (${name}, ${slot}, ${now})
      on conflict (name, slot) do nothing
      returning slot`;
    if (!inserted.length) return false;
    await enqueue(tx);
    return true;
  });
}

/** Forgets fired slots older than `before` (they can no longer fire again anyway). */
export async function pruneScheduleSlots(sql: Sql, before: Date): Promise<number> {
  const rows = await sql`delete from job_schedule_slots where slot < ${before} returning slot`;
  return rows.length;
}

/** The latest recorded slot of each schedule that has fired (one statement for all). */
export async function lastScheduleSlots(sql: Sql): Promise<Map<string, Date>> {
  const rows = await sql<{ name: string; slot: Date }[]>`
    select name, max(slot) as slot from job_schedule_slots group by name`;
  return new Map(rows.map((r) => [r.name, r.slot]));
}
