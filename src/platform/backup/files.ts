/**
 * Backup files in a folder: written under a temporary name and renamed when complete (a folder
 * never shows half a backup), listed newest first, and pruned to the newest `keep`.
 */
import type { Sql } from "../db.ts";
import { type BackupSummary, dumpDatabase } from "./dump.ts";

const NAME = /^backup-(\d{8}T\d{6}(?:\d{3})?Z)\.ndjson\.gz$/;

export interface BackupFile {
  name: string;
  path: string;
  bytes: number;
  createdAt: Date;
}

/** `backup-20261129T115500123Z.ndjson.gz` for `now`. */
export function backupFileName(now: Date): string {
  return `backup-${now.toISOString().replace(/[-:]/g, "").replace(".", "")}.ndjson.gz`;
}

function createdAtOf(name: string): Date | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const s = match[1];
  const ms = s.length > 16 ? s.slice(15, 18) : "000";
  return new Date(
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${
      s.slice(13, 15)
    }.${ms}Z`,
  );
}

/** Writes a backup of `sql`'s database into `dir`; the file appears only once complete. */
export async function writeBackupFile(
  sql: Sql,
  dir: string,
  now: Date,
): Promise<{ file: BackupFile; summary: BackupSummary }> {
  await Deno.mkdir(dir, { recursive: true });
  const name = backupFileName(now);
  const path = `${dir}/${name}`;
  const partial = `${path}.partial`;
  const out = await Deno.open(partial, { write: true, create: true, truncate: true, mode: 0o600 });
  try {
    const summary = await dumpDatabase(sql, out.writable, now);
    await Deno.rename(partial, path);
    const bytes = (await Deno.stat(path)).size;
    return { file: { name, path, bytes, createdAt: now }, summary };
  } catch (err) {
    await Deno.remove(partial).catch(() => {});
    throw err;
  }
}

/** The backups in `dir`, newest first (none when it does not exist). */
export async function listBackups(dir: string): Promise<BackupFile[]> {
  const out: BackupFile[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const createdAt = entry.isFile ? createdAtOf(entry.name) : null;
      if (!createdAt) continue;
      const path = `${dir}/${entry.name}`;
      out.push({ name: entry.name, path, bytes: (await Deno.stat(path)).size, createdAt });
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Removes all but the newest `keep` backups; returns the names removed. */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const old = (await listBackups(dir)).slice(keep);
  for (const file of old) await Deno.remove(file.path).catch(() => {});
  return old.map((f) => f.name);
}
