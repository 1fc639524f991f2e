/**
 * The retry set's SQL (Sidekiq's "Retries"): jobs that failed, are not dead and wait for their next
 * attempt, `run_at` in the future. Each change is one statement guarded by that condition, so a
 * job that was claimed, retried or deleted meanwhile is left alone, and two admins acting at once
 * move or delete each job once.
 */
import type { Queryable, Sql } from "../db.ts";
import { deleteJobs, jobWindow, matching, moveJobs, ofKind, READY_CHANNEL } from "./store.ts";
import type { FailedJob, RetryingJob, RetryingJobPage } from "./types.ts";

const RETRYING_JOB_COLUMNS = `public_id as id, queue, name, payload, attempts,
  max_attempts as "maxAttempts", last_error as "lastError", run_at as "nextAttemptAt",
  created_at as "createdAt"`;

/** A job in the retry set at `now`: failed before (it has a public id), not dead, not claimed,
 * due later. */
const retrying = (sql: Queryable, now: Date) =>
  sql`dead_at is null and public_id is not null and locked_at is null and run_at > ${now}`;

/** A window of the retry set, next attempt soonest first (see `jobWindow`). */
export async function retryingJobs(
  sql: Sql,
  page: RetryingJobPage,
  now: Date,
): Promise<RetryingJob[]> {
  return await sql<RetryingJob[]>`
    select ${sql.unsafe(RETRYING_JOB_COLUMNS)}
    from jobs where ${retrying(sql, now)} ${jobWindow(sql, page, "run_at", false)}`;
}

/** The retry set's size, or how many of it match `search`. */
export async function countRetryingJobs(
  sql: Sql,
  now: Date,
  search?: string | null,
): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int as count from jobs where ${retrying(sql, now)} ${matching(sql, search)}`;
  return count;
}

/** The retry set's job names (kinds) with their counts, most first. */
export async function retryingJobKinds(
  sql: Sql,
  now: Date,
): Promise<{ name: string; count: number }[]> {
  return await sql<{ name: string; count: number }[]>`
    select name, count(*)::int as count from jobs where ${retrying(sql, now)}
    group by name order by count(*) desc, name`;
}

/** A dead or retrying job by public id; null when it is neither. */
export async function failedJob(sql: Sql, publicId: string, now: Date): Promise<FailedJob | null> {
  const [row] = await sql<FailedJob[]>`
    select public_id as id, case when dead_at is null then 'retrying' else 'dead' end as state,
      queue, name, payload, attempts, max_attempts as "maxAttempts", last_error as "lastError",
      dead_at as "failedAt", case when dead_at is null then run_at end as "nextAttemptAt",
      created_at as "createdAt"
    from jobs
    where public_id = ${publicId} and (dead_at is not null or (${retrying(sql, now)}))`;
  return row ?? null;
}

/**
 * Makes one retrying job due now (attempts and error kept) and wakes the workers; returns it as
 * it is now, or null when no job waits under this id.
 */
export async function retryNow(
  sql: Sql,
  publicId: string,
  now: Date,
  notify: boolean,
): Promise<RetryingJob | null> {
  const [row] = await sql<RetryingJob[]>`
    with moved as (
      update jobs set run_at = ${now}
      where public_id = ${publicId} and ${retrying(sql, now)}
      returning ${sql.unsafe(RETRYING_JOB_COLUMNS)}),
    woken as (select pg_notify(${READY_CHANNEL}, queue) from moved where ${notify})
    select moved.* from moved, (select count(*) from woken) as w`;
  return row ?? null;
}

/** Makes every retrying job (of the kind `name`, when given) due now, as {@link retryNow};
 * returns how many. */
export const retryNowMany = (sql: Sql, name: string | null, now: Date, notify: boolean) =>
  moveJobs(sql, sql`run_at = ${now}`, sql`${retrying(sql, now)} ${ofKind(sql, name)}`, notify);

/** Deletes one retrying job for good; returns it, or null when no job waits under this id. */
export async function deleteRetrying(
  sql: Sql,
  publicId: string,
  now: Date,
): Promise<RetryingJob | null> {
  const [row] = await sql<RetryingJob[]>`
    delete from jobs where public_id = ${publicId} and ${retrying(sql, now)}
    returning ${sql.unsafe(RETRYING_JOB_COLUMNS)}`;
  return row ?? null;
}

/** Deletes every retrying job (of the kind `name`, when given) for good; returns how many. */
export const deleteRetryingMany = (sql: Sql, name: string | null, now: Date) =>
  deleteJobs(sql, sql`${retrying(sql, now)} ${ofKind(sql, name)}`);
