/** SQL for the AI workforce. Every state transition is one guarded statement. */
import { maybeOne, one, type Queryable } from "../../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../../platform/db-errors.ts";
import { type ArtifactKind, RECENT_REJECTIONS_KEY } from "../../platform/contract/mod.ts";
import { publicId } from "../../platform/ids.ts";
import { type KeyColumn, keyset, type PageWindow } from "../../graphql/pagination.ts";
import {
  allowedKindsProblem,
  appendRejection,
  approvalRate,
  type ApprovalStatus,
  type AutonomyLevel,
  CONCLUDABLE,
  defaultAllowedKinds,
  type EmployeeInput,
  monthOf,
  promotionRequirementsMet,
  type PromotionStats,
  requestedLevel,
  type RunStatus,
  type WeekCounts,
  weeksActive,
} from "./rules.ts";

export interface EmployeeRow {
  id: string;
  publicId: string;
  name: string;
  role: string;
  description: string;
  taskPrompt: string;
  monthlyBudgetCents: number;
  modelPreference: string;
  scheduleCron: string | null;
  autonomyLevel: AutonomyLevel;
  active: boolean;
  skills: string[];
  postFilterSkill: string | null;
  /** Tools beyond the built-in ones. */
  tools: string[];
  /** The artifact kinds it may produce. */
  allowedKinds: ArtifactKind[];
  promotionConfirmedAt: Date | null;
  /** When it was archived (never active again until unarchived); null otherwise. */
  archivedAt: Date | null;
  createdAt: Date;
}

export interface RunRow {
  id: string;
  publicId: string;
  employeeId: string;
  status: RunStatus;
  trigger: "schedule" | "manual";
  /** The cron slot a scheduled run was started for; null for a manual run. */
  scheduledFor: Date | null;
  /** Why a skill's preflight ended the run before any model call; null otherwise. */
  skippedReason: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  inputTokens: number;
  outputTokens: number;
  numTurns: number;
  costUsd: number;
  errorMessage: string | null;
  runLog: unknown[] | null;
  /** When the runner's result arrived; null for a run that ended without one (yet). */
  resultReceivedAt: Date | null;
  cancelRequestedAt: Date | null;
  createdAt: Date;
}

export interface ArtifactRow {
  id: string;
  publicId: string;
  runId: string;
  employeeId: string;
  kind: ArtifactKind;
  title: string;
  payload: string;
  originalPayload: string | null;
  approvalStatus: ApprovalStatus;
  postFilterReason: string | null;
  /** The grounding check's figures that none of the run's sources hold; null: not checked. */
  unsupportedFigures: string[] | null;
  /** The commit a `code_patch` was made at (DESIGN 3.4); null: not reported. */
  baseSha: string | null;
  /** The paths the runner reports a `code_patch` touches; null: not reported. */
  patchFiles: string[] | null;
  /** The patch check's verdict; null: not a `code_patch`, or the check is queued. */
  patchCheck: PatchCheckStatus | null;
  /** Why it does not apply, or why it was not checked. */
  patchCheckReason: string | null;
  /** The commit the check read the files at. */
  patchCheckedSha: string | null;
  patchCheckedAt: Date | null;
  editDistance: number | null;
  editRatio: number | null;
  reviewerId: string | null;
  autoApproved: boolean;
  reviewedAt: Date | null;
  rejectionReason: string | null;
  deliveredAt: Date | null;
  deliveryStatus: "delivered" | "failed" | null;
  deliveryMetadata: unknown;
  createdAt: Date;
}

/** What the patch check found (docs/delivery.md, "Code patches"). */
export type PatchCheckStatus = "applies" | "does_not_apply" | "not_checked";

export interface MemoryRow {
  employeeId: string;
  key: string;
  value: unknown;
  updatedAt: Date;
}

const employeeColumns = (sql: Queryable) =>
  sql`id::text as id, public_id as "publicId", name, role, description, task_prompt as "taskPrompt",
      monthly_budget_cents as "monthlyBudgetCents", model_preference as "modelPreference",
      schedule_cron as "scheduleCron", autonomy_level as "autonomyLevel", active, skills,
      post_filter_skill as "postFilterSkill", tools, allowed_kinds as "allowedKinds",
      promotion_confirmed_at as "promotionConfirmedAt",
      archived_at as "archivedAt", created_at as "createdAt"`;

const runColumns = (sql: Queryable) =>
  sql`id::text as id, public_id as "publicId", employee_id::text as "employeeId", status, trigger,
      scheduled_for as "scheduledFor", skipped_reason as "skippedReason", started_at as "startedAt", finished_at as "finishedAt", input_tokens as "inputTokens",
      output_tokens as "outputTokens", num_turns as "numTurns", cost_usd::float8 as "costUsd",
      error_message as "errorMessage", run_log as "runLog",
      result_received_at as "resultReceivedAt", cancel_requested_at as "cancelRequestedAt",
      created_at as "createdAt"`;

const artifactColumns = (sql: Queryable) =>
  sql`id::text as id, public_id as "publicId", run_id::text as "runId",
      employee_id::text as "employeeId", kind, title, payload, original_payload as "originalPayload",
      approval_status as "approvalStatus", post_filter_reason as "postFilterReason",
      unsupported_figures as "unsupportedFigures", base_sha as "baseSha",
      patch_files as "patchFiles", patch_check as "patchCheck",
      patch_check_reason as "patchCheckReason", patch_checked_sha as "patchCheckedSha",
      patch_checked_at as "patchCheckedAt", edit_distance as "editDistance", edit_ratio as "editRatio",
      reviewer_id::text as "reviewerId", auto_approved as "autoApproved",
      reviewed_at as "reviewedAt", rejection_reason as "rejectionReason",
      delivered_at as "deliveredAt", delivery_status as "deliveryStatus",
      delivery_metadata as "deliveryMetadata", created_at as "createdAt"`;

// ---------------------------------------------------------------------------------------------
// Employees

export async function listEmployees(sql: Queryable): Promise<EmployeeRow[]> {
  return await sql<EmployeeRow[]>`select ${employeeColumns(sql)} from ai_employees order by id`;
}

/** Keyset of the employee, run and pending-artifact connections: `[createdAt, publicId]`. */
export const CREATED_KEY: KeyColumn[] = [
  { column: "created_at", cast: "timestamptz" },
  { column: "public_id" },
];
type Window = PageWindow<readonly (string | number)[]>;

/** A window of `aiEmployeesConnection`, oldest first. */
export async function employeesPage(sql: Queryable, window: Window): Promise<EmployeeRow[]> {
  const k = keyset(sql, CREATED_KEY, "asc", window);
  return await sql<EmployeeRow[]>`
    select ${employeeColumns(sql)} from ai_employees where ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

export async function employeeCount(sql: Queryable): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ai_employees`;
  return row.n;
}

export async function employeesByIds(sql: Queryable, ids: readonly string[]) {
  return await sql<EmployeeRow[]>`
    select ${employeeColumns(sql)} from ai_employees where id = any(${ids as string[]}::bigint[])`;
}

export async function employeeByPublicId(sql: Queryable, id: string): Promise<EmployeeRow | null> {
  return await maybeOne(sql<EmployeeRow[]>`
    select ${employeeColumns(sql)} from ai_employees where public_id = ${id}`);
}

export async function employeeByRole(sql: Queryable, role: string): Promise<EmployeeRow | null> {
  return await maybeOne(sql<EmployeeRow[]>`
    select ${employeeColumns(sql)} from ai_employees where role = ${role}`);
}

export async function activeScheduledEmployees(sql: Queryable): Promise<EmployeeRow[]> {
  return await sql<EmployeeRow[]>`
    select ${employeeColumns(sql)} from ai_employees
    where active and schedule_cron is not null order by id`;
}

/**
 * The employee as it is now, locked against archiving (`for share`) until the caller's
 * transaction ends: a run is only queued for an employee that is not archived at that moment.
 */
export async function lockEmployeeForRun(tx: Queryable, id: string): Promise<EmployeeRow | null> {
  return await maybeOne(tx<EmployeeRow[]>`
    select ${employeeColumns(tx)} from ai_employees where id = ${id} for share`);
}

/**
 * Archives an employee that is not archived (inactive from now on) and fails its queued run, if
 * any, which the runner has not got yet; a running run goes on. Null when it already was.
 */
export async function archiveEmployee(
  tx: Queryable,
  id: string,
  message: string,
  now: Date,
): Promise<EmployeeRow | null> {
  return await maybeOne(tx<EmployeeRow[]>`
    with e as (
      update ai_employees set archived_at = ${now}, active = false, updated_at = ${now}
      where id = ${id} and archived_at is null
      returning *
    ), queued as (
      update ai_runs set status = 'failed', error_message = ${message}, finished_at = ${now}
      where employee_id in (select id from e) and status = 'queued'
      returning 1
    )
    select ${employeeColumns(tx)} from e`);
}

/** Unarchives an archived employee; it stays paused until resumed. Null when it was not archived. */
export async function unarchiveEmployee(
  sql: Queryable,
  id: string,
  now: Date,
): Promise<EmployeeRow | null> {
  return await maybeOne(sql<EmployeeRow[]>`
    update ai_employees set archived_at = null, updated_at = ${now}
    where id = ${id} and archived_at is not null
    returning ${employeeColumns(sql)}`);
}

/** Promotion figures of several employees at `now` (docs/workforce.md defines them). */
export async function promotionStatsByIds(
  sql: Queryable,
  ids: readonly string[],
  now: Date,
): Promise<Map<string, PromotionStats>> {
  const twoWeeksAgo = new Date(now.getTime() - 14 * 86_400_000);
  const rows = await sql<
    {
      employeeId: string;
      approved: number;
      rejected: number;
      autoRejected: number;
      recentRejections: number;
      firstRunAt: Date | null;
    }[]
  >`
    select e.id::text as "employeeId",
      coalesce(a.approved, 0)::int as approved,
      coalesce(a.rejected, 0)::int as rejected,
      coalesce(a.auto_rejected, 0)::int as "autoRejected",
      coalesce(a.recent_rejections, 0)::int as "recentRejections",
      (select min(r.created_at) from ai_runs r where r.employee_id = e.id) as "firstRunAt"
    from ai_employees e
    left join (
      select employee_id,
        count(*) filter (where approval_status = 'approved' and not auto_approved) as approved,
        count(*) filter (where approval_status = 'rejected') as rejected,
        count(*) filter (where approval_status = 'auto_rejected') as auto_rejected,
        count(*) filter (where approval_status = 'rejected'
                         and reviewed_at > ${twoWeeksAgo}) as recent_rejections
      from ai_artifacts
      where employee_id = any(${ids as string[]}::bigint[])
      group by employee_id
    ) a on a.employee_id = e.id
    where e.id = any(${ids as string[]}::bigint[])`;
  return new Map(rows.map((r) => [r.employeeId, {
    approvalRate: approvalRate(r.approved, r.rejected, r.autoRejected),
    weeksActive: weeksActive(r.firstRunAt, now),
    recentRejections: r.recentRejections,
  }]));
}

const ZERO_STATS: PromotionStats = { approvalRate: null, weeksActive: 0, recentRejections: 0 };

export type EmployeeWrite =
  & EmployeeInput
  & { autonomyLevel?: AutonomyLevel; active?: boolean; confirmPromotion?: boolean };

/** `promotion_requirements_met` failed: the message is the user error. */
export class PromotionRefused extends Error {}

/** The employee is archived: it cannot be edited, paused or resumed until unarchived. */
export class EmployeeArchived extends Error {}

/** The role may not produce the allowed kinds asked for: the message is the user error. */
export class KindsRefused extends Error {}

/**
 * Inserts an employee. The autonomy validation applies here too: a new employee has no history,
 * so only `shadow` passes.
 */
export async function insertEmployee(
  tx: Queryable,
  input: EmployeeWrite & { name: string; role: string; taskPrompt: string },
  now: Date,
): Promise<EmployeeRow | "role_taken"> {
  const level = input.autonomyLevel ?? "shadow";
  const refused = promotionRequirementsMet({
    from: "shadow",
    to: level,
    role: input.role,
    stats: ZERO_STATS,
    confirmPromotion: input.confirmPromotion ?? false,
  });
  if (refused) throw new PromotionRefused(refused);
  const allowedKinds = input.allowedKinds ?? defaultAllowedKinds(input.role);
  const kindsRefused = allowedKindsProblem(input.role, allowedKinds);
  if (kindsRefused) throw new KindsRefused(kindsRefused);
  const [row] = await tx<EmployeeRow[]>`
    insert into ai_employees (public_id, name, role, description, task_prompt,
      monthly_budget_cents, model_preference, schedule_cron, autonomy_level, active, skills,
      post_filter_skill, tools, allowed_kinds, created_at, updated_at)
    values (${publicId()}, ${input.name.trim()}, ${input.role}, ${input.description ?? ""},
      ${input.taskPrompt}, ${input.monthlyBudgetCents ?? 3000},
      ${input.modelPreference ?? "gpt-4o-mini"}, ${input.scheduleCron || null}, ${level},
      ${input.active ?? true}, ${input.skills ?? []}, ${input.postFilterSkill || null},
      ${input.tools ?? []}::text[], ${allowedKinds}::text[], ${now}, ${now})
    on conflict (role) do nothing
    returning ${employeeColumns(tx)}`;
  return row ?? "role_taken";
}

/**
 * Updates an employee. Every change of `autonomyLevel` goes through `promotion_requirements_met`
 * with figures read in the same transaction (the row is locked first), so no caller can skip it.
 */
export async function updateEmployee(
  tx: Queryable,
  id: string,
  patch: EmployeeWrite,
  now: Date,
): Promise<EmployeeRow | "role_taken"> {
  const [current] = await tx<EmployeeRow[]>`
    select ${employeeColumns(tx)} from ai_employees where id = ${id} for update`;
  if (!current) throw new Error(`employee ${id} vanished`);
  if (current.archivedAt) {
    throw new EmployeeArchived("the employee is archived; unarchive it first");
  }
  const requested = requestedLevel(
    current.autonomyLevel,
    patch.autonomyLevel,
    patch.confirmPromotion ?? false,
  );
  if ("error" in requested) throw new PromotionRefused(requested.error);
  const to = requested.to;
  const role = patch.role ?? current.role;
  const kindsRefused = allowedKindsProblem(role, patch.allowedKinds ?? current.allowedKinds);
  if (kindsRefused) throw new KindsRefused(kindsRefused);
  let confirmed: Date | null = current.promotionConfirmedAt;
  if (to !== current.autonomyLevel || role !== current.role) {
    const stats = (await promotionStatsByIds(tx, [id], now)).get(id) ?? ZERO_STATS;
    const refused = promotionRequirementsMet({
      from: current.autonomyLevel,
      to,
      role,
      stats,
      confirmPromotion: patch.confirmPromotion ?? false,
    });
    if (refused) throw new PromotionRefused(refused);
    if (to === "autonomous" && current.autonomyLevel !== "autonomous") confirmed = now;
  }
  const set = <T>(value: T | undefined) => value === undefined ? null : value;
  return await unlessViolated(isUniqueViolation, "role_taken" as const, () =>
    one(tx<EmployeeRow[]>`
      update ai_employees set
        name = coalesce(${set(patch.name?.trim())}, name),
        role = coalesce(${set(patch.role)}, role),
        description = coalesce(${set(patch.description)}, description),
        task_prompt = coalesce(${set(patch.taskPrompt)}, task_prompt),
        monthly_budget_cents = coalesce(${set(patch.monthlyBudgetCents)}, monthly_budget_cents),
        model_preference = coalesce(${set(patch.modelPreference)}, model_preference),
        schedule_cron = case when ${patch.scheduleCron !== undefined}
          then ${patch.scheduleCron || null} else schedule_cron end,
        skills = coalesce(${set(patch.skills)}::text[], skills),
        tools = coalesce(${set(patch.tools)}::text[], tools),
        allowed_kinds = coalesce(${set(patch.allowedKinds)}::text[], allowed_kinds),
        post_filter_skill = case when ${patch.postFilterSkill !== undefined}
          then ${patch.postFilterSkill || null} else post_filter_skill end,
        active = coalesce(${set(patch.active)}, active),
        autonomy_level = ${to},
        promotion_confirmed_at = ${confirmed},
        updated_at = ${now}
      where id = ${id}
      returning ${employeeColumns(tx)}`));
}

// ---------------------------------------------------------------------------------------------
// Memories

export async function memoriesByEmployeeIds(sql: Queryable, ids: readonly string[]) {
  return await sql<MemoryRow[]>`
    select employee_id::text as "employeeId", key, value, updated_at as "updatedAt"
    from ai_employee_memories where employee_id = any(${ids as string[]}::bigint[])
    order by employee_id, key`;
}

/** Upserts the keys a run stored; `recent_rejections` belongs to the service and is skipped. */
export async function upsertMemories(
  tx: Queryable,
  employeeId: string,
  memory: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const entries = Object.entries(memory).filter(([key]) => key !== RECENT_REJECTIONS_KEY);
  if (!entries.length) return;
  await tx`
    insert into ai_employee_memories (employee_id, key, value, updated_at)
    select ${employeeId}, e.key, e.value, ${now}
    from jsonb_each(${tx.json(Object.fromEntries(entries) as never)}::jsonb) as e(key, value)
    on conflict (employee_id, key) do update set value = excluded.value,
      updated_at = excluded.updated_at`;
}

/** Appends a rejection reason to `recent_rejections` (FIFO, newest five) under a row lock. */
export async function appendRecentRejection(
  tx: Queryable,
  employeeId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await tx`
    insert into ai_employee_memories (employee_id, key, value, updated_at)
    values (${employeeId}, ${RECENT_REJECTIONS_KEY}, '[]'::jsonb, ${now})
    on conflict (employee_id, key) do nothing`;
  const [row] = await tx<{ value: unknown }[]>`
    select value from ai_employee_memories
    where employee_id = ${employeeId} and key = ${RECENT_REJECTIONS_KEY} for update`;
  const next = appendRejection(row?.value, reason);
  await tx`
    update ai_employee_memories set value = ${tx.json(next)}::jsonb, updated_at = ${now}
    where employee_id = ${employeeId} and key = ${RECENT_REJECTIONS_KEY}`;
}

// ---------------------------------------------------------------------------------------------
// Runs

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

/** Spend (USD) of each employee in the UTC month of `now`. */
export async function monthSpendByIds(
  sql: Queryable,
  ids: readonly string[],
  now: Date,
): Promise<Map<string, number>> {
  const { start, end } = monthOf(now);
  const rows = await sql<{ employeeId: string; spend: number }[]>`
    select employee_id::text as "employeeId", sum(cost_usd)::float8 as spend from ai_runs
    where employee_id = any(${ids as string[]}::bigint[])
      and created_at >= ${start} and created_at < ${end}
    group by employee_id`;
  return new Map(rows.map((r) => [r.employeeId, r.spend]));
}

/** Spend (USD) of the whole workforce in the UTC month of `now`. */
export async function workforceMonthSpend(sql: Queryable, now: Date): Promise<number> {
  const { start, end } = monthOf(now);
  const [row] = await sql<{ spend: number }[]>`
    select coalesce(sum(cost_usd), 0)::float8 as spend from ai_runs
    where created_at >= ${start} and created_at < ${end}`;
  return row.spend;
}

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
    update ai_runs set status = ${outcome.status}, finished_at = ${now},
      started_at = coalesce(started_at, ${now}), result_received_at = ${now},
      input_tokens = ${outcome.inputTokens}, output_tokens = ${outcome.outputTokens},
      num_turns = ${outcome.numTurns}, cost_usd = ${outcome.costUsd},
      error_message = ${outcome.errorMessage}, skipped_reason = ${outcome.skippedReason ?? null},
      run_log = ${tx.json(outcome.runLog as never)}::jsonb
    where id = ${id} and status = any(${CONCLUDABLE})
    returning ${runColumns(tx)}`);
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
    update ai_runs set result_received_at = ${now},
      input_tokens = ${outcome.inputTokens}, output_tokens = ${outcome.outputTokens},
      num_turns = ${outcome.numTurns}, cost_usd = ${outcome.costUsd},
      run_log = ${tx.json(outcome.runLog as never)}::jsonb
    where id = ${id} and status = 'failed' and result_received_at is null
    returning ${runColumns(tx)}`);
}

// ---------------------------------------------------------------------------------------------
// Artifacts

export async function artifactsByRunIds(sql: Queryable, ids: readonly string[]) {
  return await sql<ArtifactRow[]>`
    select ${
    artifactColumns(sql)
  } from ai_artifacts where run_id = any(${ids as string[]}::bigint[])
    order by id`;
}

export async function artifactByPublicId(sql: Queryable, id: string): Promise<ArtifactRow | null> {
  return await maybeOne(sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts where public_id = ${id}`);
}

export async function pendingArtifacts(sql: Queryable): Promise<ArtifactRow[]> {
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts where approval_status = 'pending'
    order by created_at, id`;
}

/** A window of `pendingArtifactsConnection`, oldest first. */
export async function pendingArtifactsPage(sql: Queryable, window: Window): Promise<ArtifactRow[]> {
  const k = keyset(sql, CREATED_KEY, "asc", window);
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts
    where approval_status = 'pending' and ${k.where} order by ${k.orderBy} limit ${k.limit}`;
}

export async function pendingArtifactCount(sql: Queryable): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ai_artifacts where approval_status = 'pending'`;
  return row.n;
}

/** The filters of `aiArtifacts`; each one given narrows the list. */
export interface ArtifactFilter {
  approvalStatus?: ApprovalStatus | null;
  deliveryStatus?: "delivered" | "failed" | null;
  /** An employee's public id. */
  employeeId?: string | null;
}

function artifactFilter(sql: Queryable, filter: ArtifactFilter) {
  const parts = [
    filter.approvalStatus ? sql`approval_status = ${filter.approvalStatus}` : null,
    filter.deliveryStatus ? sql`delivery_status = ${filter.deliveryStatus}` : null,
    filter.employeeId
      ? sql`employee_id = (select id from ai_employees where public_id = ${filter.employeeId})`
      : null,
  ].filter((p) => p !== null);
  return parts.length ? parts.reduce((acc, p) => sql`${acc} and ${p}`) : sql`true`;
}

/** A window of `aiArtifacts`, newest first, in one statement. */
export async function artifactsPage(
  sql: Queryable,
  filter: ArtifactFilter,
  window: Window,
): Promise<ArtifactRow[]> {
  const k = keyset(sql, CREATED_KEY, "desc", window);
  return await sql<ArtifactRow[]>`
    select ${artifactColumns(sql)} from ai_artifacts
    where ${artifactFilter(sql, filter)} and ${k.where} order by ${k.orderBy} limit ${k.limit}`;
}

export async function artifactCount(sql: Queryable, filter: ArtifactFilter): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ai_artifacts where ${artifactFilter(sql, filter)}`;
  return row.n;
}

export async function insertArtifact(
  tx: Queryable,
  input: {
    runId: string;
    employeeId: string;
    kind: ArtifactKind;
    title: string;
    payload: string;
    approvalStatus: ApprovalStatus;
    postFilterReason: string | null;
    /** Set with `approvalStatus` auto_rejected for a refusal other than the post-filter's. */
    rejectionReason?: string | null;
    unsupportedFigures?: string[] | null;
    baseSha?: string | null;
    patchFiles?: string[] | null;
  },
  now: Date,
): Promise<ArtifactRow | null> {
  return await maybeOne(tx<ArtifactRow[]>`
    insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
      approval_status, post_filter_reason, rejection_reason, unsupported_figures, base_sha,
      patch_files, created_at)
    values (${publicId()}, ${input.runId}, ${input.employeeId}, ${input.kind}, ${input.title},
      ${input.payload}, ${input.approvalStatus}, ${input.postFilterReason},
      ${input.rejectionReason ?? null}, ${input.unsupportedFigures ?? null}::text[],
      ${input.baseSha ?? null}, ${input.patchFiles ?? null}::text[], ${now})
    on conflict (run_id) do nothing
    returning ${artifactColumns(tx)}`);
}

/**
 * pending → approved; with an edit, the payload becomes the edit and the original is kept, and a
 * patch check of the original is dropped (it says nothing about the edit).
 */
export async function approveArtifact(
  tx: Queryable,
  id: string,
  review: {
    reviewerId: string | null;
    edited: { payload: string; editDistance: number; editRatio: number } | null;
  },
  now: Date,
): Promise<ArtifactRow | null> {
  const edited = review.edited;
  return await maybeOne(tx<ArtifactRow[]>`
    update ai_artifacts set approval_status = 'approved',
      original_payload = case when ${edited !== null} then payload else original_payload end,
      payload = coalesce(${edited?.payload ?? null}, payload),
      edit_distance = ${edited?.editDistance ?? null},
      edit_ratio = ${edited?.editRatio ?? null},
      patch_check = case when ${edited !== null} then null else patch_check end,
      patch_check_reason = case when ${edited !== null} then null else patch_check_reason end,
      patch_checked_sha = case when ${edited !== null} then null else patch_checked_sha end,
      patch_checked_at = case when ${edited !== null} then null else patch_checked_at end,
      reviewer_id = ${review.reviewerId}, auto_approved = ${review.reviewerId === null},
      reviewed_at = ${now}
    where id = ${id} and approval_status = 'pending'
    returning ${artifactColumns(tx)}`);
}

/** pending → rejected with the reason. */
export async function rejectArtifact(
  tx: Queryable,
  id: string,
  reviewerId: string,
  reason: string,
  now: Date,
): Promise<ArtifactRow | null> {
  return await maybeOne(tx<ArtifactRow[]>`
    update ai_artifacts set approval_status = 'rejected', rejection_reason = ${reason},
      reviewer_id = ${reviewerId}, reviewed_at = ${now}
    where id = ${id} and approval_status = 'pending'
    returning ${artifactColumns(tx)}`);
}

export interface WeeklyCounts extends WeekCounts {
  employeeId: string;
}

/** Decisions per employee and ISO week (by artifact creation) since `since`. */
export async function weeklyCountsByIds(sql: Queryable, ids: readonly string[], since: Date) {
  return await sql<WeeklyCounts[]>`
    select employee_id::text as "employeeId",
      (date_trunc('week', created_at at time zone 'UTC') at time zone 'UTC') as "weekStart",
      count(*) filter (where approval_status = 'approved' and not auto_approved)::int as approved,
      count(*) filter (where approval_status = 'rejected')::int as rejected,
      count(*) filter (where approval_status = 'auto_rejected')::int as "autoRejected",
      count(*) filter (where approval_status = 'approved' and auto_approved)::int as "autoApproved"
    from ai_artifacts
    where employee_id = any(${ids as string[]}::bigint[]) and created_at >= ${since}
    group by 1, 2 order by 1, 2`;
}

// ---------------------------------------------------------------------------------------------
// Scheduler and alerts

/** Claims (employee, slot); true only for the one caller that inserted it. */
export async function claimScheduleSlot(
  tx: Queryable,
  employeeId: string,
  slot: Date,
  now: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into ai_schedule_fires (employee_id, slot, fired_at) values (${employeeId}, ${slot}, ${now})
    on conflict do nothing returning slot`;
  return rows.length === 1;
}

/** Claims an alert (subject, month, level); true only the first time. */
export async function claimAlert(
  tx: Queryable,
  subject: string,
  month: string,
  level: string,
  now: Date,
): Promise<boolean> {
  const rows = await tx`
    insert into ai_budget_alerts (subject, month, level, sent_at)
    values (${subject}, ${month}, ${level}, ${now})
    on conflict do nothing returning level`;
  return rows.length === 1;
}
