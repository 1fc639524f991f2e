/** The workforce's rows as the stores return them, their columns, and the keyset of its lists. */
import type { Queryable } from "../../../platform/db.ts";
import type { ArtifactKind } from "../../../platform/contract/mod.ts";
import type { KeyColumn, PageWindow } from "../../../graphql/pagination.ts";
import type { ApprovalStatus, AutonomyLevel, RunStatus } from "../rules.ts";

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
  /** When retention removed the trace (`AI_RUN_LOG_RETENTION_DAYS`); null while it is kept. */
  runLogRemovedAt: Date | null;
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

export const employeeColumns = (sql: Queryable) =>
  sql`id::text as id, public_id as "publicId", name, role, description, task_prompt as "taskPrompt",
      monthly_budget_cents as "monthlyBudgetCents", model_preference as "modelPreference",
      schedule_cron as "scheduleCron", autonomy_level as "autonomyLevel", active, skills,
      post_filter_skill as "postFilterSkill", tools, allowed_kinds as "allowedKinds",
      promotion_confirmed_at as "promotionConfirmedAt",
      archived_at as "archivedAt", created_at as "createdAt"`;

export const runColumns = (sql: Queryable) =>
  sql`id::text as id, public_id as "publicId", employee_id::text as "employeeId", status, trigger,
      scheduled_for as "scheduledFor", skipped_reason as "skippedReason", started_at as "startedAt", finished_at as "finishedAt", input_tokens as "inputTokens",
      output_tokens as "outputTokens", num_turns as "numTurns", cost_usd::float8 as "costUsd",
      error_message as "errorMessage", run_log as "runLog",
      run_log_removed_at as "runLogRemovedAt",
      result_received_at as "resultReceivedAt", cancel_requested_at as "cancelRequestedAt",
      created_at as "createdAt"`;

export const artifactColumns = (sql: Queryable) =>
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

/** Keyset of the employee, run and pending-artifact connections: `[createdAt, publicId]`. */
export const CREATED_KEY: KeyColumn[] = [
  { column: "created_at", cast: "timestamptz" },
  { column: "public_id" },
];
export type Window = PageWindow<readonly (string | number)[]>;
