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
import { createLogger, type Logger } from "../../src/platform/log.ts";

export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") || undefined;
export const TEST_REDIS_URL = Deno.env.get("TEST_REDIS_URL") || undefined;
export const DB_MODE = TEST_DATABASE_URL ? "postgres" : "embedded";

const quietLog = createLogger({ level: "error" });

let template: Promise<Blob> | undefined;

/** A migrated PGlite data dir, made once per test process and cloned for each test. */
function embeddedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const embedded = await startEmbeddedPostgres({});
    const sql = connect(embedded.url, 1, quietLog);
    try {
      await migrate(sql, quietLog);
    } finally {
      await sql.end();
    }
    const dump = await embedded.pglite.dumpDataDir("none");
    await embedded.stop();
    return dump;
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
    const embedded = options.migrate === false
      ? await startEmbeddedPostgres({})
      : await startEmbeddedPostgres({ loadDataDir: await embeddedTemplate() });
    return embeddedDatabase(embedded, log);
  }
  const name = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  const template = options.migrate === false ? null : await postgresTemplate(TEST_DATABASE_URL);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}${template ? ` template ${template}` : ""}`);
  await admin.end();
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
