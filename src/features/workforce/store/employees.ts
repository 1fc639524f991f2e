/** SQL of `ai_employees`: reads, the insert, the edit, archiving. */
import { maybeOne, one, type Queryable } from "../../../platform/db.ts";
import { isUniqueViolation, unlessViolated } from "../../../platform/db-errors.ts";
import { publicId } from "../../../platform/ids.ts";
import { keyset } from "../../../graphql/pagination.ts";
import type { EmployeePatchValues, NewEmployeeValues, PromotionCounts } from "../rules.ts";
import { CREATED_KEY, employeeColumns, type EmployeeRow, type Window } from "./rows.ts";

export async function listEmployees(sql: Queryable): Promise<EmployeeRow[]> {
  return await sql<EmployeeRow[]>`select ${employeeColumns(sql)} from ai_employees order by id`;
}

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

/** The employee as it is now, locked for an edit until the caller's transaction ends. */
export async function lockEmployeeForUpdate(
  tx: Queryable,
  id: string,
): Promise<EmployeeRow | null> {
  return await maybeOne(tx<EmployeeRow[]>`
    select ${employeeColumns(tx)} from ai_employees where id = ${id} for update`);
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

/**
 * The decision counts behind the promotion figures of several employees (docs/workforce.md),
 * kept on the employee; human rejections reviewed after `recentSince` count as recent: the kept
 * days after the one holding `recentSince`, and that day's rest read through the review-time
 * index, so the window's days, not the history, set the cost.
 */
export async function promotionCountsByIds(
  sql: Queryable,
  ids: readonly string[],
  recentSince: Date,
): Promise<Map<string, PromotionCounts>> {
  const nextDay = new Date(
    Date.UTC(recentSince.getUTCFullYear(), recentSince.getUTCMonth(), recentSince.getUTCDate() + 1),
  );
  const rows = await sql<({ employeeId: string } & PromotionCounts)[]>`
    select e.id::text as "employeeId", e.approved_count as approved,
      e.rejected_count as rejected, e.auto_rejected_count as "autoRejected",
      ((select coalesce(sum(d.rejections), 0) from ai_employee_days d
        where d.employee_id = e.id and d.day >= ${nextDay.toISOString().slice(0, 10)}::date)
       + (select count(*) from ai_artifacts a
          where a.employee_id = e.id and a.reviewed_at > ${recentSince}
            and a.reviewed_at < ${nextDay} and a.approval_status = 'rejected'))::int
        as "recentRejections",
      (select min(r.created_at) from ai_runs r where r.employee_id = e.id) as "firstRunAt"
    from ai_employees e
    where e.id = any(${ids as string[]}::bigint[])`;
  return new Map(rows.map(({ employeeId, ...counts }) => [employeeId, counts]));
}

/** Inserts an employee; `role_taken` when another one has its role. */
export async function insertEmployee(
  tx: Queryable,
  values: NewEmployeeValues,
  now: Date,
): Promise<EmployeeRow | "role_taken"> {
  const [row] = await tx<EmployeeRow[]>`
    insert into ai_employees (public_id, name, role, description, task_prompt,
      monthly_budget_cents, model_preference, schedule_cron, autonomy_level, active, skills,
      post_filter_skill, tools, allowed_kinds, created_at, updated_at)
    values (${publicId()}, ${values.name}, ${values.role}, ${values.description},
      ${values.taskPrompt}, ${values.monthlyBudgetCents}, ${values.modelPreference},
      ${values.scheduleCron}, ${values.autonomyLevel}, ${values.active}, ${values.skills},
      ${values.postFilterSkill}, ${values.tools}::text[], ${values.allowedKinds}::text[],
      ${now}, ${now})
    on conflict (role) do nothing
    returning ${employeeColumns(tx)}`;
  return row ?? "role_taken";
}

/**
 * Updates an employee: each value given replaces the stored one; `role_taken` when another
 * employee has the new role.
 */
export async function updateEmployee(
  tx: Queryable,
  id: string,
  values: EmployeePatchValues,
  now: Date,
): Promise<EmployeeRow | "role_taken"> {
  const set = <T>(value: T | undefined) => value === undefined ? null : value;
  return await unlessViolated(isUniqueViolation, "role_taken" as const, () =>
    one(tx<EmployeeRow[]>`
      update ai_employees set
        name = coalesce(${set(values.name)}, name),
        role = coalesce(${set(values.role)}, role),
        description = coalesce(${set(values.description)}, description),
        task_prompt = coalesce(${set(values.taskPrompt)}, task_prompt),
        monthly_budget_cents = coalesce(${set(values.monthlyBudgetCents)}, monthly_budget_cents),
        model_preference = coalesce(${set(values.modelPreference)}, model_preference),
        schedule_cron = case when ${values.scheduleCron !== undefined}
          then ${values.scheduleCron ?? null} else schedule_cron end,
        skills = coalesce(${set(values.skills)}::text[], skills),
        tools = coalesce(${set(values.tools)}::text[], tools),
        allowed_kinds = coalesce(${set(values.allowedKinds)}::text[], allowed_kinds),
        post_filter_skill = case when ${values.postFilterSkill !== undefined}
          then ${values.postFilterSkill ?? null} else post_filter_skill end,
        active = coalesce(${set(values.active)}, active),
        autonomy_level = ${values.autonomyLevel},
        promotion_confirmed_at = ${values.promotionConfirmedAt},
        updated_at = ${now}
      where id = ${id}
      returning ${employeeColumns(tx)}`));
}
