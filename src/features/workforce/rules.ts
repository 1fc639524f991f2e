/**
 * Pure rules of the AI workforce: field validation, the monthly budget, autonomy and promotion,
 * artifact review (edit ratio, rejection memory), run and artifact status transitions, schedule
 * slots and budget alert levels. No I/O: every input (including "now") is an argument.
 */
import { distance } from "fastest-levenshtein";
import { Cron } from "croner";
import { cronZone } from "../../platform/cron.ts";
import {
  ARTIFACT_KINDS,
  ARTIFACT_PAYLOAD_MAX,
  type ArtifactKind,
  SERVICE_DATA_TOOLS,
  TOOL_NAME,
} from "../../platform/contract/mod.ts";
import { type UserError, userError } from "../../platform/user-error.ts";

const UTC = cronZone("UTC");

export const AUTONOMY_LEVELS = ["shadow", "semi_autonomous", "autonomous"] as const;
export type AutonomyLevel = typeof AUTONOMY_LEVELS[number];

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type RunStatus = typeof RUN_STATUSES[number];

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "auto_rejected"] as const;
export type ApprovalStatus = typeof APPROVAL_STATUSES[number];

/** Kinds that `semi_autonomous` employees publish without review (spec 3.4). */
export const LOW_RISK_KINDS: readonly ArtifactKind[] = [
  "report",
  "recommendation",
  "slack_message",
];

/** The role that can never leave `shadow` (spec 2.2). */
export const LOCKED_SHADOW_ROLE = "customer_support_drafter";

export const RECENT_REJECTIONS_CAP = 5;
export const MIN_REJECTION_REASON = 10;
export const MAX_REJECTION_REASON = 2_000;
export const HEAVY_EDIT_RATIO = 0.3;
export const STALE_RUN_MS = 15 * 60_000;
export const SCHEDULER_INTERVAL_MS = 5 * 60_000;
/** Per-run limits sent to the runner (DESIGN 3.3; spec 8: 1.0 USD per run). */
export const RUN_BUDGET_USD = 1.0;
export const RUN_MAX_TURNS = 20;
/** The least budget a dispatched run gets (a run is only queued while the cap is not reached). */
const MIN_RUN_BUDGET_USD = 0.01;

/**
 * DESIGN 3.3: a run's budget is the smaller of the per-run cap and what is left of the employee's
 * monthly cap (`monthlyBudgetCents`, of which `spentUsd` is spent this month).
 */
export function runBudgetUsd(monthlyBudgetCents: number, spentUsd: number): number {
  const left = monthlyBudgetCents / 100 - spentUsd;
  return Math.max(MIN_RUN_BUDGET_USD, Math.min(RUN_BUDGET_USD, Math.floor(left * 1e6) / 1e6));
}

// ---------------------------------------------------------------------------------------------
// Employee fields

export const ROLE_PATTERN = /^[a-z][a-z0-9_]{1,62}$/;
export const SKILL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

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

/** Why an artifact in `status` cannot be `decision` now (only pending ones are reviewed), or null. */
export function reviewError(
  status: ApprovalStatus,
  decision: "approved" | "rejected",
): string | null {
  return status === "pending"
    ? null
    : `only pending artifacts can be ${decision} (this one is ${status})`;
}

/** A client's autonomy level: one of the levels, absent (undefined), or "invalid". */
export function autonomyLevelOf(level: string | undefined): AutonomyLevel | undefined | "invalid" {
  if (level === undefined) return undefined;
  return (AUTONOMY_LEVELS as readonly string[]).includes(level)
    ? level as AutonomyLevel
    : "invalid";
}

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
export function employeeInputErrors(input: EmployeeInput, creating: boolean): UserError[] {
  const errors: UserError[] = [];
  const bad = (field: keyof EmployeeInput, message: string) =>
    errors.push(userError("invalid", message, field));
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

/**
 * A refusal written as `code: message` (the model validation's wording, e.g.
 * `promotion_requirements_met: ...`) as a user error on `field`; `fallback` is the code of one
 * without a prefix.
 */
export function codedError(text: string, field: string | null, fallback = "invalid"): UserError {
  const match = /^([a-z][a-z0-9_]*): (.*)$/s.exec(text);
  return match ? userError(match[1], match[2], field) : userError(fallback, text, field);
}

// ---------------------------------------------------------------------------------------------
// Budget

/** The UTC calendar month holding `now`: `[start, end)`, and its `YYYY-MM` label. */
export function monthOf(now: Date): { start: Date; end: Date; label: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, label: start.toISOString().slice(0, 7) };
}

/** Spend is compared in cents, rounded up, so a fraction of a cent over the cap counts. */
export function spendCents(spendUsd: number): number {
  return Math.ceil(Math.round(spendUsd * 1_000_000) / 10_000);
}

/** Spec 3.1: no run once this month's spend has reached the cap. */
export function budgetExceeded(spendUsd: number, capCents: number): boolean {
  return spendCents(spendUsd) >= capCents;
}

export type AlertLevel = "warning" | "critical";

/** Spec 6.3: `warning` from 80% of the cap, `critical` from 100%; null below. */
export function budgetAlertLevel(spendUsd: number, capUsd: number): AlertLevel | null {
  if (capUsd <= 0) return spendUsd > 0 ? "critical" : null;
  const ratio = spendUsd / capUsd;
  if (ratio >= 1) return "critical";
  if (ratio >= 0.8) return "warning";
  return null;
}

/** Levels recorded when `level` is reached: a critical alert also settles the warning. */
export function levelsSettledBy(level: AlertLevel): AlertLevel[] {
  return level === "critical" ? ["warning", "critical"] : ["warning"];
}

// ---------------------------------------------------------------------------------------------
// Autonomy and promotion (spec 3.4)

export interface PromotionStats {
  /** approved / (approved + rejected + auto_rejected) over human and filter decisions; null = none. */
  approvalRate: number | null;
  weeksActive: number;
  /** Human rejections in the last 14 days. */
  recentRejections: number;
}

export interface PromotionCheck {
  from: AutonomyLevel;
  to: AutonomyLevel;
  role: string;
  stats: PromotionStats;
  confirmPromotion: boolean;
}

/** Approval rate as a fraction; null when nothing was decided. */
export function approvalRate(
  approved: number,
  rejected: number,
  autoRejected: number,
): number | null {
  const total = approved + rejected + autoRejected;
  return total === 0 ? null : approved / total;
}

/** Whole weeks since `firstRunAt` (0 without runs). */
export function weeksActive(firstRunAt: Date | null, now: Date): number {
  if (!firstRunAt) return 0;
  return Math.max(0, Math.floor((now.getTime() - firstRunAt.getTime()) / (7 * 86_400_000)));
}

const rank = (level: AutonomyLevel) => AUTONOMY_LEVELS.indexOf(level);

/** The level a promotion would go to next, or null at the top (or for the locked role). */
export function nextLevel(level: AutonomyLevel, role: string): AutonomyLevel | null {
  if (role === LOCKED_SHADOW_ROLE) return null;
  return AUTONOMY_LEVELS[rank(level) + 1] ?? null;
}

/** What stops a promotion from `from` to the next level; empty = the criteria are met. */
export function missingCriteria(
  from: AutonomyLevel,
  role: string,
  stats: PromotionStats,
): string[] {
  if (role === LOCKED_SHADOW_ROLE) return [`the ${LOCKED_SHADOW_ROLE} role is locked to shadow`];
  const rate = stats.approvalRate;
  const pct = rate === null ? "none" : `${(rate * 100).toFixed(1)}%`;
  const missing: string[] = [];
  if (from === "shadow") {
    if (rate === null || rate <= 0.8) missing.push(`approval rate must be above 80% (is ${pct})`);
    if (stats.weeksActive < 4) {
      missing.push(`weeks active must be at least 4 (is ${stats.weeksActive})`);
    }
    if (stats.recentRejections > 0) {
      missing.push(
        `no rejections allowed in the last 2 weeks (has ${stats.recentRejections})`,
      );
    }
  } else if (from === "semi_autonomous") {
    if (rate === null || rate <= 0.95) missing.push(`approval rate must be above 95% (is ${pct})`);
    if (stats.weeksActive < 8) {
      missing.push(`weeks active must be at least 8 (is ${stats.weeksActive})`);
    }
  } else {
    missing.push("autonomous is the highest level");
  }
  return missing;
}

/**
 * The level an `updateAiEmployee` asks for: `autonomyLevel` when given; `confirmPromotion: true`
 * alone asks a semi-autonomous employee's promotion to `autonomous` (spec 3.4) and is an error at
 * any other level; otherwise the current level.
 */
export function requestedLevel(
  current: AutonomyLevel,
  requested: AutonomyLevel | undefined,
  confirmPromotion: boolean,
): { to: AutonomyLevel } | { error: string } {
  if (requested !== undefined) return { to: requested };
  if (!confirmPromotion) return { to: current };
  if (current === "semi_autonomous") return { to: "autonomous" };
  return {
    error: `confirmPromotion confirms semi_autonomous -> autonomous; this employee is ${current}`,
  };
}

/**
 * The model validation `promotion_requirements_met`: null when the change from `from` to `to` is
 * allowed, else the reason. No change is allowed; a demotion moves down one level (spec 3.4:
 * autonomous -> semi_autonomous -> shadow); the locked role can only be `shadow`; a promotion
 * moves up one level and needs its criteria (and for `autonomous` the operator's confirmation).
 */
export function promotionRequirementsMet(check: PromotionCheck): string | null {
  const { from, to, role } = check;
  if (role === LOCKED_SHADOW_ROLE && to !== "shadow") {
    return `promotion_requirements_met: the ${LOCKED_SHADOW_ROLE} role is locked to shadow`;
  }
  if (rank(to) === rank(from)) return null;
  if (rank(to) < rank(from) - 1) {
    return `autonomy_demotion: demote one level at a time (${from} -> ${
      AUTONOMY_LEVELS[rank(from) - 1]
    })`;
  }
  if (rank(to) < rank(from)) return null;
  if (rank(to) - rank(from) > 1) {
    return `promotion_requirements_met: promote one level at a time (${from} -> ${
      AUTONOMY_LEVELS[rank(from) + 1]
    })`;
  }
  const missing = missingCriteria(from, role, check.stats);
  if (to === "autonomous" && !check.confirmPromotion) {
    missing.push("confirmPromotion: true is required to become autonomous");
  }
  return missing.length ? `promotion_requirements_met: ${missing.join("; ")}` : null;
}

/**
 * Spec 3.4: whether an artifact of `kind` skips review at `level`. One with a figure that none of
 * its run's sources hold (`unsupportedFigures`, the grounding check) always waits for a person.
 */
export function autoApproves(
  level: AutonomyLevel,
  kind: ArtifactKind,
  unsupportedFigures: readonly string[] = [],
): boolean {
  if (unsupportedFigures.length > 0) return false;
  if (level === "autonomous") return true;
  if (level === "semi_autonomous") return LOW_RISK_KINDS.includes(kind);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Review

export interface EditMeasure {
  editDistance: number;
  /** distance / length of the longer text (0 when both are empty). */
  editRatio: number;
  heavy: boolean;
}

/** Spec 3.2 / 8: Levenshtein distance and ratio of an approval with edits. */
export function measureEdit(original: string, edited: string): EditMeasure {
  const editDistance = distance(original, edited);
  const longer = Math.max(original.length, edited.length);
  const editRatio = longer === 0 ? 0 : editDistance / longer;
  return { editDistance, editRatio, heavy: isHeavyEdit(editRatio) };
}

export const isHeavyEdit = (ratio: number | null): boolean =>
  ratio !== null && ratio > HEAVY_EDIT_RATIO;

export function rejectionReasonError(reason: string): string | null {
  const trimmed = reason.trim();
  if (trimmed.length < MIN_REJECTION_REASON) {
    return `rejectionReason must be at least ${MIN_REJECTION_REASON} characters`;
  }
  if (trimmed.length > MAX_REJECTION_REASON) {
    return `rejectionReason must be at most ${MAX_REJECTION_REASON} characters`;
  }
  return null;
}

/** Appends `reason` to the FIFO memory list, keeping the newest `cap` entries. */
export function appendRejection(
  current: unknown,
  reason: string,
  cap = RECENT_REJECTIONS_CAP,
): string[] {
  const list = Array.isArray(current) ? current.filter((x) => typeof x === "string") : [];
  return [...list, reason].slice(-cap);
}

export function editedPayloadError(edited: string): string | null {
  if (edited.trim().length === 0) return "editedPayload must not be empty";
  if (edited.length > ARTIFACT_PAYLOAD_MAX) {
    return `editedPayload must be at most ${ARTIFACT_PAYLOAD_MAX} characters`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Status transitions

const RUN_TRANSITIONS: Record<RunStatus, RunStatus[]> = {
  // A fast runner can report before the dispatch job has recorded `running`: the result wins.
  queued: ["running", "succeeded", "failed"],
  running: ["succeeded", "failed"],
  succeeded: [],
  failed: [],
};

export function canTransitionRun(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/** The statuses a run may conclude from (the guard of the result and sweep updates). */
export const CONCLUDABLE: RunStatus[] = ["queued", "running"];

export const isConcluded = (status: RunStatus) => status === "succeeded" || status === "failed";

const ARTIFACT_TRANSITIONS: Record<ApprovalStatus, ApprovalStatus[]> = {
  pending: ["approved", "rejected"],
  approved: [],
  rejected: [],
  auto_rejected: [],
};

export function canTransitionArtifact(from: ApprovalStatus, to: ApprovalStatus): boolean {
  return ARTIFACT_TRANSITIONS[from].includes(to);
}

/** The status a new artifact gets from the post-filter verdict (spec 3.2). */
export function initialApprovalStatus(postFilter: { passed: boolean } | null): ApprovalStatus {
  return postFilter && !postFilter.passed ? "auto_rejected" : "pending";
}

// ---------------------------------------------------------------------------------------------
// Scheduling

/** The latest slot of `cron` in `(from, to]` (UTC), or null when none falls in it. */
export function dueSlot(cron: string, from: Date, to: Date): Date | null {
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, ...UTC });
  } catch {
    return null;
  }
  try {
    let latest: Date | null = null;
    let cursor = from;
    for (let i = 0; i < 400; i++) {
      const next = job.nextRun(cursor);
      if (!next || next.getTime() > to.getTime()) break;
      latest = next;
      cursor = next;
    }
    return latest;
  } finally {
    job.stop();
  }
}

/** Start of the ISO week (Monday 00:00 UTC) holding `at`. */
export function weekStart(at: Date): Date {
  const day = (at.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - day));
}

/**
 * One week of review decisions. The approval rate has one definition, here and in the promotion
 * criteria: admin approvals over admin approvals, rejections and auto-rejections; auto-approvals
 * are no review and are counted apart.
 */
export interface WeekCounts {
  weekStart: Date;
  approved: number;
  rejected: number;
  autoRejected: number;
  autoApproved: number;
}

/** The last `weeks` ISO weeks up to `now`, oldest first, with zero weeks filled in. */
export function weeklySeries(rows: WeekCounts[], now: Date, weeks = 12): WeekCounts[] {
  const byWeek = new Map(rows.map((r) => [weekStart(r.weekStart).getTime(), r]));
  const current = weekStart(now).getTime();
  const out: WeekCounts[] = [];
  for (let i = weeks - 1; i >= 0; i--) {
    const start = current - i * 7 * 86_400_000;
    const row = byWeek.get(start);
    out.push({
      weekStart: new Date(start),
      approved: row?.approved ?? 0,
      rejected: row?.rejected ?? 0,
      autoRejected: row?.autoRejected ?? 0,
      autoApproved: row?.autoApproved ?? 0,
    });
  }
  return out;
}
