/**
 * `main.ts backup`, `main.ts restore FILE` and `main.ts move-to-postgres URL`. Each prints one JSON
 * line with what it did and how long it took, and exits 0; 1 when it could not (a refusal or a
 * failure, said in one JSON line on stderr).
 */
import type { Config } from "./config.ts";
import { createLogger, type Logger } from "./platform/log.ts";
import { type Database, openDatabase, sessionSql } from "./platform/db.ts";
import { loadMigrations } from "./platform/migrate.ts";
import { writeBackupFile } from "./platform/backup/files.ts";
import { restoreDatabase } from "./platform/backup/restore.ts";
import { requestBackup, serviceOnDataDir } from "./control-socket.ts";
import { MOVED_MARKER } from "./embedded-moved.ts";

const timeouts = (config: Config) => ({
  connectMs: config.databaseConnectTimeoutMs,
  statementMs: config.databaseStatementTimeoutMs,
});

function openEmbedded(
  config: Config,
  log: Logger,
  command: string,
  prepareDataDir?: (pgDir: string) => Promise<void>,
): Promise<Database> {
  return openDatabase({
    dataDir: config.dataDir,
    command,
    prepareDataDir,
    poolSize: 1,
    log,
    timeouts: timeouts(config),
  });
}

function openPostgres(url: string, config: Config, log: Logger): Promise<Database> {
  return openDatabase({
    databaseUrl: url,
    dataDir: config.dataDir,
    poolSize: 2,
    log,
    timeouts: timeouts(config),
  });
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** A database URL with its password replaced, for output. */
export function withoutPassword(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.href;
}

async function failed(err: unknown): Promise<number> {
  console.error(JSON.stringify({ level: "error", msg: (err as Error).message }));
  return await Promise.resolve(1);
}

/**
 * A backup into `BACKUP_DIR` (or `out`): of PostgreSQL directly; of the embedded database through
 * the service that runs on it, or directly when none does.
 */
export async function runBackup(config: Config, out?: string): Promise<number> {
  const log = createLogger({ level: "warn" });
  const started = performance.now();
  try {
    if (!config.databaseUrl && !out) {
      const made = await requestBackup(config.dataDir);
      if (made) {
        console.log(JSON.stringify({ ...made, through: "service", ms: elapsed(started) }));
        return 0;
      }
    }
    const db = config.databaseUrl
      ? await openPostgres(config.databaseUrl, config, log)
      : await openEmbedded(config, log, "backup");
    try {
      const { file, summary } = await writeBackupFile(
        sessionSql(db),
        out ?? config.backupDir,
        new Date(),
      );
      console.log(JSON.stringify({
        path: file.path,
        bytes: file.bytes,
        rows: summary.rows,
        through: db.mode,
        ms: elapsed(started),
      }));
      return 0;
    } finally {
      await db.close();
    }
  } catch (err) {
    return await failed(err);
  }
}

async function restoreInto(db: Database, file: string, log: Logger) {
  const open = async () => (await Deno.open(file)).readable;
  return await restoreDatabase(sessionSql(db), open, await loadMigrations(), log);
}

/**
 * Restores `file` into the configured database: with PostgreSQL into `DATABASE_URL`, which must be
 * empty; embedded into a new `DATA_DIR/pg`, the current one kept beside it.
 */
export async function runRestore(config: Config, file: string): Promise<number> {
  const log = createLogger({ level: "warn" });
  const started = performance.now();
  try {
    await Deno.stat(file);
    if (config.databaseUrl) {
      const db = await openPostgres(config.databaseUrl, config, log);
      try {
        const rows = await restoreInto(db, file, log);
        console.log(
          JSON.stringify({ restored: file, into: "postgres", rows, ms: elapsed(started) }),
        );
      } finally {
        await db.close();
      }
      return 0;
    }
    if (await serviceOnDataDir(config.dataDir)) {
      throw new Error(`a service runs on ${config.dataDir}: stop it before restoring`);
    }
    // Under the data dir's lock the current database moves aside (kept until the operator removes
    // it) and a new one starts in its place.
    let kept: string | null = null;
    const db = await openEmbedded(config, log, "restore", async (pg) => {
      if (!(await Deno.stat(pg).then(() => true, () => false))) return;
      kept = `${pg}.before-restore-${new Date().toISOString().replace(/[-:.]/g, "")}`;
      await Deno.rename(pg, kept);
    });
    try {
      const rows = await restoreInto(db, file, log);
      console.log(
        JSON.stringify({ restored: file, into: "embedded", kept, rows, ms: elapsed(started) }),
      );
    } catch (err) {
      await db.close();
      const pg = `${config.dataDir.replace(/\/+$/, "")}/pg`;
      await Deno.remove(pg, { recursive: true }).catch(() => {});
      if (kept) await Deno.rename(kept, pg);
      throw err;
    }
    await db.close();
    return 0;
  } catch (err) {
    return await failed(err);
  }
}

/**
 * Copies the embedded database into the empty PostgreSQL database `url` through a backup (kept in
 * `BACKUP_DIR`), with every table's count checked; `DATA_DIR/pg` is left as it was, marked moved.
 */
export async function runMoveToPostgres(config: Config, url: string): Promise<number> {
  const log = createLogger({ level: "warn" });
  const started = performance.now();
  try {
    const target = await openPostgres(url, config, log);
    try {
      const [{ n }] = await target.sql<{ n: number }[]>`
        select count(*)::int as n from pg_tables where schemaname = 'public'`;
      if (n > 0) {
        throw new Error(
          `${withoutPassword(url)} is not empty (${n} tables): move into a new, empty database`,
        );
      }
      if (await serviceOnDataDir(config.dataDir)) {
        throw new Error(`a service runs on ${config.dataDir}: stop it before moving its data`);
      }
      const source = await openEmbedded(config, log, "move-to-postgres");
      let file;
      try {
        file = (await writeBackupFile(sessionSql(source), config.backupDir, new Date())).file;
      } finally {
        await source.close();
      }
      const dumped = elapsed(started);
      const rows = await restoreInto(target, file.path, log);
      const pg = `${config.dataDir.replace(/\/+$/, "")}/pg`;
      await Deno.writeTextFile(
        `${pg}/${MOVED_MARKER}`,
        `${new Date().toISOString()} ${withoutPassword(url)}\n`,
      );
      console.log(JSON.stringify({
        moved_to: withoutPassword(url),
        backup: file.path,
        rows,
        dump_ms: dumped,
        ms: elapsed(started),
        next: "start the service with DATABASE_URL set to this database",
      }));
      return 0;
    } finally {
      await target.close();
    }
  } catch (err) {
    return await failed(err);
  }
}
