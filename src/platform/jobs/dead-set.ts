/**
 * The dead set's SQL (Sidekiq's "Dead"): jobs that used their last attempt, `dead_at` set. Each
 * change is one statement guarded by that condition and moves the kept size of the dead set
 * (`deadCounted`) with it.
 */
import type { Sql } from "../db.ts";
import { deadCounted, deleteJobs, jobWindow, matching, moveJobs, ofKind } from "./store.ts";
import type { DeadJob, DeadJobPage } from "./types.ts";

const DEAD_JOB_COLUMNS = `public_id as id, queue, name, payload, attempts,
  max_attempts as "maxAttempts", last_error as "lastError", dead_at as "failedAt",
  created_at as "createdAt"`;
/** The names of {@link DEAD_JOB_COLUMNS}, to select them again from a CTE that returned them. */
const DEAD_COLUMN_NAMES =
  `id, queue, name, payload, attempts, "maxAttempts", "lastError", "failedAt", "createdAt"`;

/** A window of the dead set, most recently failed first (see {@link jobWindow}). */
export async function deadJobs(sql: Sql, page: DeadJobPage): Promise<DeadJob[]> {
  return await sql<DeadJob[]>`
    select ${sql.unsafe(DEAD_JOB_COLUMNS)}
    from jobs where dead_at is not null ${jobWindow(sql, page, "dead_at", true)}`;
}

/** The dead set's size (kept), or how many of it match `search` (counted). */
export async function countDeadJobs(sql: Sql, search?: string | null): Promise<number> {
  const [{ count }] = search
    ? await sql<{ count: number }[]>`
      select count(*)::int as count from jobs where dead_at is not null ${matching(sql, search)}`
    : await sql<{ count: number }[]>`
      select coalesce(sum(value), 0)::int as count from job_counters where name like 'dead:%'`;
  return count;
}

/** Puts a dead job back in the queue with fresh attempts; returns it as it was, or null. */
export async function retryDead(sql: Sql, publicId: string, now: Date): Promise<DeadJob | null> {
  const [row] = await sql<DeadJob[]>`
    with dead as (
      select id as job_id, ${sql.unsafe(DEAD_JOB_COLUMNS)} from jobs
      where public_id = ${publicId} and dead_at is not null
      for update
    )
    , retried as (
      update jobs set dead_at = null, attempts = 0, run_at = ${now}
      from dead where jobs.id = dead.job_id
      returning dead.id, dead.queue, dead.name, dead.payload, dead.attempts, dead."maxAttempts",
        dead."lastError", dead."failedAt", dead."createdAt", -1 as delta
    ), ${deadCounted(sql, "retried")}
    select id, queue, name, payload, attempts, "maxAttempts", "lastError", "failedAt", "createdAt"
    from retried`;
  return row ?? null;
}

/** The dead set's job names (kinds) with their kept counts, most dead jobs first. */
export async function deadJobKinds(sql: Sql): Promise<{ name: string; count: number }[]> {
  return await sql<{ name: string; count: number }[]>`
    select substr(name, 6) as name, sum(value)::int as count from job_counters
    where name like 'dead:%' group by name having sum(value) > 0
    order by count desc, name`;
}

/**
 * Puts every dead job (of the kind `name`, when given) back in its queue with fresh attempts,
 * guarded by `dead_at is not null` (a job retried or discarded meanwhile is left alone); returns
 * how many it moved.
 */
export const retryDeadMany = (sql: Sql, name: string | null, now: Date, notify: boolean) =>
  moveJobs(
    sql,
    sql`dead_at = null, attempts = 0, run_at = ${now}`,
    sql`dead_at is not null ${ofKind(sql, name)}`,
    notify,
  );

/** Deletes every dead job (of the kind `name`, when given) for good; returns how many. */
export const discardDeadMany = (sql: Sql, name: string | null) =>
  deleteJobs(sql, sql`dead_at is not null ${ofKind(sql, name)}`);

/** Deletes a dead job for good; returns it, or null when there was none. */
export async function discardDead(sql: Sql, publicId: string): Promise<DeadJob | null> {
  const [row] = await sql<DeadJob[]>`
    with gone as (
      delete from jobs where public_id = ${publicId} and dead_at is not null
      returning ${sql.unsafe(DEAD_JOB_COLUMNS)}, -1 as delta
    ), ${deadCounted(sql, "gone")}
    select ${sql.unsafe(DEAD_COLUMN_NAMES)} from gone`;
  return row ?? null;
}

/**
 * Deletes up to `limit` dead jobs that died before `before`, oldest first, through the dead set's
 * index; how many.
 */
export async function pruneDeadBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    with gone as (
      delete from jobs where dead_at is not null and id in (
        select id from jobs where dead_at is not null and dead_at < ${before}
        order by dead_at limit ${limit})
      returning name, -1 as delta
    ), ${deadCounted(sql, "gone")}
    select count(*)::int as count from gone`;
  return count;
}

/** Deletes up to `limit` of the dead jobs beyond the newest `keep`; how many. */
export async function pruneDeadBeyond(sql: Sql, keep: number, limit: number): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    with gone as (
      delete from jobs where dead_at is not null and id in (
        select id from jobs where dead_at is not null
        order by dead_at desc, id desc offset ${keep} limit ${limit})
      returning name, -1 as delta
    ), ${deadCounted(sql, "gone")}
    select count(*)::int as count from gone`;
  return count;
}
