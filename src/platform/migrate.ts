/**
 * Forward-only migrations: `migrations/NNNN_name.sql`, applied in order, each recorded with a
 * SHA-256 checksum. A changed file that was already applied is refused. A database that a later
 * release migrated further still serves this code (migrations are additive), so versions this
 * code does not know are only logged. Concurrent start-ups serialise on a transaction-scoped
 * advisory lock, so each migration is applied once.
 */
import type { Logger } from "./log.ts";
import { type Sql, withoutStatementBound } from "./db.ts";
import { SystemError } from "./errors.ts";

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

/** Folder of the service's migrations (also inside a compiled binary, see `deno task compile`). */
export const MIGRATIONS_DIR = new URL("../../migrations/", import.meta.url);

// Any constant works; it only has to differ from other advisory locks the service takes.
const MIGRATION_LOCK_KEY = 7_285_001;

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads `NNNN_name.sql` files from a folder, sorted by version. */
export async function loadMigrations(dir: URL | string = MIGRATIONS_DIR): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(entry.name);
    if (!entry.isFile || !match) continue;
    const sql = await Deno.readTextFile(new URL(entry.name, ensureSlash(dir)));
    out.push({ version: match[1], name: match[2], sql, checksum: await sha256Hex(sql) });
  }
  out.sort((a, b) => a.version.localeCompare(b.version));
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
    );
    this.name = "MigrationChecksumError";
  }
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(sql: Sql, log: Logger, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? await loadMigrations();
  // No statement bound: an index build may take minutes, and so may waiting for the lock while
  // another instance migrates. The connect timeout still holds.
  return await withoutStatementBound(() =>
    sql.begin(async (tx) => {
      await tx`set local statement_timeout = 0`;
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      await tx`
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
      const applied = new Map(
        (await tx<{ version: string; checksum: string }[]>`
        select version, checksum from schema_migrations`).map((r) => [r.version, r.checksum]),
      );
      const known = new Set(all.map((m) => m.version));
      const newer = [...applied.keys()].filter((v) => !known.has(v)).sort();
      if (newer.length) {
        log.warn("database migrated by a later release", { unknown_migrations: newer });
      }
      const done: string[] = [];
      for (const m of all) {
        const checksum = applied.get(m.version);
        if (checksum !== undefined) {
          if (checksum !== m.checksum) throw new MigrationChecksumError(m.version, m.name);
          continue;
        }
        await tx.unsafe(m.sql);
        await tx`
        insert into schema_migrations (version, name, checksum)
        values (${m.version}, ${m.name}, ${m.checksum})`;
        log.info("migration applied", { version: m.version, name: m.name });
        done.push(m.version);
      }
      return done;
    })
  );
}
