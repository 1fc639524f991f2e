/**
 * A logical backup of the database: every table of the `public` schema as JSON rows, the sequences
 * and the applied migrations, read in one repeatable-read transaction (a consistent snapshot while
 * writes go on) and written as gzipped JSON lines. The same file restores into an embedded or a
 * PostgreSQL database (`restore.ts`), which is also how an embedded install moves to PostgreSQL.
 *
 * The file: a header line `{"@backup": {...}}`, then per table `{"@table": name}`, its rows (one
 * JSON object per line, `row_to_json`), and `{"@end": name, "rows": n}`; last `{"@done": {...}}`
 * with every table's count.
 */
import { type Sql, withoutStatementBound } from "../db.ts";

export const BACKUP_FORMAT = "goal-tracker-backup";
export const BACKUP_FORMAT_VERSION = 1;
/** Rows fetched per round trip while a table is read. */
const CURSOR_ROWS = 500;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_FORMAT_VERSION;
  createdAt: string;
  /** The applied migrations, as `schema_migrations` holds them. */
  migrations: { version: string; name: string; checksum: string; applied_at: string }[];
  /** The tables in load groups ({@link backupGroups}). */
  groups: string[][];
  /** Sequences of the schema and their position (`lastValue` null: never used). */
  sequences: { name: string; lastValue: string | null }[];
  tables: string[];
}

export interface BackupSummary {
  header: BackupHeader;
  /** Rows per table. */
  rows: Record<string, number>;
}

/**
 * The tables a backup holds (every table of `public` but the migration records) in load groups:
 * each group after the groups it references. Tables whose foreign keys form a cycle share a group
 * and are restored in one statement, since a constraint is checked at the end of its statement.
 */
export async function backupGroups(sql: Sql): Promise<string[][]> {
  const tables = (await sql<{ name: string }[]>`
    select tablename as name from pg_tables
    where schemaname = 'public' and tablename <> 'schema_migrations' order by tablename`)
    .map((r) => r.name);
  const edges = await sql<{ child: string; parent: string }[]>`
    select c.relname as child, p.relname as parent
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and k.connamespace = 'public'::regnamespace and c.oid <> p.oid`;
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const e of edges) if (parents.has(e.parent)) parents.get(e.child)?.add(e.parent);
  return stronglyConnected(tables, parents);
}

/** The flat table list of {@link backupGroups}. */
export async function backupTables(sql: Sql): Promise<string[]> {
  return (await backupGroups(sql)).flat();
}

/**
 * Tarjan's strongly connected components of the graph child → parents, emitted parents first
 * (the order Tarjan finds them in), each component's tables sorted.
 */
function stronglyConnected(nodes: string[], parents: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of parents.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      groups.push(group.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return groups;
}

/**
 * Writes the backup of the database `sql` reaches to `out` (gzip applied here) and returns what it
 * holds. `now` stamps the header.
 */
export async function dumpDatabase(
  sql: Sql,
  out: WritableStream<Uint8Array>,
  now: Date,
): Promise<BackupSummary> {
  const gzip = new CompressionStream("gzip");
  const piping = gzip.readable.pipeTo(out);
  const writer = gzip.writable.getWriter();
  const encoder = new TextEncoder();
  let pending: string[] = [];
  const flush = async () => {
    if (!pending.length) return;
    const chunk = pending.join("");
    pending = [];
    await writer.write(encoder.encode(chunk));
  };
  const line = async (text: string) => {
    pending.push(text, "\n");
    if (pending.length > 2_000) await flush();
  };
  try {
    const summary = await withoutStatementBound(() =>
      sql.begin("isolation level repeatable read read only", async (tx) => {
        await tx`set local statement_timeout = 0`;
        const groups = await backupGroups(tx as unknown as Sql);
        const tables = groups.flat();
        const migrations = await tx<BackupHeader["migrations"]>`
        select version, name, checksum, applied_at::text as applied_at
        from schema_migrations order by version`;
        const sequences = await tx<{ name: string; lastValue: string | null }[]>`
        select sequencename as name, last_value::text as "lastValue" from pg_sequences
        where schemaname = 'public' order by sequencename`;
        const header: BackupHeader = {
          format: BACKUP_FORMAT,
          version: BACKUP_FORMAT_VERSION,
          createdAt: now.toISOString(),
          migrations: [...migrations],
          groups,
          sequences: [...sequences],
          tables,
        };
        await line(JSON.stringify({ "@backup": header }));
        const rows: Record<string, number> = {};
        for (const table of tables) {
          await line(JSON.stringify({ "@table": table }));
          let count = 0;
          const cursor = tx<{ r: string }[]>`select row_to_json(t)::text as r from ${tx(table)} t`
            .cursor(CURSOR_ROWS);
          for await (const batch of cursor) {
            for (const { r } of batch) await line(r);
            count += batch.length;
          }
          rows[table] = count;
          await line(JSON.stringify({ "@end": table, rows: count }));
        }
        await line(JSON.stringify({ "@done": { rows } }));
        return { header, rows };
      })
    );
    await flush();
    await writer.close();
    await piping;
    return summary;
  } catch (err) {
    await writer.abort(err).catch(() => {});
    await piping.catch(() => {});
    throw err;
  }
}
