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
} from "../../src/platform/db.ts";
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
    const embedded = await startEmbeddedPostgres({
      loadDataDir: options.migrate === false ? undefined : await embeddedTemplate(),
      settings: EMBEDDED_TEST_SETTINGS,
    });
    return embeddedDatabase(embedded, log);
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
  const sql = connect(url, poolSize, log);
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

/** A second pool on the same database (for concurrency tests); real PostgreSQL only. */
/** The same database for a second app of a test (closing that app leaves the database open). */
export const notClosing = (db: Database): Database => ({ ...db, close: () => Promise.resolve() });

export function secondPool(db: Database, poolSize = 5) {
  return connect(db.url, poolSize, quietLog);
}

export { PGlite };
