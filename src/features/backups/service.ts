/**
 * Backups as an operator uses them: made now (the console, `main.ts backup` through the running
 * service), made on a schedule when the newest is older than the interval, listed, and pruned to
 * the newest `keep` after each new one. The file format is the platform's (`platform/backup/`).
 */
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db.ts";
import type { Logger } from "../../platform/log.ts";
import { type IdempotencyInput, type RetryRefusal, retrySafe } from "../../platform/idempotency.ts";
import {
  type BackupFile,
  listBackups,
  pruneBackups,
  writeBackupFile,
} from "../../platform/backup/files.ts";
import { BACKUP_KEY_LEASE_MS, backupDue } from "./rules.ts";

export interface BackupsDeps {
  db: Pick<Database, "sql">;
  clock: Clock;
  log: Logger;
  config: { backupDir: string; backupIntervalHours: number; backupKeep: number };
}

export interface MadeBackup extends BackupFile {
  rows: Record<string, number>;
  durationMs: number;
}

export interface CreateBackupPayload {
  backup: MadeBackup | null;
  errors: RetryRefusal[];
}

export function createBackupsService(deps: BackupsDeps) {
  const { config, log } = deps;
  let running: Promise<MadeBackup> | null = null;

  async function make(reason: string): Promise<MadeBackup> {
    const started = performance.now();
    const { file, summary } = await writeBackupFile(
      deps.db.sql,
      config.backupDir,
      deps.clock.now(),
    );
    const removed = await pruneBackups(config.backupDir, config.backupKeep);
    const durationMs = Math.round(performance.now() - started);
    log.info("backup made", {
      reason,
      file: file.path,
      bytes: file.bytes,
      duration_ms: durationMs,
      removed,
    });
    return { ...file, rows: summary.rows, durationMs };
  }

  /** Makes a backup now; one at a time (a second request waits for the one running). */
  function backUpNow(reason: string): Promise<MadeBackup> {
    running ??= make(reason).finally(() => {
      running = null;
    });
    return running;
  }

  return {
    backUpNow,

    /**
     * `createBackup`: a backup now, asked for by an admin; with an idempotency key, one backup
     * per key (a retry answers the backup the first request made).
     */
    async createBackup(
      admin: { userId: string },
      input: IdempotencyInput,
    ): Promise<CreateBackupPayload> {
      const refused = (e: RetryRefusal): CreateBackupPayload => ({ backup: null, errors: [e] });
      const retry = await retrySafe(deps, "createBackup", admin.userId, input, refused);
      if (retry.earlier) return retry.earlier;
      return await retry.held(
        async () => ({ backup: await backUpNow("console"), errors: [] }),
        { leaseMs: BACKUP_KEY_LEASE_MS },
      );
    },

    /** The scheduled slot: a backup when the newest is at least the interval old. */
    async backUpIfDue(slot: Date): Promise<MadeBackup | null> {
      if (config.backupIntervalHours === 0) return null;
      const [newest] = await listBackups(config.backupDir);
      if (!backupDue(slot, newest?.createdAt ?? null, config.backupIntervalHours)) return null;
      return await backUpNow("schedule");
    },

    list: () => listBackups(config.backupDir),
    settings: () => ({ ...config }),

    /** The backups, newest first, with the settings that make them. */
    async overview() {
      return {
        files: await listBackups(config.backupDir),
        directory: config.backupDir,
        intervalHours: config.backupIntervalHours,
        keep: config.backupKeep,
      };
    },
  };
}

export type BackupsService = ReturnType<typeof createBackupsService>;
