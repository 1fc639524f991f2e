/**
 * Pure rules of blocking and reporting (docs/domain.md, "Blocking" and "Reports"): what a block
 * or a report may name, and what an admin's resolution may say.
 */
import { type UserError, userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of blocking and reporting. */
export const { codes: SAFETY_ERROR_CODES, refuse: safetyError } = userErrorCodes(
  [
    "invalid",
    "not_found",
    "not_open",
  ] as const,
);
export type SafetyError = UserError<typeof SAFETY_ERROR_CODES[number]>;

export const REPORT_REASONS = [
  "spam",
  "harassment",
  "hate",
  "self_harm",
  "inappropriate",
  "other",
] as const;
export type ReportReason = typeof REPORT_REASONS[number];
export type ReportStatus = "open" | "actioned" | "dismissed";
export type ReportResolution = Exclude<ReportStatus, "open">;

/** Longest report details and resolution note, in characters. */
export const REPORT_TEXT_MAX = 1000;

const length = (text: string) => Array.from(text).length;

/** Why blocking (or unblocking) `targetId` is refused, or null. */
export function blockError(viewerId: string, targetId: string): SafetyError | null {
  return viewerId === targetId
    ? safetyError("invalid", "userId must be another user", "userId")
    : null;
}

/** A report's details, trimmed (null when empty), or what is wrong with them. */
export function reportDetails(
  reason: ReportReason,
  details: string | null | undefined,
): { details: string | null; errors: SafetyError[] } {
  const text = details?.trim() || null;
  if (text && length(text) > REPORT_TEXT_MAX) {
    return {
      details: null,
      errors: [
        safetyError("invalid", `details must be at most ${REPORT_TEXT_MAX} characters`, "details"),
      ],
    };
  }
  if (reason === "other" && !text) {
    return {
      details: null,
      errors: [safetyError("invalid", "details are required when the reason is other", "details")],
    };
  }
  return { details: text, errors: [] };
}

/** Why a report of `reportedId` by `reporterId` is refused (one's own user or post), or null. */
export function selfReportError(
  reporterId: string,
  reportedId: string,
  field: "userId" | "postId",
): SafetyError | null {
  return reporterId === reportedId
    ? safetyError(
      "invalid",
      `you cannot report your own ${field === "userId" ? "user" : "post"}`,
      field,
    )
    : null;
}

/** A resolution note, trimmed (null when empty), or what is wrong with it. */
export function resolutionNote(
  note: string | null | undefined,
): { note: string | null; errors: SafetyError[] } {
  const text = note?.trim() || null;
  if (text && length(text) > REPORT_TEXT_MAX) {
    return {
      note: null,
      errors: [
        safetyError("invalid", `note must be at most ${REPORT_TEXT_MAX} characters`, "note"),
      ],
    };
  }
  return { note: text, errors: [] };
}

/** Why a report that is no longer open cannot be resolved. */
export const notOpenError = (status: ReportStatus): SafetyError =>
  safetyError("not_open", `the report is already ${status}`, "id");

export const userNotFound = () => safetyError("not_found", "no such user", "userId");
export const postNotFound = () => safetyError("not_found", "no such post", "postId");
export const reportNotFound = () => safetyError("not_found", "no such report", "id");
