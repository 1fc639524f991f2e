/**
 * The driver's own connection-time statement (the array-type fetch on every fresh connection) is
 * cancelled by the statement timeout while another session holds `pg_type`: the driver rejects it
 * where nobody awaits. The process-wide handler logs it as a database failure and the process
 * goes on; the caller's statement gets its own error.
 */
import assert from "node:assert/strict";
import { connect } from "../../src/platform/db.ts";
import { handleUnawaitedRejections } from "../../src/platform/unawaited.ts";
import { createErrorTracker } from "../../src/platform/errors.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { createLogger } from "../../src/platform/log.ts";
import { waitFor } from "../support/wait.ts";

Deno.test({
  name: "unawaited: a cancelled type fetch on a fresh connection is logged, not fatal",
  // PGlite is one session: no other session can hold the catalog.
  ignore: !TEST_DATABASE_URL,
  async fn() {
    const db = await createTestDatabase();
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
    const tracker = createErrorTracker({ log });
    const stop = handleUnawaitedRejections(log, tracker);
    const fresh = connect(db.url, 1, log, { connectMs: 3000, statementMs: 300 });
    try {
      await db.sql.begin(async (tx) => {
        await tx`lock table pg_catalog.pg_type in access exclusive mode`;
        await assert.rejects(fresh`select 1 as one`);
        await waitFor(() => lines.some((l) => l.msg === "database connection failed"), {
          what: "the driver's failure logged",
        });
      });
      const failure = lines.find((l) => l.msg === "database connection failed")!;
      assert.equal(failure.code, "57014");
      assert.equal(failure.source, "driver");
      assert.deepEqual([...await fresh`select 1 as one`], [{ one: 1 }], "the pool recovers");
      assert.ok(!lines.some((l) => l.level === "error"), JSON.stringify(lines));
    } finally {
      stop();
      await fresh.end({ timeout: 1 });
      await db.close();
    }
  },
});
