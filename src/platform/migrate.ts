/**
 * Forward-only migrations: `migrations/NNNN_name.sql`, applied in order, each recorded with a
 * SHA-256 checksum. A changed file that was already applied is refused. A database that a later
 * release migrated further still serves this code (migrations are additive), so versions this
 * code does not know are only logged. Concurrent start-ups serialise on a transaction-scoped
 * advisory lock, so each migration is applied once; a database already up to date is recognised
 * by one read of `schema_migrations`, without the lock or a transaction. What is pending is sent
 * as one text (a fresh embedded database is migrated in one round trip instead of two per file).
 */
import type { Logger } from "./log.ts";
import { type Sql, type TransactionSql, withoutStatementBound } from "./db.ts";
import { SystemError } from "./errors.ts";
import { createHash } from "node:crypto";

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Folder of the service's migrations: the repository's, or the copy `deno task bundle` puts beside
 * the bundle's modules, which all sit at the top of their folder (also inside a compiled binary).
 */
export const MIGRATIONS_DIR = new URL(
  import.meta.url.endsWith(".ts") ? "../../migrations/" : "./migrations/",
  import.meta.url,
);

// Any constant works; it only has to differ from other advisory locks the service takes.
const MIGRATION_LOCK_KEY = 7_285_001;

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Reads `NNNN_name.sql` files from a folder, sorted by version. The few small files are read and
 * hashed synchronously: as asynchronous reads and digests they were some fifty tasks on the
 * runtime's blocking pool at every start, each pool thread kept with its own allocator arena.
 */
// deno-lint-ignore require-await
export async function loadMigrations(dir: URL | string = MIGRATIONS_DIR): Promise<Migration[]> {
  const out: Migration[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(entry.name);
    if (!entry.isFile || !match) continue;
    const sql = Deno.readTextFileSync(new URL(entry.name, ensureSlash(dir)));
    out.push({ version: match[1], name: match[2], sql, checksum: sha256Hex(sql) });
  }
  // Four-digit versions: compared as strings (a collator costs milliseconds to set up at start).
  out.sort((a, b) => a.version < b.version ? -1 : a.version > b.version ? 1 : 0);
  for (let i = 1; i < out.length; i++) {
    if (out[i].version === out[i - 1].version) {
      throw new SystemError(`two migrations share version ${out[i].version}`);
    }
  }
  return out;
}

function ensureSlash(dir: URL | string): URL {
  const url = typeof dir === "string" ? new URL(dir, `file://${Deno.cwd()}/`) : dir;
  return url.href.endsWith("/") ? url : new URL(url.href + "/");
}

export class MigrationChecksumError extends SystemError {
  constructor(version: string, name: string) {
    super(
      `migration ${version}_${name}.sql was changed after it was applied; migrations are forward-only: add a new migration instead`,
      { version, name },
    );
    this.name = "MigrationChecksumError";
  }
}

/** A migration file the database refused; `cause` is the database's error. */
export class MigrationFailedError extends SystemError {
  constructor(readonly version: string, readonly migration: string, cause: unknown) {
    super(
      `migration ${version}_${migration}.sql failed: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { version, name: migration },
      { cause },
    );
    this.name = "MigrationFailedError";
  }
}

type Applied = Map<string, string>;

function warnNewer(all: Migration[], applied: Applied, log: Logger): void {
  const known = new Set(all.map((m) => m.version));
  const newer = [...applied.keys()].filter((v) => !known.has(v)).sort();
  if (newer.length) {
    log.warn("database migrated by a later release", { unknown_migrations: newer });
  }
}

/** The migrations still to apply; a changed, already-applied one is refused. */
function pending(all: Migration[], applied: Applied): Migration[] {
  return all.filter((m) => {
    const checksum = applied.get(m.version);
    if (checksum !== undefined && checksum !== m.checksum) {
      throw new MigrationChecksumError(m.version, m.name);
    }
    return checksum === undefined;
  });
}

async function appliedMigrations(sql: Sql | TransactionSql): Promise<Applied> {
  const rows = await sql<{ version: string; checksum: string }[]>`
    select version, checksum from schema_migrations`;
  return new Map(rows.map((r) => [r.version, r.checksum]));
}

const UNDEFINED_TABLE = "42P01";

/**
 * The applied migrations read without the lock, or null when the table does not exist yet. An
 * up-to-date database (every start but the first of a release) needs nothing more.
 */
async function appliedWithoutLock(sql: Sql): Promise<Applied | null> {
  try {
    return await appliedMigrations(sql);
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw err;
  }
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(sql: Sql, log: Logger, migrations?: Migration[]): Promise<string[]> {
  // The files are read and hashed while the first statement opens a connection.
  const reading = appliedWithoutLock(sql);
  const [all, applied] = await Promise.all([migrations ?? loadMigrations(), reading]);
  if (applied && all.every((m) => applied.has(m.version))) {
    warnNewer(all, applied, log);
    pending(all, applied);
    return [];
  }
  // No statement bound: an index build may take minutes, and so may waiting for the lock while
  // another instance migrates. The connect timeout still holds.
  try {
    return await withoutStatementBound(() => applyPending(sql, all, log, "batch"));
  } catch (err) {
    if (err instanceof MigrationChecksumError) throw err;
    // The batch rolled back as a whole: applying file by file names the one that fails.
    return await withoutStatementBound(() => applyPending(sql, all, log, "each"));
  }
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** How a migration is recorded: its version, name and checksum. */
const recordOf = (m: Migration) =>
  `insert into schema_migrations (version, name, checksum)
  values (${literal(m.version)}, ${literal(m.name)}, ${literal(m.checksum)})`;

/**
 * Under the lock, applies what is still pending in one transaction: as one multi-statement text
 * (every file followed by its record; one round trip, which counts on an embedded database), or
 * each file and its record on their own, naming the file that fails ({@link MigrationFailedError}).
 */
function applyPending(
  sql: Sql,
  all: Migration[],
  log: Logger,
  mode: "batch" | "each",
): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx.unsafe(`
      set local statement_timeout = 0;
      select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`);
    // Read again under the lock: another instance may have migrated meanwhile.
    const current = await appliedMigrations(tx);
    warnNewer(all, current, log);
    const todo = pending(all, current);
    if (mode === "batch" && todo.length) {
      // A file may end in a comment without a newline: each one ends on a line of its own.
      await tx.unsafe(todo.map((m) => `${m.sql}\n;\n${recordOf(m)};`).join("\n"));
    } else {
      for (const m of todo) {
        try {
          await tx.unsafe(m.sql);
        } catch (err) {
          throw new MigrationFailedError(m.version, m.name, err);
        }
        await tx.unsafe(recordOf(m));
      }
    }
    for (const m of todo) log.info("migration applied", { version: m.version, name: m.name });
    return todo.map((m) => m.version);
  });
}
