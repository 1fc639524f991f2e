/** Pure rules of backups: when a scheduled slot makes one, and the (empty) set of refusals. */
import { userErrorCodes } from "../../platform/user-error.ts";

/**
 * The user-error codes of `createBackup`: only its idempotency key's (a backup that fails is an
 * error, not a refusal).
 */
export const { codes: BACKUPS_ERROR_CODES } = userErrorCodes(
  ["invalid", "idempotency_key_reused"] as const,
);

/**
 * How long a keyed `createBackup` holds its key: longer than a backup of a large database takes,
 * so a retry waits for that backup rather than making another.
 */
export const BACKUP_KEY_LEASE_MS = 30 * 60_000;

/** Slack on the interval, so an hourly slot does not skip because the last backup took a while. */
export const DUE_SLACK_MS = 5 * 60_000;

/** Whether a scheduled slot makes a backup, given the newest one's time (null: none yet). */
export function backupDue(slot: Date, newest: Date | null, intervalHours: number): boolean {
  if (intervalHours === 0) return false;
  if (newest === null) return true;
  return slot.getTime() - newest.getTime() >= intervalHours * 3_600_000 - DUE_SLACK_MS;
}
