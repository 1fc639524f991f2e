/** SQL of `ai_runs`: reads, spend, and every run transition as one guarded statement. */
import { maybeOne, type Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";
import { keyset } from "../../../graphql/pagination.ts";
import { CONCLUDABLE, monthOf } from "../rules.ts";
import { CREATED_KEY, runColumns, type RunRow, type Window } from "./rows.ts";

/**
 * One window of each employee's runs (newest first) in one statement: the keyset condition and
 * the window's order apply per employee (`row_number() over (partition by employee_id ...)`).
 */
export async function runPagesByEmployeeIds(
  sql: Queryable,
  ids: readonly string[],
  window: Window,
): Promise<RunRow[]> {
  const k = keyset(sql, CREATED_KEY, "desc", window);
  return await sql<RunRow[]>`
    select ${runColumns(sql)} from (
      select r.*, row_number() over (partition by employee_id order by ${k.orderBy}) n
      from ai_runs r where employee_id = any(${ids as string[]}::bigint[]) and ${k.where}
    ) ranked where n <= ${k.limit} order by employee_id, n`;
}

/** The number of runs of each employee (one statement for all). */
export async function runCountsByEmployeeIds(
  sql: Queryable,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const rows = await sql<{ employeeId: string; n: number }[]>`
    select employee_id::text as "employeeId", count(*)::int as n from ai_runs
    where employee_id = any(${ids as string[]}::bigint[]) group by employee_id`;
  return new Map(rows.map((r) => [r.employeeId, r.n]));
}

export async function runsByIds(sql: Queryable, ids: readonly string[]): Promise<RunRow[]> {
  return await sql<RunRow[]>`
    select ${runColumns(sql)} from ai_runs where id = any(${ids as string[]}::bigint[])`;
}

export async function runByPublicId(sql: Queryable, id: string): Promise<RunRow | null> {
  return await maybeOne(
    sql<RunRow[]>`select ${runColumns(sql)} from ai_runs where public_id = ${id}`,
  );
}

const day = (at: Date) => at.toISOString().slice(0, 10);

/** Spend (USD) of each employee in the UTC month of `now`, from the kept days. */
export async function monthSpendByIds(
  sql: Queryable,
  ids: readonly string[],
  now: Date,
): Promise<Map<string, number>> {
  const { start, end } = monthOf(now);
  const rows = await sql<{ employeeId: string; spend: number }[]>`
    select employee_id::text as "employeeId", sum(spend_usd)::float8 as spend
    from ai_employee_days
    where employee_id = any(${ids as string[]}::bigint[])
      and day >= ${day(start)}::date and day < ${day(end)}::date
    group by employee_id`;
  return new Map(rows.map((r) => [r.employeeId, r.spend]));
}

/** Spend (USD) of the whole workforce in the UTC month of `now`, from the kept days. */
export async function workforceMonthSpend(sql: Queryable, now: Date): Promise<number> {
  const { start, end } = monthOf(now);
  const [row] = await sql<{ spend: number }[]>`
    select coalesce(sum(spend_usd), 0)::float8 as spend from ai_employee_days
    where day >= ${day(start)}::date and day < ${day(end)}::date`;
  return row.spend;
}

/**
 * The CTE `spent` that adds the change of cost of the runs the CTE `costed` returned (`delta`,
 * from the cost read under the row lock) to the spend of their creation day.
 */
const spent = (sql: Queryable) =>
  sql`spent as (
    insert into ai_employee_days (employee_id, day, spend_usd)
    select employee_id, (created_at at time zone 'UTC')::date, delta from costed
    where delta <> 0
    on conflict (employee_id, day) do update set
      spend_usd = ai_employee_days.spend_usd + excluded.spend_usd
  )`;

/**
 * Creates a `queued` run, or answers null when one of the employee's runs is in flight: the
 * partial unique index `ai_runs_one_in_flight` decides, so two instances cannot both insert.
 */
export async function insertQueuedRun(
  tx: Queryable,
  employeeId: string,
  trigger: "schedule" | "manual",
  now: Date,
  scheduledFor: Date | null = null,
): Promise<RunRow | null> {
  return await maybeOne(tx<RunRow[]>`
    insert into ai_runs (public_id, employee_id, status, trigger, scheduled_for, created_at)
    values (${publicId()}, ${employeeId}, 'queued', ${trigger}, ${scheduledFor}, ${now})
    on conflict (employee_id) where status in ('queued', 'running') do nothing
    returning ${runColumns(tx)}`);
}

/** When the employee's latest succeeded run finished; null when none has. */
export async function lastSucceededAt(sql: Queryable, employeeId: string): Promise<Date | null> {
  const [row] = await sql<{ at: Date }[]>`
    select finished_at as at from ai_runs
    where employee_id = ${employeeId} and status = 'succeeded' and finished_at is not null
    order by finished_at desc limit 1`;
  return row?.at ?? null;
}

/** queued → running (the runner accepted the run). */
export async function markRunStarted(sql: Queryable, id: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update ai_runs set status = 'running', started_at = ${now}
    where id = ${id} and status = 'queued' returning id`;
  return rows.length === 1;
}

/** queued/running → failed with a message (dispatch gave up, or the stale sweep). */
export async function failRun(
  sql: Queryable,
  id: string,
  message: string,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    update ai_runs set status = 'failed', error_message = ${message}, finished_at = ${now}
    where id = ${id} and status = any(${CONCLUDABLE}) returning id`;
  return rows.length === 1;
}

/**
 * Ends a run as cancelled without the runner's result: a queued run the runner does not have
 * yet, or a running run the runner no longer knows. Null when the run has left `from` meanwhile.
 */
export async function failAsCancelled(
  sql: Queryable,
  id: string,
  from: "queued" | "running",
  message: string,
  now: Date,
) {
  return await maybeOne(sql<RunRow[]>`
    update ai_runs set status = 'failed', error_message = ${message}, finished_at = ${now},
      cancel_requested_at = coalesce(cancel_requested_at, ${now})
    where id = ${id} and status = ${from}
    returning ${runColumns(sql)}`);
}

/** Records that the runner accepted a cancel of a running run; null when no longer running. */
export async function markCancelRequested(sql: Queryable, id: string, now: Date) {
  return await maybeOne(sql<RunRow[]>`
    update ai_runs set cancel_requested_at = coalesce(cancel_requested_at, ${now})
    where id = ${id} and status = 'running'
    returning ${runColumns(sql)}`);
}

/**
 * running → failed for every run started before `cutoff`, and queued → failed for every run
 * created before it (its dispatch never happened); returns the failed runs' ids by state.
 */
export async function failStaleRuns(
  sql: Queryable,
  cutoff: Date,
  messages: { running: string; queued: string },
  now: Date,
): Promise<{ running: string[]; queued: string[] }> {
  // In `set`, `status` is the row's status before this update.
  const rows = await sql<{ publicId: string; wasQueued: boolean }[]>`
    update ai_runs set status = 'failed', finished_at = ${now},
      error_message = case when status = 'running' then ${messages.running}
                           else ${messages.queued} end
    where (status = 'running' and started_at < ${cutoff})
       or (status = 'queued' and created_at < ${cutoff})
    returning public_id as "publicId", error_message = ${messages.queued} as "wasQueued"`;
  return {
    running: rows.filter((r) => !r.wasQueued).map((r) => r.publicId),
    queued: rows.filter((r) => r.wasQueued).map((r) => r.publicId),
  };
}

export interface RunOutcome {
  status: "succeeded" | "failed";
  inputTokens: number;
  outputTokens: number;
  numTurns: number;
  costUsd: number;
  errorMessage: string | null;
  /** Why a skill's preflight ended the run before any model call (it succeeded, no artifact). */
  skippedReason?: string | null;
  runLog: unknown[];
}

/** queued/running → succeeded/failed with the runner's figures; null when already concluded. */
export async function concludeRun(tx: Queryable, id: string, outcome: RunOutcome, now: Date) {
  return await maybeOne(tx<RunRow[]>`
    with costed as (
      update ai_runs r set status = ${outcome.status}, finished_at = ${now},
        started_at = coalesce(r.started_at, ${now}), result_received_at = ${now},
        input_tokens = ${outcome.inputTokens}, output_tokens = ${outcome.outputTokens},
        num_turns = ${outcome.numTurns}, cost_usd = ${outcome.costUsd},
        error_message = ${outcome.errorMessage},
        skipped_reason = ${outcome.skippedReason ?? null},
        run_log = ${tx.json(outcome.runLog as never)}::jsonb
      from (select id, cost_usd from ai_runs where id = ${id} for update) was
      where r.id = was.id and r.status = any(${CONCLUDABLE})
      returning r.*, r.cost_usd - was.cost_usd as delta
    ), ${spent(tx)}
    select ${runColumns(tx)} from costed`);
}

/**
 * A result for a run that already ended without one (the stale sweep, a cancel): its usage and
 * log are recorded once, the run stays failed. Null when the run had its result already.
 */
export async function recordLateResult(
  tx: Queryable,
  id: string,
  outcome: Omit<RunOutcome, "status" | "errorMessage">,
  now: Date,
) {
  return await maybeOne(tx<RunRow[]>`
    with costed as (
      update ai_runs r set result_received_at = ${now},
        input_tokens = ${outcome.inputTokens}, output_tokens = ${outcome.outputTokens},
        num_turns = ${outcome.numTurns}, cost_usd = ${outcome.costUsd},
        run_log = ${tx.json(outcome.runLog as never)}::jsonb
      from (select id, cost_usd from ai_runs where id = ${id} for update) was
      where r.id = was.id and r.status = 'failed' and r.result_received_at is null
      returning r.*, r.cost_usd - was.cost_usd as delta
    ), ${spent(tx)}
    select ${runColumns(tx)} from costed`);
}

/**
 * Removes the traces of up to `limit` runs that ended before `before`, oldest first (a range of
 * `ai_runs_log_kept_idx`, which holds only runs that still have one), noting when; the runs
 * themselves, their figures and artifacts stay. How many.
 */
export async function removeRunLogs(
  sql: Queryable,
  before: Date,
  now: Date,
  limit: number,
): Promise<number> {
  const updated = await sql`
    update ai_runs set run_log = null, run_log_removed_at = ${now}
    where id = any(array(
      select id from ai_runs where run_log is not null and finished_at < ${before}
      order by finished_at limit ${limit}))`;
  return updated.count;
}
