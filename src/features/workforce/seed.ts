/**
 * `deno run -A main.ts seed-employees FILE.json`: the file of AI employees to create or update (a
 * JSON array, or `{"employees": [...]}`), matched by `role` (`seedEmployees` in the service). Every
 * record goes through the same validation as `createAiEmployee` / `updateAiEmployee`, including
 * `promotion_requirements_met`.
 */
import { z } from "zod";

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

export type SeedRecords = z.output<ReturnType<typeof seedFileSchema>>;

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
