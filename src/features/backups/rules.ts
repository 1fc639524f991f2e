/** Pure rules of backups: when a scheduled slot makes one, and the (empty) set of refusals. */
import { userErrorCodes } from "../../platform/user-error.ts";

/** The user-error codes of `createBackup`: none, it never refuses (failures are errors). */
export const { codes: BACKUPS_ERROR_CODES } = userErrorCodes([] as const);

/** Slack on the interval, so an hourly slot does not skip because the last backup took a while. */
export const DUE_SLACK_MS = 5 * 60_000;

/** Whether a scheduled slot makes a backup, given the newest one's time (null: none yet). */
export function backupDue(slot: Date, newest: Date | null, intervalHours: number): boolean {
  if (intervalHours === 0) return false;
  if (newest === null) return true;
  return slot.getTime() - newest.getTime() >= intervalHours * 3_600_000 - DUE_SLACK_MS;
}
