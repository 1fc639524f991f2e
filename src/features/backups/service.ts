/**
 * Backups as an operator uses them: made now (the console, `main.ts backup` through the running
 * service), made on a schedule when the newest is older than the interval, listed, and pruned to
 * the newest `keep` after each new one. The file format is the platform's (`platform/backup/`).
 */
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db.ts";
import type { Logger } from "../../platform/log.ts";
import {
  type BackupFile,
  listBackups,
  pruneBackups,
  writeBackupFile,
} from "../../platform/backup/files.ts";
import { backupDue } from "./rules.ts";

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

  return {
    /** Makes a backup now; one at a time (a second request waits for the one running). */
    backUpNow(reason: string): Promise<MadeBackup> {
      running ??= make(reason).finally(() => {
        running = null;
      });
      return running;
    },

    /** The scheduled slot: a backup when the newest is at least the interval old. */
    async backUpIfDue(slot: Date): Promise<MadeBackup | null> {
      if (config.backupIntervalHours === 0) return null;
      const [newest] = await listBackups(config.backupDir);
      if (!backupDue(slot, newest?.createdAt ?? null, config.backupIntervalHours)) return null;
      return await this.backUpNow("schedule");
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
