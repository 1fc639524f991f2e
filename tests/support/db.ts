/**
 * A database of the test's own. With `TEST_DATABASE_URL` set, a fresh database is created on that
 * server (and dropped afterwards); without it, an embedded PGlite cloned from a migrated
 * template. Either way the test never shares rows with another test.
 */
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import {
  connect,
  type Database,
  embeddedDatabase,
  startEmbeddedPostgres,
} from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
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
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = withDatabaseName(TEST_DATABASE_URL, name);
  const poolSize = options.poolSize ?? 5;
  const sql = connect(url, poolSize, log);
  if (options.migrate !== false) await migrate(sql, quietLog);
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
