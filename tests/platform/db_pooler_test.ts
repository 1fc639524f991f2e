/**
 * The database through a real PgBouncer in transaction pooling mode (`deploy/pgbouncer.ini`), as
 * `DATABASE_URL` with `DATABASE_DIRECT_URL` beside it: statements run without prepared
 * statements or start-up settings, the server's timeout comes from the pooler's `connect_query`,
 * migrations and LISTEN use the direct connection, and a NOTIFY sent inside a pooled transaction
 * reaches the listener. Real PostgreSQL only (PgBouncer cannot front the embedded database).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openDatabase, sessionSql } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { startPgBouncer } from "../../cluster/pgbouncer.ts";
import { TEST_DATABASE_URL } from "../support/db.ts";
import { PGBOUNCER, testNeeding } from "../support/requirements.ts";
import { waitFor } from "../support/wait.ts";

const test = TEST_DATABASE_URL
  ? testNeeding(PGBOUNCER)
  : (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `${name} (ignored: real PostgreSQL only)`, ignore: true, fn });

const log = createLogger({ level: "error" });

async function withPooledDatabase(
  fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>,
) {
  const name = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const dir = await Deno.makeTempDir({ prefix: "pooler-" });
  const direct = new URL(TEST_DATABASE_URL!);
  direct.pathname = `/${name}`;
  const bouncer = await startPgBouncer({
    serverUrl: TEST_DATABASE_URL!,
    dir,
    maxServerConnections: 2,
    statementTimeoutMs: 4321,
  });
  const db = await openDatabase({
    databaseUrl: bouncer.urlFor(direct.href),
    directUrl: direct.href,
    dataDir: dir,
    poolSize: 6,
    log,
  });
  try {
    await fn(db);
  } finally {
    await db.close();
    await bouncer.stop();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    await Deno.remove(dir, { recursive: true });
  }
}

test("pooled database: migrations on the direct connection, statements through PgBouncer without prepared statements", async () => {
  await withPooledDatabase(async (db) => {
    assert.ok(db.direct, "a direct connection beside the pooled one");
    const applied = await migrate(sessionSql(db), log);
    assert.ok(applied.length > 0);
    // Six clients over two server connections: a statement prepared on one server connection
    // and executed on another would fail ("prepared statement does not exist").
    const answers = await Promise.all(
      Array.from(
        { length: 60 },
        (_, i) =>
          i % 2
            ? db.sql<{ n: number }[]>`select ${i}::int as n`.then((r) => r[0].n)
            : db.sql.begin(async (tx) => {
              const [row] = await tx<{ n: number }[]>`select ${i}::int + 0 as n`;
              return row.n;
            }),
      ),
    );
    assert.deepEqual(answers, Array.from({ length: 60 }, (_, i) => i));
    const [{ count }] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from schema_migrations`;
    assert.equal(count, applied.length);
  });
});

test("pooled database: the server's statement timeout is the pooler's, and NOTIFY in a pooled transaction reaches LISTEN on the direct connection", async () => {
  await withPooledDatabase(async (db) => {
    const [{ statement_timeout }] = await db.sql<{ statement_timeout: string }[]>`
      show statement_timeout`;
    assert.equal(statement_timeout, "4321ms");
    const heard: string[] = [];
    const listener = await sessionSql(db).listen("pooler_test", (payload) => heard.push(payload));
    try {
      await db.sql.begin(async (tx) => {
        await tx`select pg_notify('pooler_test', 'one')`;
      });
      await db.sql`select pg_notify('pooler_test', 'two')`;
      await waitFor(() => heard.length === 2, { what: "both notifications" });
      assert.deepEqual(heard, ["one", "two"]);
    } finally {
      await listener.unlisten();
    }
  });
});
