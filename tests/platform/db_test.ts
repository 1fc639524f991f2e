import assert from "node:assert/strict";
import {
  connect,
  type Database,
  openDatabase,
  openPoolConnections,
  refusableTransaction,
} from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { runWithRequestStats } from "../../src/platform/request-context.ts";
import { createTestDatabase, DB_MODE } from "../support/db.ts";

const log = createLogger({ level: "error" });

Deno.test("db: embedded data written in one start is there after a restart", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const first = await openDatabase({ dataDir, log });
    assert.equal(first.mode, "embedded");
    assert.equal(first.poolSize, 1);
    await migrate(first.sql, log);
    await first.sql`insert into service_settings (key, value) values ('greeting', '"hello"')`;
    await first.close();

    const second = await openDatabase({ dataDir, log });
    const rows = await second.sql`select value from service_settings where key = 'greeting'`;
    assert.deepEqual(rows.map((r) => r.value), ["hello"]);
    assert.deepEqual(await migrate(second.sql, log), [], "nothing to apply the second time");
    await second.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("db: statements and time are counted per request", async () => {
  const db = await createTestDatabase();
  try {
    const stats = { requestId: "r1", dbMs: 0, statements: 0 };
    await runWithRequestStats(stats, async () => {
      await db.sql`select 1`;
      const fragment = db.sql`where key = ${"x"}`;
      await db.sql`select * from service_settings ${fragment}`;
      await db.sql.begin(async (tx) => {
        await tx`select 2`;
      });
    });
    assert.ok(stats.statements >= 3, `counted ${stats.statements}`);
    assert.ok(stats.dbMs > 0);
    await db.sql`select 3`; // outside a request: nothing counted, nothing thrown
    assert.ok(stats.statements < 10);
  } finally {
    await db.close();
  }
});

Deno.test("db: a request's database time is wall time, statements side by side counted once", async () => {
  const db = await createTestDatabase({ poolSize: 3 });
  try {
    const stats = { requestId: "r1", dbMs: 0, statements: 0 };
    const started = performance.now();
    await runWithRequestStats(stats, async () => {
      await Promise.all([1, 2, 3].map(() => db.sql`select pg_sleep(0.3)`));
      await db.sql`select pg_sleep(0.1)`;
    });
    const elapsed = performance.now() - started;
    assert.equal(stats.statements, 4);
    // At least the last statement and the longest of the three; never more than the wall time
    // (the three summed would be 0.9 s on a pool of 3, 1.8 s queued on the embedded one).
    assert.ok(stats.dbMs >= 400, `db ${stats.dbMs} ms`);
    assert.ok(stats.dbMs <= elapsed, `db ${stats.dbMs} ms over ${elapsed} ms`);
  } finally {
    await db.close();
  }
});

Deno.test("db: the pool's first connections open ahead of the first requests", async () => {
  const db = await createTestDatabase({ poolSize: 5 });
  try {
    await openPoolConnections(db, 2);
    if (DB_MODE === "postgres") {
      const [{ open }] = await db.sql<{ open: number }[]>`
        select count(*)::int as open from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and backend_type = 'client backend'`;
      // Two were opened; the statement above ran on one of them.
      assert.equal(open, 1);
    }
    const [{ one }] = await db.sql<{ one: number }[]>`select 1 as one`;
    assert.equal(one, 1);
  } finally {
    await db.close();
  }
});

Deno.test("db: opening the pool's connections ahead leaves a refused connection to the statements after", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const sql = connect(`postgres://postgres@127.0.0.1:${port}/none`, 2, log, {
    connectMs: 1000,
    statementMs: 1000,
  });
  const db: Database = {
    sql,
    mode: "postgres",
    url: "",
    poolSize: 2,
    supportsListen: true,
    close: () => sql.end({ timeout: 1 }),
  };
  try {
    await openPoolConnections(db, 2);
    await assert.rejects(() => sql`select 1`);
  } finally {
    await db.close();
  }
});

Deno.test("db: a refused transaction undoes its writes and answers the refusal", async () => {
  const db = await createTestDatabase();
  try {
    await db.sql`create table refusal_probe (n int)`;
    const refused = await refusableTransaction(db.sql, async (tx) => {
      await tx`insert into refusal_probe values (1)`;
      return { n: null, errors: [{ code: "conflict" }] };
    });
    assert.deepEqual(refused, { n: null, errors: [{ code: "conflict" }] });
    const done = await refusableTransaction(db.sql, async (tx) => {
      await tx`insert into refusal_probe values (2)`;
      return { n: 2, errors: [] };
    });
    assert.deepEqual(done, { n: 2, errors: [] });
    const rows = await db.sql`select n from refusal_probe`;
    assert.deepEqual(rows.map((r) => r.n), [2]);
    await assert.rejects(
      refusableTransaction(db.sql, () => Promise.reject(new Error("boom"))),
      /boom/,
    );
  } finally {
    await db.close();
  }
});
