/** The workforce's closed vocabularies: autonomy levels, run statuses, approval statuses. */
import type { ArtifactKind } from "../../../platform/contract/mod.ts";

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
