import assert from "node:assert/strict";
import { openDatabase } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { runWithRequestStats } from "../../src/platform/request-context.ts";
import { createTestDatabase } from "../support/db.ts";

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
