/**
 * An AI employee's fields: validation of what an admin or the seed file gives, the defaults of a
 * new employee, the tools and artifact kinds it may have, and the autonomy levels.
 */
import { Cron } from "croner";
import { cronZone } from "../../../platform/cron.ts";
import {
  ARTIFACT_KINDS,
  type ArtifactKind,
  SERVICE_DATA_TOOLS,
  TOOL_NAME,
} from "../../../platform/contract/mod.ts";
import { AUTONOMY_LEVELS, type AutonomyLevel, LOCKED_SHADOW_ROLE } from "./levels.ts";
import { refuse, type WorkforceError } from "./errors.ts";

const UTC = cronZone("UTC");

export const ROLE_PATTERN = /^[a-z][a-z0-9_]{1,62}$/;
export const SKILL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** What a new employee gets when the input leaves a field out. */
export const DEFAULT_MONTHLY_BUDGET_CENTS = 3000;
export const DEFAULT_MODEL = "gpt-4o-mini";

export interface EmployeeInput {
  name?: string;
  role?: string;
  description?: string;
  taskPrompt?: string;
  monthlyBudgetCents?: number;
  modelPreference?: string;
  scheduleCron?: string | null;
  skills?: string[];
  postFilterSkill?: string | null;
  /** Tools beyond the built-in ones ({@link EMPLOYEE_TOOLS}). */
  tools?: string[];
  /** The artifact kinds it may produce; at least one. */
  allowedKinds?: string[];
}

/**
 * The tools an admin can give an employee: the service-data tools and the repository workspace;
 * besides them, any MCP server's tool by name (`mcp__<server>__<tool>`, or `mcp__<server>` for
 * all of its tools), which the runner offers when its MCP configuration has it. (Built-in tools,
 * reading a skill's files, remembering a fact and submitting the artifact, every employee has.)
 */
export const EMPLOYEE_TOOLS: readonly string[] = [...SERVICE_DATA_TOOLS, "repo"];

/** Whether `name` is a tool an employee can be given. */
export function isEmployeeTool(name: string): boolean {
  return EMPLOYEE_TOOLS.includes(name) || (name.startsWith("mcp__") && TOOL_NAME.test(name));
}

/** What each of {@link EMPLOYEE_TOOLS} gives the model, for the admin choosing. */
export const EMPLOYEE_TOOL_DESCRIPTIONS: Record<string, string> = {
  activation_funnel:
    "The activation funnel of the last 7 days against the 7 before (spec 4.6). A skill that needs it skips the run when nobody signed in.",
  new_feedback:
    "Feedback posts written since the employee's last successful run (spec 4.5), as untrusted text.",
  repo:
    "The delivery repository (GITHUB_REPO) at its default branch's commit: list, read, search and edit files; a code_patch is the diff of the edits, delivered from that commit.",
};

/** The tools an admin can give, each with what it gives the model (`aiEmployeeTools`). */
export const employeeTools = () =>
  EMPLOYEE_TOOLS.map((name) => ({ name, description: EMPLOYEE_TOOL_DESCRIPTIONS[name] }));

/** The only kinds the locked shadow role may produce (spec 2.2: it drafts emails). */
export const LOCKED_ROLE_KINDS: readonly ArtifactKind[] = ["email_template"];

/** The kinds a new employee of `role` may produce when none are given. */
export function defaultAllowedKinds(role: string): ArtifactKind[] {
  return role === LOCKED_SHADOW_ROLE ? [...LOCKED_ROLE_KINDS] : [...ARTIFACT_KINDS];
}

/** Why `role` may not produce exactly `kinds`, or null. */
export function allowedKindsProblem(role: string, kinds: readonly string[]): string | null {
  if (role !== LOCKED_SHADOW_ROLE) return null;
  const same = kinds.length === LOCKED_ROLE_KINDS.length &&
    LOCKED_ROLE_KINDS.every((kind) => kinds.includes(kind));
  return same ? null : `the ${LOCKED_SHADOW_ROLE} role may only produce email_template`;
}

/** Whether `kind` is one of the employee's allowed kinds. */
export function kindAllowed(allowedKinds: readonly string[], kind: ArtifactKind): boolean {
  return allowedKinds.includes(kind);
}

/** Why a result's artifact kind is refused for an employee allowed `allowedKinds`, or null. */
export function kindRefusal(allowedKinds: readonly string[], kind: ArtifactKind): string | null {
  return kindAllowed(allowedKinds, kind)
    ? null
    : `kind ${kind} is not one this employee may produce (${allowedKinds.join(", ")})`;
}

/** A client's autonomy level: one of the levels, absent (undefined), or "invalid". */
export function autonomyLevelOf(level: string | undefined): AutonomyLevel | undefined | "invalid" {
  if (level === undefined) return undefined;
  return (AUTONOMY_LEVELS as readonly string[]).includes(level)
    ? level as AutonomyLevel
    : "invalid";
}

/** The refusal of an autonomy level that is none of the levels. */
export const invalidAutonomyLevel = (): WorkforceError =>
  refuse("invalid", `autonomyLevel must be one of ${AUTONOMY_LEVELS.join(", ")}`, "autonomyLevel");

/** True when croner accepts `expr` as a 5- or 6-field cron pattern. */
export function isValidCron(expr: string): boolean {
  if (expr.length > 100) return false;
  try {
    new Cron(expr, { paused: true, ...UTC }).stop();
    return true;
  } catch {
    return false;
  }
}

/** User errors (`invalid`, naming the field) for the fields present in `input`; `creating` requires the mandatory ones. */
export function employeeInputErrors(input: EmployeeInput, creating: boolean): WorkforceError[] {
  const errors: WorkforceError[] = [];
  const bad = (field: keyof EmployeeInput, message: string) =>
    errors.push(refuse("invalid", message, field));
  const text = (
    field: keyof EmployeeInput,
    value: string | undefined,
    min: number,
    max: number,
    required = min > 0,
  ) => {
    if (value === undefined) {
      if (creating && required) bad(field, `${field} is required`);
      return;
    }
    const length = value.trim().length;
    if (length < min) bad(field, `${field} must not be empty`);
    else if (value.length > max) bad(field, `${field} must be at most ${max} characters`);
  };
  text("name", input.name, 1, 100);
  text("description", input.description, 0, 2_000);
  text("taskPrompt", input.taskPrompt, 1, 50_000);
  text("modelPreference", input.modelPreference, 1, 200, false);
  if (input.role !== undefined && !ROLE_PATTERN.test(input.role)) {
    bad(
      "role",
      "role must be a slug: 2 to 63 lowercase letters, digits or '_', starting with a letter",
    );
  } else if (input.role === undefined && creating) {
    bad("role", "role is required");
  }
  const budget = input.monthlyBudgetCents;
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 0 || budget > 10_000_000)) {
    bad("monthlyBudgetCents", "monthlyBudgetCents must be an integer from 0 to 10000000");
  }
  if (input.scheduleCron && !isValidCron(input.scheduleCron)) {
    bad("scheduleCron", "scheduleCron is not a valid cron expression");
  }
  if (input.skills !== undefined) {
    if (input.skills.length > 20) bad("skills", "skills must hold at most 20 names");
    const wrong = input.skills.filter((s) => !SKILL_PATTERN.test(s));
    if (wrong.length) bad("skills", `skills must be skill folder names (bad: ${wrong.join(", ")})`);
  }
  if (input.postFilterSkill && !SKILL_PATTERN.test(input.postFilterSkill)) {
    bad("postFilterSkill", "postFilterSkill must be a skill folder name");
  }
  if (input.tools !== undefined) {
    const unknown = input.tools.filter((tool) => !isEmployeeTool(tool));
    if (input.tools.length > 50) bad("tools", "tools must hold at most 50 names");
    else if (unknown.length) {
      bad(
        "tools",
        `tools must be among ${
          EMPLOYEE_TOOLS.join(", ")
        } or MCP tools named mcp__<server>__<tool> (unknown: ${
          unknown.slice(0, 5).map((t) => JSON.stringify(t.slice(0, 80))).join(", ")
        })`,
      );
    } else if (new Set(input.tools).size !== input.tools.length) {
      bad("tools", "tools must not repeat a name");
    }
  }
  if (input.allowedKinds !== undefined) {
    const unknown = input.allowedKinds.filter((k) =>
      !(ARTIFACT_KINDS as readonly string[]).includes(k)
    );
    if (input.allowedKinds.length === 0) {
      bad("allowedKinds", "allowedKinds needs at least one kind");
    } else if (unknown.length) {
      bad("allowedKinds", `allowedKinds must be among ${ARTIFACT_KINDS.join(", ")}`);
    } else if (new Set(input.allowedKinds).size !== input.allowedKinds.length) {
      bad("allowedKinds", "allowedKinds must not repeat a kind");
    }
  }
  return errors;
}

/** What an admin or the seed file sets on an employee (GraphQL null already dropped). */
export type EmployeeWrite =
  & EmployeeInput
  & { autonomyLevel?: AutonomyLevel; active?: boolean; confirmPromotion?: boolean };

/** The stored values of a new employee: the input with its defaults, the name trimmed. */
export interface NewEmployeeValues {
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
  tools: string[];
  allowedKinds: string[];
}

export function newEmployeeValues(
  input: EmployeeWrite & { name: string; role: string; taskPrompt: string },
): NewEmployeeValues {
  return {
    name: input.name.trim(),
    role: input.role,
    description: input.description ?? "",
    taskPrompt: input.taskPrompt,
    monthlyBudgetCents: input.monthlyBudgetCents ?? DEFAULT_MONTHLY_BUDGET_CENTS,
    modelPreference: input.modelPreference ?? DEFAULT_MODEL,
    scheduleCron: input.scheduleCron || null,
    autonomyLevel: input.autonomyLevel ?? "shadow",
    active: input.active ?? true,
    skills: input.skills ?? [],
    postFilterSkill: input.postFilterSkill || null,
    tools: input.tools ?? [],
    allowedKinds: input.allowedKinds ?? defaultAllowedKinds(input.role),
  };
}

/**
 * The stored values of an edit: each field given replaces the stored one (undefined keeps it);
 * the name is trimmed, and an empty `scheduleCron` or `postFilterSkill` clears it (null).
 */
export interface EmployeePatchValues {
  name?: string;
  role?: string;
  description?: string;
  taskPrompt?: string;
  monthlyBudgetCents?: number;
  modelPreference?: string;
  scheduleCron?: string | null;
  skills?: string[];
  tools?: string[];
  allowedKinds?: string[];
  postFilterSkill?: string | null;
  active?: boolean;
  autonomyLevel: AutonomyLevel;
  promotionConfirmedAt: Date | null;
}

export function employeePatchValues(
  patch: EmployeeWrite,
  autonomyLevel: AutonomyLevel,
  promotionConfirmedAt: Date | null,
): EmployeePatchValues {
  return {
    name: patch.name?.trim(),
    role: patch.role,
    description: patch.description,
    taskPrompt: patch.taskPrompt,
    monthlyBudgetCents: patch.monthlyBudgetCents,
    modelPreference: patch.modelPreference,
    scheduleCron: patch.scheduleCron === undefined ? undefined : patch.scheduleCron || null,
    skills: patch.skills,
    tools: patch.tools,
    allowedKinds: patch.allowedKinds,
    postFilterSkill: patch.postFilterSkill === undefined
      ? undefined
      : patch.postFilterSkill || null,
    active: patch.active,
    autonomyLevel,
    promotionConfirmedAt,
  };
}

/** The refusals of an archived employee. */
export const ARCHIVED_EDIT_MESSAGE = "the employee is archived; unarchive it first";
export const ARCHIVED_MESSAGE = "the employee is archived";
