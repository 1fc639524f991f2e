/**
 * Creating and editing AI employees with user errors instead of exceptions; shared by the GraphQL
 * mutations and `main.ts seed-employees`.
 */
import type { Queryable, Sql } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import {
  AUTONOMY_LEVELS,
  type AutonomyLevel,
  autonomyLevelOf,
  codedError,
  employeeInputErrors,
} from "./rules.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import {
  EmployeeArchived,
  type EmployeeRow,
  type EmployeeWrite,
  insertEmployee,
  KindsRefused,
  PromotionRefused,
  updateEmployee,
} from "./store.ts";

export interface EmployeeOutcome {
  employee: EmployeeRow | null;
  errors: UserError[];
}

/** Validates `fields` (every required one when creating), then runs `write` in a transaction. */
async function save(
  deps: { sql: Sql },
  fields: EmployeeFields,
  creating: boolean,
  write: (tx: Queryable, level: AutonomyLevel | undefined) => Promise<EmployeeRow | "role_taken">,
): Promise<EmployeeOutcome> {
  const errors = employeeInputErrors(fields, creating);
  const level = autonomyLevelOf(fields.autonomyLevel);
  if (level === "invalid") {
    errors.push(
      userError(
        "invalid",
        `autonomyLevel must be one of ${AUTONOMY_LEVELS.join(", ")}`,
        "autonomyLevel",
      ),
    );
  }
  if (errors.length || level === "invalid") return { employee: null, errors };
  try {
    const row = await deps.sql.begin((tx) => write(tx, level));
    if (row === "role_taken") {
      return { employee: null, errors: [userError("role_taken", "role is already taken", "role")] };
    }
    return { employee: row, errors: [] };
  } catch (err) {
    if (err instanceof EmployeeArchived) {
      return { employee: null, errors: [userError("archived", err.message, "employeeId")] };
    }
    if (err instanceof KindsRefused) {
      return { employee: null, errors: [userError("invalid", err.message, "allowedKinds")] };
    }
    if (err instanceof PromotionRefused) {
      // The model validation's refusals (`promotion_requirements_met: ...`) keep their code.
      const field = fields.autonomyLevel === undefined && fields.confirmPromotion
        ? "confirmPromotion"
        : "autonomyLevel";
      return { employee: null, errors: [codedError(err.message, field)] };
    }
    throw err;
  }
}

export type EmployeeFields = Omit<EmployeeWrite, "autonomyLevel"> & { autonomyLevel?: string };

export function createEmployee(deps: { sql: Sql; clock: Clock }, input: EmployeeFields) {
  return save(deps, input, true, (tx, autonomyLevel) =>
    insertEmployee(tx, {
      ...input,
      name: input.name!,
      role: input.role!,
      taskPrompt: input.taskPrompt!,
      autonomyLevel,
    }, deps.clock.now()));
}

export function editEmployee(
  deps: { sql: Sql; clock: Clock },
  employee: EmployeeRow,
  patch: EmployeeFields,
) {
  return save(
    deps,
    patch,
    false,
    (tx, autonomyLevel) =>
      updateEmployee(tx, employee.id, { ...patch, autonomyLevel }, deps.clock.now()),
  );
}
