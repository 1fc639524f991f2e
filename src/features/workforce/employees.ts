/**
 * Creating and editing AI employees with user errors instead of exceptions; shared by the GraphQL
 * mutations and `main.ts seed-employees`.
 */
import type { Sql } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { AUTONOMY_LEVELS, type AutonomyLevel, employeeInputErrors } from "./rules.ts";
import {
  type EmployeeRow,
  type EmployeeWrite,
  insertEmployee,
  PromotionRefused,
  updateEmployee,
} from "./store.ts";

export interface EmployeeOutcome {
  employee: EmployeeRow | null;
  errors: string[];
}

function levelError(level: string | undefined): string | null {
  return level === undefined || (AUTONOMY_LEVELS as readonly string[]).includes(level)
    ? null
    : `autonomyLevel must be one of ${AUTONOMY_LEVELS.join(", ")}`;
}

async function guarded(
  fn: () => Promise<EmployeeRow | "role_taken">,
): Promise<EmployeeOutcome> {
  try {
    const row = await fn();
    if (row === "role_taken") return { employee: null, errors: ["role is already taken"] };
    return { employee: row, errors: [] };
  } catch (err) {
    if (err instanceof PromotionRefused) return { employee: null, errors: [err.message] };
    throw err;
  }
}

export type EmployeeFields = Omit<EmployeeWrite, "autonomyLevel"> & { autonomyLevel?: string };

export async function createEmployee(
  deps: { sql: Sql; clock: Clock },
  input: EmployeeFields,
): Promise<EmployeeOutcome> {
  const errors = employeeInputErrors(input, true);
  const bad = levelError(input.autonomyLevel);
  if (bad) errors.push(bad);
  if (errors.length) return { employee: null, errors };
  return await guarded(() =>
    deps.sql.begin((tx) =>
      insertEmployee(tx, {
        ...input,
        name: input.name!,
        role: input.role!,
        taskPrompt: input.taskPrompt!,
        autonomyLevel: input.autonomyLevel as AutonomyLevel | undefined,
      }, deps.clock.now())
    )
  );
}

export async function editEmployee(
  deps: { sql: Sql; clock: Clock },
  employee: EmployeeRow,
  patch: EmployeeFields,
): Promise<EmployeeOutcome> {
  const errors = employeeInputErrors(patch, false);
  const bad = levelError(patch.autonomyLevel);
  if (bad) errors.push(bad);
  if (errors.length) return { employee: null, errors };
  return await guarded(() =>
    deps.sql.begin((tx) =>
      updateEmployee(tx, employee.id, {
        ...patch,
        autonomyLevel: patch.autonomyLevel as AutonomyLevel | undefined,
      }, deps.clock.now())
    )
  );
}
