/** Review of artifacts (spec 3.2): transitions, edits, rejections, and the weekly decision counts. */
import { ARTIFACT_PAYLOAD_MAX } from "../../../platform/contract/mod.ts";
import { editDistance as measureDistance } from "../../../platform/contract/edit-distance.ts";
import type { ApprovalStatus } from "./levels.ts";

export const RECENT_REJECTIONS_CAP = 5;
export const MIN_REJECTION_REASON = 10;
export const MAX_REJECTION_REASON = 2_000;
export const HEAVY_EDIT_RATIO = 0.3;
/** How many ISO weeks `approvalRate` covers. */
export const APPROVAL_RATE_WEEKS = 12;
const WEEK_MS = 7 * 86_400_000;

const ARTIFACT_TRANSITIONS: Record<ApprovalStatus, ApprovalStatus[]> = {
  pending: ["approved", "rejected"],
  approved: [],
  rejected: [],
  auto_rejected: [],
};

export function canTransitionArtifact(from: ApprovalStatus, to: ApprovalStatus): boolean {
  return ARTIFACT_TRANSITIONS[from].includes(to);
}

/**
 * The most pending artifacts the unpaged `pendingArtifacts` list answers (the oldest ones):
 * a backlog beyond it is paged by `pendingArtifactsConnection`.
 */
export const PENDING_LIST_LIMIT = 100;

/** The status a new artifact gets from the post-filter verdict (spec 3.2). */
export function initialApprovalStatus(postFilter: { passed: boolean } | null): ApprovalStatus {
  return postFilter && !postFilter.passed ? "auto_rejected" : "pending";
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

/**
 * Until when an admin's approval can be undone: the end of the undo window, while the delivery
 * has not started; null for any other artifact (pending, rejected, auto-approved, delivering).
 */
export function undoableUntil(
  artifact: {
    approvalStatus: ApprovalStatus;
    autoApproved: boolean;
    reviewedAt: Date | null;
    deliveryStatus: string | null;
    deliveredAt: Date | null;
  },
  windowMs: number,
): Date | null {
  const { approvalStatus, autoApproved, reviewedAt, deliveryStatus, deliveredAt } = artifact;
  if (approvalStatus !== "approved" || autoApproved || !reviewedAt) return null;
  if (deliveryStatus !== null || deliveredAt !== null || windowMs <= 0) return null;
  return new Date(reviewedAt.getTime() + windowMs);
}

export const REVIEWED_MEANWHILE = "the artifact was reviewed meanwhile";

export interface EditMeasure {
  editDistance: number;
  /** distance / length of the longer text (0 when both are empty). */
  editRatio: number;
  heavy: boolean;
}

/**
 * Spec 3.2 / 8: Levenshtein distance and ratio of an approval with edits; on huge texts with
 * large changes, a bound that is never below it (platform/contract/edit-distance.ts).
 */
export function measureEdit(original: string, edited: string): EditMeasure {
  const { distance: editDistance } = measureDistance(original, edited);
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

/** Start of the ISO week (Monday 00:00 UTC) holding `at`. */
export function weekStart(at: Date): Date {
  const day = (at.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - day));
}

/** The start of the oldest week `approvalRate` covers at `now`. */
export const approvalRateSince = (now: Date) =>
  new Date(weekStart(now).getTime() - (APPROVAL_RATE_WEEKS - 1) * WEEK_MS);

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
export function weeklySeries(
  rows: WeekCounts[],
  now: Date,
  weeks = APPROVAL_RATE_WEEKS,
): WeekCounts[] {
  const byWeek = new Map(rows.map((r) => [weekStart(r.weekStart).getTime(), r]));
  const current = weekStart(now).getTime();
  const out: WeekCounts[] = [];
  for (let i = weeks - 1; i >= 0; i--) {
    const start = current - i * WEEK_MS;
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
