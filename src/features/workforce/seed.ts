/**
 * `deno run -A main.ts seed-employees FILE.json`: creates or updates AI employees from a file (a
 * JSON array, or `{"employees": [...]}`), matched by `role`. Every record goes through the same
 * validation as `createAiEmployee` / `updateAiEmployee`, including `promotion_requirements_met`.
 */
import { z } from "zod";
import type { Sql } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { createEmployee, editEmployee } from "./employees.ts";
import { employeeByRole } from "./store.ts";

/** The seed file's schema, built on first use: the service loads this module at every start. */
function seedFileSchema() {
  const employeeRecord = z.object({
    name: z.string(),
    role: z.string(),
    description: z.string().optional(),
    taskPrompt: z.string(),
    monthlyBudgetCents: z.number().int().optional(),
    modelPreference: z.string().optional(),
    scheduleCron: z.string().nullable().optional(),
    skills: z.array(z.string()).optional(),
    postFilterSkill: z.string().nullable().optional(),
    tools: z.array(z.string()).optional(),
    allowedKinds: z.array(z.string()).optional(),
    active: z.boolean().optional(),
    autonomyLevel: z.string().optional(),
  }).strict();
  return z.preprocess(
    (data) =>
      data && typeof data === "object" && !Array.isArray(data) && "employees" in data
        ? (data as { employees: unknown }).employees
        : data,
    z.array(employeeRecord),
  );
}

type SeedRecords = z.output<ReturnType<typeof seedFileSchema>>;

export interface SeedReport {
  created: string[];
  updated: string[];
  failed: { role: string; errors: string[] }[];
}

export async function seedEmployees(
  deps: { sql: Sql; clock: Clock },
  records: SeedRecords,
): Promise<SeedReport> {
  const report: SeedReport = { created: [], updated: [], failed: [] };
  for (const record of records) {
    const existing = await employeeByRole(deps.sql, record.role);
    const { role: _role, ...patch } = record;
    const outcome = existing
      ? await editEmployee(deps, existing, patch)
      : await createEmployee(deps, record);
    if (outcome.errors.length) {
      report.failed.push({ role: record.role, errors: outcome.errors.map((e) => e.message) });
    } else (existing ? report.updated : report.created).push(record.role);
  }
  return report;
}

/** Parses the file's text; a message naming the problem on failure. */
export function parseSeedFile(text: string): SeedRecords | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  const parsed = seedFileSchema().safeParse(data);
  if (!parsed.success) {
    return parsed.error.issues.map((i) => `${i.path.join(".") || "file"}: ${i.message}`).join(
      "; ",
    );
  }
  return parsed.data;
}
