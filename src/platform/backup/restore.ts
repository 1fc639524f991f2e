/**
 * Restoring a logical backup (`dump.ts`) into an EMPTY database, embedded or PostgreSQL: the
 * schema is made by the service's own migrations up to the backup's last one, every table is
 * emptied of what migrations seed and loaded in foreign-key order with the tables' own triggers
 * off (so rollups are not counted twice), the sequences and migration records are set as they were,
 * the row counts are checked against the backup, and later migrations then bring it up to this
 * release. The restoring role needs to own the tables it creates, nothing more.
 */
import type { Logger } from "../log.ts";
import { type Sql, type TransactionSql, withoutStatementBound } from "../db.ts";
import { migrate, type Migration } from "../migrate.ts";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, type BackupHeader } from "./dump.ts";

/** A backup that cannot be restored here, or a target that is not empty. Nothing was changed. */
export class RestoreRefused extends Error {
  override name = "RestoreRefused";
}

/** The backup's content was not what its header and counts said; the load was rolled back. */
export class RestoreFailed extends Error {
  override name = "RestoreFailed";
}

/** Rows inserted per statement (a table that references itself goes in one statement). */
const BATCH_ROWS = 500;

/** The lines of a gzipped backup file. */
async function* backupLines(input: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const text = (input as ReadableStream<BufferSource>).pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(
      new TextDecoderStream(),
    );
  let rest = "";
  for await (const chunk of text) {
    rest += chunk;
    let end: number;
    while ((end = rest.indexOf("\n")) >= 0) {
      yield rest.slice(0, end);
      rest = rest.slice(end + 1);
    }
  }
  if (rest) yield rest;
}

function parseHeader(line: string): BackupHeader {
  let header: BackupHeader | undefined;
  try {
    header = JSON.parse(line)["@backup"];
  } catch {
    header = undefined;
  }
  if (!header || header.format !== BACKUP_FORMAT) {
    throw new RestoreRefused("not a backup of this service (no backup header)");
  }
  if (header.version !== BACKUP_FORMAT_VERSION) {
    throw new RestoreRefused(`backup format ${header.version} is not known to this release`);
  }
  return header;
}

/** The code's migrations up to the backup's last one; refused when they differ. */
export function migrationsOfBackup(header: BackupHeader, code: Migration[]): Migration[] {
  const byVersion = new Map(code.map((m) => [m.version, m]));
  for (const m of header.migrations) {
    const ours = byVersion.get(m.version);
    if (!ours) {
      throw new RestoreRefused(
        `the backup was made by a newer release (migration ${m.version}_${m.name} is unknown here): restore it with that release or a later one`,
      );
    }
    if (ours.checksum !== m.checksum) {
      throw new RestoreRefused(
        `migration ${m.version}_${m.name} differs between the backup and this release`,
      );
    }
  }
  const last = header.migrations.at(-1)?.version ?? "";
  const prefix = code.filter((m) => m.version <= last);
  if (prefix.length !== header.migrations.length) {
    throw new RestoreRefused("the backup's migrations are not the ones this release applies");
  }
  return prefix;
}

/**
 * Inserts JSON rows into tables (their own columns, not generated ones; ids as they were) in one
 * statement, so foreign keys among them are checked once all are in.
 */
async function insertRows(
  tx: TransactionSql,
  parts: { table: string; columns: string[]; rows: string[] }[],
) {
  const present = parts.filter((p) => p.rows.length);
  if (!present.length) return;
  const inserts = present.map(({ table, columns }, i) => {
    const list = columns.map(ident).join(", ");
    return `insert into ${ident(table)} (${list}) overriding system value
      select ${list} from json_populate_recordset(null::${ident(table)}, $${i + 1}::text::json)`;
  });
  const text = inserts.length === 1
    ? inserts[0]
    : `with ${inserts.slice(1).map((q, i) => `i${i} as (${q})`).join(", ")} ${inserts[0]}`;
  await tx.unsafe(text, present.map((p) => `[${p.rows.join(",")}]`));
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Reads a whole backup and checks it is complete: every table's rows as many as its end line
 * says, and the final line present. Returns the header; throws {@link RestoreFailed} otherwise.
 */
export async function checkBackup(input: ReadableStream<Uint8Array>): Promise<BackupHeader> {
  const lines = backupLines(input);
  try {
    const first = await lines.next();
    const header = parseHeader(first.done ? "" : first.value);
    let table: string | null = null;
    let rows = 0;
    let done = false;
    for await (const line of lines) {
      if (!line.startsWith('{"@')) {
        if (table === null) throw new RestoreFailed("the backup has rows outside a table");
        rows += 1;
        continue;
      }
      const control = JSON.parse(line);
      if ("@table" in control) [table, rows] = [control["@table"], 0];
      else if ("@end" in control) {
        if (control["@end"] !== table || control.rows !== rows) {
          throw new RestoreFailed(`table ${control["@end"]}: the backup is incomplete`);
        }
        table = null;
      } else if ("@done" in control) done = true;
    }
    if (!done || table !== null) {
      throw new RestoreFailed("the backup ends early (no end line): it is incomplete");
    }
    return header;
  } catch (err) {
    if (err instanceof SyntaxError) {
      throw new RestoreFailed("the backup is damaged (a line is not JSON)");
    }
    throw err;
  } finally {
    await lines.return(undefined);
  }
}

/**
 * Restores the backup `open` reads into the empty database `sql` reaches, then migrates it to
 * `code`'s last migration. The file is checked whole first (it is read twice), so a damaged or
 * cut backup, a newer release's, or a target that is not empty changes nothing at all. Returns
 * the rows per table.
 */
export async function restoreDatabase(
  sql: Sql,
  open: () => Promise<ReadableStream<Uint8Array>>,
  code: Migration[],
  log: Logger,
): Promise<Record<string, number>> {
  const header = await checkBackup(await open());
  const prefix = migrationsOfBackup(header, code);
  const existing = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_tables where schemaname = 'public'`;
  if (existing[0].n > 0) {
    throw new RestoreRefused(
      `the target database is not empty (${
        existing[0].n
      } tables): restore into a new, empty database`,
    );
  }
  const lines = backupLines(await open());
  try {
    await lines.next();
    await migrate(sql, log, prefix);
    const rows = await withoutStatementBound(() =>
      sql.begin(async (tx) => {
        await tx`set local statement_timeout = 0`;
        return await loadTables(tx, header, lines);
      })
    );
    log.info("backup restored", { tables: Object.keys(rows).length, created_at: header.createdAt });
    if (prefix.length < code.length) {
      await migrate(sql, log, code);
    }
    return rows;
  } finally {
    await lines.return(undefined);
  }
}

async function loadTables(
  tx: TransactionSql,
  header: BackupHeader,
  lines: AsyncGenerator<string>,
): Promise<Record<string, number>> {
  const tables = header.tables;
  const present = new Set(
    (await tx<{ name: string }[]>`
      select tablename as name from pg_tables
      where schemaname = 'public' and tablename <> 'schema_migrations'`).map((r) => r.name),
  );
  const missing = tables.filter((t) => !present.has(t));
  if (missing.length) throw new RestoreFailed(`tables missing after migrating: ${missing}`);
  // What the migrations seeded goes: the backup holds the rows as they were.
  await tx.unsafe(`truncate ${[...present].map(ident).join(", ")} restart identity cascade`);
  for (const t of present) await tx.unsafe(`alter table ${ident(t)} disable trigger user`);

  const columns = new Map<string, string[]>();
  for (
    const c of await tx<{ table: string; column: string }[]>`
    select table_name as table, column_name as column from information_schema.columns
    where table_schema = 'public' and is_generated = 'NEVER' order by ordinal_position`
  ) {
    columns.set(c.table, [...(columns.get(c.table) ?? []), c.column]);
  }
  const selfReferencing = new Set(
    (await tx<{ name: string }[]>`
      select c.relname as name from pg_constraint k join pg_class c on c.oid = k.conrelid
      where k.contype = 'f' and k.conrelid = k.confrelid
        and k.connamespace = 'public'::regnamespace`).map((r) => r.name),
  );

  // The backup lists its load groups parents first (`backupGroups`): rows go in as they are
  // read, but a group of tables that reference each other, or a table that references itself, is
  // held until it is complete and goes in as one statement.
  const groupOf = new Map<string, string[]>();
  for (const group of header.groups) for (const t of group) groupOf.set(t, group);
  const counted: Record<string, number> = {};
  const held = new Map<string, string[]>();
  let current: string | null = null;
  let done: Record<string, number> | null = null;
  const whole = (table: string) => groupOf.get(table)!.length > 1 || selfReferencing.has(table);
  const flush = async (tables: string[]) => {
    await insertRows(
      tx,
      tables.map((table) => ({ table, columns: columns.get(table)!, rows: held.get(table)! })),
    );
    for (const t of tables) held.set(t, []);
  };
  for await (const line of lines) {
    if (line.startsWith('{"@')) {
      const control = JSON.parse(line);
      if ("@table" in control) {
        current = control["@table"];
        if (!present.has(current!) || !groupOf.has(current!)) {
          throw new RestoreFailed(`unknown table ${current}`);
        }
        counted[current!] = 0;
        held.set(current!, []);
      } else if ("@end" in control) {
        const table = control["@end"];
        if (counted[table] !== control.rows) {
          throw new RestoreFailed(`table ${table}: the backup is incomplete`);
        }
        const group = groupOf.get(table)!;
        if (!whole(table)) await flush([table]);
        else if (group.every((t) => t in counted) && table === group.at(-1)) await flush(group);
        current = null;
      } else if ("@done" in control) done = control["@done"].rows;
      continue;
    }
    if (current === null) throw new RestoreFailed("the backup has rows outside a table");
    held.get(current)!.push(line);
    counted[current] += 1;
    if (!whole(current) && held.get(current)!.length >= BATCH_ROWS) await flush([current]);
  }
  if (!done) throw new RestoreFailed("the backup ends early (no end line): it is incomplete");
  for (const table of tables) {
    const n = (await tx.unsafe(`select count(*)::int as n from ${ident(table)}`))[0].n;
    if (n !== done[table]) {
      throw new RestoreFailed(
        `table ${table}: ${n} rows restored, the backup holds ${done[table]}`,
      );
    }
    counted[table] = n;
  }
  for (const t of present) await tx.unsafe(`alter table ${ident(t)} enable trigger user`);
  for (const s of header.sequences) {
    if (s.lastValue !== null) {
      await tx`select setval(${`public.${
        ident(s.name)
      }`}::regclass, ${s.lastValue}::text::bigint, true)`;
    }
  }
  await tx`delete from schema_migrations`;
  for (const m of header.migrations) {
    await tx`insert into schema_migrations (version, name, checksum, applied_at)
      values (${m.version}, ${m.name}, ${m.checksum}, ${m.applied_at}::text::timestamptz)`;
  }
  return counted;
}
