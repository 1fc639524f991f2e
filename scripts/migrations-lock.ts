/**
 * `deno task migrations:lock`: appends each migration that `migrations/checksums.lock` does not
 * list yet. Released migrations are frozen (docs/deployment.md), so a line of the lock is never
 * rewritten: a locked migration that changed, was renamed or is gone, or a new one numbered below
 * the last locked one, is refused instead.
 */
import { loadMigrations, type Migration, MIGRATIONS_DIR } from "../src/platform/migrate.ts";

export const LOCK_FILE = new URL("checksums.lock", MIGRATIONS_DIR);
export const LOCK_TASK = "deno task migrations:lock";

const HEADER = `# Every released migration: version, name and the SHA-256 of its file as
# src/platform/migrate.ts computes it. Append-only: \`${LOCK_TASK}\` adds new migrations;
# an existing line never changes (docs/deployment.md, "Migrations").
`;

export interface LockEntry {
  version: string;
  name: string;
  checksum: string;
}

export function parseLock(text: string): LockEntry[] {
  const entries: LockEntry[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) continue;
    const match = /^(\d{4}) ([a-z0-9_]+) ([0-9a-f]{64})$/.exec(trimmed);
    if (!match) {
      throw new Error(`checksums.lock line ${index + 1} is not "<version> <name> <sha256>"`);
    }
    entries.push({ version: match[1], name: match[2], checksum: match[3] });
  }
  return entries;
}

export interface LockComparison {
  /** Disagreements the task may not fix: a released migration changed, or the order is broken. */
  problems: string[];
  /** Migrations the lock does not list yet, numbered after its last entry. */
  unlocked: Migration[];
}

const fileName = (m: { version: string; name: string }) => `${m.version}_${m.name}.sql`;

export function compareLock(lock: LockEntry[], migrations: Migration[]): LockComparison {
  const problems: string[] = [];
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  let last = "";
  for (const entry of lock) {
    if (entry.version <= last) {
      problems.push(`checksums.lock lists ${entry.version} after ${last}: entries are in order`);
    } else {
      last = entry.version;
    }
    const migration = byVersion.get(entry.version);
    if (!migration) {
      problems.push(`${fileName(entry)} is locked but gone: a released migration stays`);
    } else if (migration.name !== entry.name) {
      problems.push(
        `${fileName(entry)} is locked but now named ${fileName(migration)}: rename it back`,
      );
    } else if (migration.checksum !== entry.checksum) {
      problems.push(
        `${fileName(entry)} changed after it was locked: released migrations are frozen; ` +
          `undo the change and put it into a new migration`,
      );
    }
  }
  const locked = new Set(lock.map((e) => e.version));
  const unlocked: Migration[] = [];
  for (const migration of migrations) {
    if (locked.has(migration.version)) continue;
    if (migration.version < last) {
      problems.push(
        `${fileName(migration)} is numbered below the last locked migration ${last}: ` +
          `databases past ${last} would apply it out of order; number it after ${last}`,
      );
    } else {
      unlocked.push(migration);
    }
  }
  return { problems, unlocked };
}

/** The lock's text with `migrations` appended (the header starts a lock that does not exist). */
export function appendToLock(text: string, migrations: Migration[]): string {
  const base = text === "" ? HEADER : text.endsWith("\n") ? text : text + "\n";
  return base + migrations.map((m) => `${m.version} ${m.name} ${m.checksum}\n`).join("");
}

export async function readLock(file: URL = LOCK_FILE): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  }
}

if (import.meta.main) {
  const text = await readLock();
  const { problems, unlocked } = compareLock(parseLock(text), await loadMigrations());
  if (problems.length) {
    console.error(problems.join("\n"));
    console.error("checksums.lock left unchanged");
    Deno.exit(1);
  }
  if (unlocked.length) await Deno.writeTextFile(LOCK_FILE, appendToLock(text, unlocked));
  console.log(
    unlocked.length
      ? `locked ${unlocked.map(fileName).join(", ")}`
      : "every migration is locked already",
  );
}
