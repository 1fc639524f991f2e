/**
 * Use cases of AI employees: `createEmployee`, `updateEmployee`, `pauseEmployee`,
 * `archiveEmployee`, `unarchiveEmployee`, and `seedEmployees` (`main.ts seed-employees`, the demo
 * loader). Every change of `autonomyLevel` goes through `promotion_requirements_met` with figures
 * read in the transaction that changes it (the row locked first), so no caller can skip it.
 */
import { refusableTransaction } from "../../../platform/db.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import {
  allowedKindsProblem,
  ARCHIVED_EDIT_MESSAGE,
  ARCHIVED_RUN_MESSAGE,
  type AutonomyLevel,
  autonomyLevelOf,
  codedError,
  employeeInputErrors,
  employeePatchValues,
  type EmployeeWrite,
  invalidAutonomyLevel,
  newEmployeeValues,
  notFound,
  promotionRequirementsMet,
  promotionStatsOf,
  recentRejectionsSince,
  refuse,
  requestedLevel,
  type WorkforceError,
  ZERO_STATS,
} from "../rules.ts";
import * as store from "../store.ts";
import type { EmployeeRow } from "../store.ts";
import { type Actor, findEmployee, type WorkforceServiceDeps } from "./shared.ts";

type Deps = Pick<WorkforceServiceDeps, "db" | "clock">;

export interface EmployeePayload {
  employee: EmployeeRow | null;
  /** `archiveAiEmployee`: the employee was archived already (nothing changed). */
  alreadyArchived?: boolean;
  /** `unarchiveAiEmployee`: the employee was not archived (nothing changed). */
  alreadyUnarchived?: boolean;
  errors: WorkforceError[];
}

/** An employee's fields as a client gives them: `autonomyLevel` is not parsed yet. */
export type EmployeeFields = Omit<EmployeeWrite, "autonomyLevel"> & { autonomyLevel?: string };

const refused = (...errors: WorkforceError[]): EmployeePayload => ({ employee: null, errors });

/** The input's errors and its autonomy level (undefined: not given). */
function parseFields(fields: EmployeeFields, creating: boolean) {
  const errors = employeeInputErrors(fields, creating);
  const level = autonomyLevelOf(fields.autonomyLevel);
  if (level === "invalid") errors.push(invalidAutonomyLevel());
  return { errors, level: level === "invalid" ? undefined : level };
}

/** The field a promotion refusal names: `confirmPromotion` when only that was given. */
const promotionField = (fields: EmployeeFields) =>
  fields.autonomyLevel === undefined && fields.confirmPromotion
    ? "confirmPromotion"
    : "autonomyLevel";

/**
 * Creates an employee. The autonomy validation applies here too: a new employee has no history,
 * so only `shadow` passes.
 */
export async function createEmployee(
  deps: Deps,
  actor: Actor,
  input: EmployeeFields & IdempotencyInput,
): Promise<EmployeePayload> {
  const retry = await retrySafe(deps, "createAiEmployee", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const { errors, level } = parseFields(input, true);
  if (errors.length) return refused(...errors);
  const values = newEmployeeValues({
    ...input,
    name: input.name!,
    role: input.role!,
    taskPrompt: input.taskPrompt!,
    autonomyLevel: level,
  });
  const promotion = promotionRequirementsMet({
    from: "shadow",
    to: values.autonomyLevel,
    role: values.role,
    stats: ZERO_STATS,
    confirmPromotion: input.confirmPromotion ?? false,
  });
  if (promotion) return refused(codedError(promotion, promotionField(input)));
  const kinds = allowedKindsProblem(values.role, values.allowedKinds);
  if (kinds) return refused(refuse("invalid", kinds, "allowedKinds"));
  return await retry.transaction(async (tx) => {
    const row = await store.insertEmployee(tx, values, deps.clock.now());
    if (row === "role_taken") return refused(refuse("role_taken", "role is already taken", "role"));
    return { employee: row, errors: [] };
  });
}

/** Edits `employee` with `patch` (validated, then checked against the row as it is now). */
export async function editEmployee(
  deps: Deps,
  _actor: Actor,
  input: { employee: EmployeeRow; patch: EmployeeFields },
): Promise<EmployeePayload> {
  const { patch } = input;
  const id = input.employee.id;
  const { errors, level } = parseFields(patch, false);
  if (errors.length) return refused(...errors);
  const now = deps.clock.now();
  return await refusableTransaction(deps.db.sql, async (tx) => {
    const current = await store.lockEmployeeForUpdate(tx, id);
    if (!current) return refused(...notFound("AI employee", "employeeId"));
    if (current.archivedAt) return refused(refuse("archived", ARCHIVED_EDIT_MESSAGE, "employeeId"));
    const requested = requestedLevel(
      current.autonomyLevel,
      level,
      patch.confirmPromotion ?? false,
    );
    if ("error" in requested) return refused(codedError(requested.error, promotionField(patch)));
    const to: AutonomyLevel = requested.to;
    const role = patch.role ?? current.role;
    const kinds = allowedKindsProblem(role, patch.allowedKinds ?? current.allowedKinds);
    if (kinds) return refused(refuse("invalid", kinds, "allowedKinds"));
    let confirmed = current.promotionConfirmedAt;
    if (to !== current.autonomyLevel || role !== current.role) {
      const counts = (await store.promotionCountsByIds(tx, [id], recentRejectionsSince(now)))
        .get(id);
      const promotion = promotionRequirementsMet({
        from: current.autonomyLevel,
        to,
        role,
        stats: counts ? promotionStatsOf(counts, now) : ZERO_STATS,
        confirmPromotion: patch.confirmPromotion ?? false,
      });
      if (promotion) return refused(codedError(promotion, promotionField(patch)));
      if (to === "autonomous" && current.autonomyLevel !== "autonomous") confirmed = now;
    }
    const { autonomyLevel: _level, ...fields } = patch;
    const row = await store.updateEmployee(
      tx,
      id,
      employeePatchValues(fields, to, confirmed),
      now,
    );
    if (row === "role_taken") return refused(refuse("role_taken", "role is already taken", "role"));
    return { employee: row, errors: [] };
  });
}

/** `updateAiEmployee`: edits the employee of `employeeId`. */
export async function updateEmployee(
  deps: Deps,
  actor: Actor,
  input: { employeeId: string; patch: EmployeeFields },
): Promise<EmployeePayload> {
  const employee = await findEmployee(deps, input.employeeId);
  if (!employee) return refused(...notFound("AI employee", "employeeId"));
  return await editEmployee(deps, actor, { employee, patch: input.patch });
}

/** `pauseAiEmployee`: pauses (`active: false`) or resumes an employee. */
export async function pauseEmployee(
  deps: Deps,
  actor: Actor,
  input: { employeeId: string; active: boolean },
): Promise<EmployeePayload> {
  return await updateEmployee(deps, actor, {
    employeeId: input.employeeId,
    patch: { active: input.active },
  });
}

/** `archiveAiEmployee`: archives the employee and fails its queued run. */
export async function archiveEmployee(
  deps: Deps,
  _actor: Actor,
  input: { employeeId: string },
): Promise<EmployeePayload> {
  const employee = await findEmployee(deps, input.employeeId);
  if (!employee) return refused(...notFound("AI employee", "employeeId"));
  const archived = await store.archiveEmployee(
    deps.db.sql,
    employee.id,
    ARCHIVED_RUN_MESSAGE,
    deps.clock.now(),
  );
  if (archived) return { employee: archived, errors: [] };
  // Archived already (a retry): the employee as it is.
  return {
    employee: await findEmployee(deps, input.employeeId),
    alreadyArchived: true,
    errors: [],
  };
}

/**
 * `unarchiveAiEmployee`: brings an archived employee back, paused; one that is not archived
 * (unarchived already, maybe at the same time) is answered as it is with `alreadyUnarchived`.
 */
export async function unarchiveEmployee(
  deps: Deps,
  _actor: Actor,
  input: { employeeId: string },
): Promise<EmployeePayload> {
  const employee = await findEmployee(deps, input.employeeId);
  if (!employee) return refused(...notFound("AI employee", "employeeId"));
  const restored = await store.unarchiveEmployee(deps.db.sql, employee.id, deps.clock.now());
  if (restored) return { employee: restored, errors: [] };
  return {
    employee: await findEmployee(deps, input.employeeId),
    alreadyUnarchived: true,
    errors: [],
  };
}

export interface SeedReport {
  created: string[];
  updated: string[];
  failed: { role: string; errors: string[] }[];
}

/**
 * Creates or updates employees from seed records, matched by `role`; every record goes through
 * the same validation as `createAiEmployee` / `updateAiEmployee`.
 */
export async function seedEmployees(
  deps: Deps,
  actor: Actor,
  records: readonly (EmployeeFields & { role: string })[],
): Promise<SeedReport> {
  const report: SeedReport = { created: [], updated: [], failed: [] };
  for (const record of records) {
    const existing = await store.employeeByRole(deps.db.sql, record.role);
    const { role: _role, ...patch } = record;
    const outcome = existing
      ? await editEmployee(deps, actor, { employee: existing, patch })
      : await createEmployee(deps, actor, record);
    if (outcome.errors.length) {
      report.failed.push({ role: record.role, errors: outcome.errors.map((e) => e.message) });
    } else (existing ? report.updated : report.created).push(record.role);
  }
  return report;
}
