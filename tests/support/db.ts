/**
 * A database of the test's own. With `TEST_DATABASE_URL` set, a fresh database is created on that
 * server (and dropped afterwards), copied from a migrated template database; without it, an
 * embedded PGlite cloned from a migrated template. Either way the test never shares rows with
 * another test.
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import {
  connect,
  type Database,
  embeddedDatabase,
  startEmbeddedPostgres,
  type StatementListener,
} from "../../src/platform/db.ts";
import { serveEmbedded, startPGlite } from "../../src/platform/embedded.ts";
import { loadMigrations, migrate } from "../../src/platform/migrate.ts";
import { ensureEmbeddedTemplate } from "../../scripts/embedded-template.ts";
import { createLogger, type Logger } from "../../src/platform/log.ts";

export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") || undefined;
export const TEST_REDIS_URL = Deno.env.get("TEST_REDIS_URL") || undefined;
/**
 * A tablespace on the test server for the tests' databases. `.ci/run` makes one in memory (tmpfs),
 * where creating a database's few hundred files waits on no disk.
 */
export const TEST_DATABASE_TABLESPACE = testTablespace(Deno.env.get("TEST_DATABASE_TABLESPACE"));
export const DB_MODE = TEST_DATABASE_URL ? "postgres" : "embedded";

const quietLog = createLogger({ level: "error" });

function testTablespace(name: string | undefined): string | undefined {
  if (!name) return undefined;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    throw new Error(`TEST_DATABASE_TABLESPACE: not a plain identifier: ${JSON.stringify(name)}`);
  }
  return name;
}

/**
 * Where the tests keep their migrated PGlite data dir (git-ignored), named as the service's
 * template is: a digest of the PGlite package, every migration's version and checksum, and the
 * statements below.
 */
export const TEST_TEMPLATE_DIR = new URL(
  "../../build/test-cache/embedded-template/",
  import.meta.url,
);

/**
 * Run on the tests' template before it is saved. PGlite opens only the `postgres` database; the two
 * template databases would be unpacked at every test database's start for nothing. (Nothing in a
 * test creates a database in embedded mode.)
 */
const TEST_TEMPLATE_STATEMENTS = [
  "update pg_database set datistemplate = false where datname in ('template0', 'template1')",
  "drop database template0",
  "drop database template1",
];

let template: Promise<Blob> | undefined;

/**
 * The migrated PGlite data dir each test's database is cloned from: built once per migration set
 * and PGlite version into {@link TEST_TEMPLATE_DIR} by whichever test process needs it first (the
 * others wait for it), then read and unpacked once per test process.
 */
function embeddedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const { file } = await ensureEmbeddedTemplate(
      TEST_TEMPLATE_DIR,
      await loadMigrations(),
      TEST_TEMPLATE_STATEMENTS,
    );
    using packed = await Deno.open(file);
    return await new Response(packed.readable.pipeThrough(new DecompressionStream("gzip")))
      .blob();
  })();
  return template;
}

/**
 * A migrated database on the test server to copy test databases from (`create database ...
 * template`), named by a digest of the migrations so a changed migration gets a new one. Test
 * processes running at once build it once, under an advisory lock; it is built under another name
 * and renamed, so no one copies a half-migrated template.
 */
let serverTemplate: Promise<string> | undefined;

function postgresTemplate(serverUrl: string): Promise<string> {
  serverTemplate ??= (async () => {
    const migrations = await loadMigrations();
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(migrations.map((m) => `${m.version}:${m.checksum}`).join("\n")),
    );
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"));
    const name = `tmpl_${hex.join("").slice(0, 20)}`;
    // One connection, so the session advisory lock and the statements share it.
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    try {
      await admin`select pg_advisory_lock(hashtext(${name}))`;
      const [found] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!found) {
        const building = `${name}_building`;
        await admin.unsafe(`drop database if exists ${building} with (force)`);
        await admin.unsafe(`create database ${building}`);
        const sql = connect(withDatabaseName(serverUrl, building), 1, quietLog);
        try {
          await migrate(sql, quietLog);
        } finally {
          await sql.end();
        }
        await admin.unsafe(`alter database ${building} rename to ${name}`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return serverTemplate;
}

/**
 * Server settings for embedded test databases only. A test's data is a few megabytes, and PGlite
 * sets up all of PostgreSQL's default shared buffers in its memory at every start.
 */
const EMBEDDED_TEST_SETTINGS = { shared_buffers: "16MB" };

export interface TestDatabaseOptions {
  /** Apply the project's migrations (default true). */
  migrate?: boolean;
  poolSize?: number;
  log?: Logger;
  /** Told every statement the database's pool sends (tests that check plans). */
  onStatement?: StatementListener;
}

function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.href;
}

/** Creates the test's own database. Close it with `db.close()`. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<Database> {
  const log = options.log ?? quietLog;
  if (!TEST_DATABASE_URL) {
    if (options.migrate === false) {
      const embedded = await startEmbeddedPostgres({ settings: EMBEDDED_TEST_SETTINGS });
      return embeddedDatabase(embedded, log);
    }
    return await pooledEmbeddedDatabase(log, options.onStatement);
  }
  const name = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  const template = options.migrate === false ? null : await postgresTemplate(TEST_DATABASE_URL);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(
      `create database ${name}${template ? ` template ${template}` : ""}${
        TEST_DATABASE_TABLESPACE ? ` tablespace ${TEST_DATABASE_TABLESPACE}` : ""
      }`,
    );
    // A test's commits need not wait for the disk (whatever the server's own setting).
    await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const url = withDatabaseName(TEST_DATABASE_URL, name);
  const poolSize = options.poolSize ?? 5;
  const sql = connect(url, poolSize, log, undefined, { onStatement: options.onStatement });
  return {
    sql,
    mode: "postgres",
    url,
    poolSize,
    supportsListen: true,
    async close() {
      await sql.end({ timeout: 5 });
      const dropper = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

/**
 * Migrated PGlite instances of this test process that a closed test database left, emptied. A
 * PGlite start (unpacking the template, setting up its memory) costs more than the tests of a
 * typical file; emptying one costs a few statements. A test still never sees another's rows:
 * closing truncates every table but `schema_migrations` (identities restarted) and discards the
 * session, and an instance whose catalog no longer matches the template (a test created or
 * changed an object) is stopped instead of reused. Only the PGlite instance waits here; its
 * loopback server is started per test database and stopped at close, so no test leaves a
 * resource open.
 */
const idleEmbedded: PGliteInstance[] = [];
type PGliteInstance = Awaited<ReturnType<typeof startPGlite>>;
let templateCatalog: string | undefined;

/**
 * What tells a test's leftovers from the template's schema: any object created or dropped (object
 * ids and counts), a column added or dropped, a trigger turned off.
 */
async function catalogOf(pglite: PGliteInstance): Promise<string> {
  const { rows } = await pglite.query<{ digest: string }>(`
    select concat_ws(',',
      (select count(*) || ':' || max(oid) from pg_class),
      (select count(*) || ':' || max(oid) from pg_proc),
      (select count(*) || ':' || max(oid) from pg_type),
      (select count(*) || ':' || max(oid) from pg_constraint),
      (select count(*) from pg_attribute where attrelid >= 16384 and not attisdropped),
      (select count(*) || ':' || string_agg(tgenabled::text, '' order by oid) from pg_trigger),
      (select count(*) from pg_namespace)) as digest`);
  return rows[0].digest;
}

/** A statement naming the tables with rows, built once from the template's tables. */
let tablesWithRows: string | undefined;

/** Empties a migrated instance; false when it can no longer pass for a fresh one. */
async function emptied(pglite: PGliteInstance): Promise<boolean> {
  try {
    await pglite.exec("rollback");
    await pglite.exec("discard all");
    if (!tablesWithRows) {
      const { rows } = await pglite.query<{ name: string }>(
        `select format('%I.%I', schemaname, tablename) as name from pg_tables
          where schemaname = 'public' and tablename <> 'schema_migrations'`,
      );
      tablesWithRows = rows.map((r) =>
        `select '${r.name}' as name where exists (select from ${r.name})`
      ).join(" union all ");
    }
    const { rows: written } = await pglite.query<{ name: string }>(tablesWithRows);
    if (written.length) {
      // Foreign keys and triggers are off for the session meanwhile: any order empties them.
      await pglite.exec(`set session_replication_role = replica;
        ${written.map((t) => `delete from ${t.name};`).join("\n")}
        reset session_replication_role`);
    }
    await pglite.exec(`select setval(format('%I.%I', schemaname, sequencename), start_value, false)
      from pg_sequences where last_value is not null`);
    return (await catalogOf(pglite)) === templateCatalog;
  } catch {
    return false;
  }
}

async function pooledEmbeddedDatabase(
  log: Logger,
  onStatement?: StatementListener,
): Promise<Database> {
  let pglite = idleEmbedded.pop();
  if (!pglite) {
    pglite = await startPGlite({
      loadDataDir: await embeddedTemplate(),
      settings: EMBEDDED_TEST_SETTINGS,
    });
  }
  templateCatalog ??= await catalogOf(pglite);
  const served = await serveEmbedded(pglite);
  const instance = pglite;
  const db = embeddedDatabase(
    { ...served, stop: () => Promise.resolve() },
    log,
    undefined,
    onStatement,
  );
  return {
    ...db,
    async close() {
      await db.close();
      await served.stop();
      if (await emptied(instance)) idleEmbedded.push(instance);
      else await instance.close();
    },
  };
}

/** A second pool on the same database (for concurrency tests); real PostgreSQL only. */
/** The same database for a second app of a test (closing that app leaves the database open). */
export const notClosing = (db: Database): Database => ({ ...db, close: () => Promise.resolve() });

export function secondPool(db: Database, poolSize = 5) {
  return connect(db.url, poolSize, quietLog);
}

export { PGlite };
