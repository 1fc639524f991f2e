/** Rules of owning one's data: export lifetime and the shape of an export (docs/domain.md). */
import { userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of exports and account deletion. */
export const { codes: PRIVACY_ERROR_CODES, refuse: privacyError } = userErrorCodes(
  ["not_found"] as const,
);

export const noAccount = () => privacyError("not_found", "no such account");
export const noDeletionPending = () => privacyError("not_found", "no account deletion is pending");

/** Hours an export can be downloaded, counted from its request; it is deleted afterwards. */
export const EXPORT_TTL_HOURS = 48;

/** Users erased per run of the erasure schedule (the next run takes the rest). */
export const ERASURES_PER_RUN = 100;

/** Version of the export's layout, raised when a section changes shape. */
export const EXPORT_FORMAT = 1;

export function exportExpiresAt(requestedAt: Date): Date {
  return new Date(requestedAt.getTime() + EXPORT_TTL_HOURS * 3_600_000);
}

/** The export document: a header, then each feature's sections under the feature's name. */
export function exportDocument(
  userPublicId: string,
  exportedAt: Date,
  parts: { feature: string; data: Record<string, unknown> }[],
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    format: EXPORT_FORMAT,
    userId: userPublicId,
    exportedAt: exportedAt.toISOString(),
  };
  for (const { feature, data } of parts) doc[feature] = data;
  return doc;
}

/** The path of an export's download link (relative to the service's origin). */
export function downloadPath(exportId: string, token: string): string {
  return `/exports/${encodeURIComponent(exportId)}?token=${encodeURIComponent(token)}`;
}

/** The names other users' records may quote a user by: username, then the display name. */
export function quotedNames(
  user: { username: string; firstName: string | null; lastName: string | null },
): string[] {
  const display = [user.firstName, user.lastName].filter(Boolean).join(" ");
  return [...new Set([user.username, display].filter((n) => n.length >= 3))];
}
