/**
 * Rolling back must work: the previous revision's code (see tests/support/previous-revision.ts)
 * starts as a real process on a database that HEAD's migrations brought up to date, answers
 * `/health`, and serves a GraphQL query that reads the database.
 */
import assert from "node:assert/strict";
import { connect, startEmbeddedPostgres } from "../../src/platform/db.ts";
import { loadMigrations, migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../support/db.ts";
import { extractRevision, previousRevision } from "../support/previous-revision.ts";
import { type ServiceProcess, startProcess } from "../support/process.ts";

const FALLBACK_SECRET = "compatibility-test-secret-32-chars-min";
const ADMIN = "admin-1";
const quietLog = createLogger({ level: "error" });

/** Environment for a service on a database HEAD migrated: a test database, or an embedded one. */
async function databaseMigratedByHead(
  dataDir: string,
): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  if (TEST_DATABASE_URL) {
    const db = await createTestDatabase();
    await db.sql.end();
    return { env: { DATABASE_URL: db.url }, close: () => db.close() };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: `${dataDir}/pg` });
  const sql = connect(embedded.url, 1, quietLog);
  try {
    await migrate(sql, quietLog);
  } finally {
    await sql.end();
    await embedded.stop();
  }
  return { env: {}, close: () => Promise.resolve() };
}

async function mintToken(oldRoot: string, env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${oldRoot}/main.ts`, "fallback-token", "--sub", ADMIN],
    cwd: oldRoot,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

const previous = previousRevision();

Deno.test({
  name: "migrations: the previous revision's code starts on a database HEAD migrated" +
    ("skip" in previous ? ` (ignored: ${previous.skip})` : ""),
  ignore: "skip" in previous,
  async fn() {
    if ("skip" in previous) return;
    const oldRoot = await Deno.makeTempDir({ prefix: "previous-revision-" });
    const dataDir = await Deno.makeTempDir();
    const database = await databaseMigratedByHead(dataDir);
    let service: ServiceProcess | undefined;
    try {
      await extractRevision(previous.rev, oldRoot);
      const env = {
        ...database.env,
        DATA_DIR: dataDir,
        FALLBACK_AUTH_SECRET: FALLBACK_SECRET,
        ADMIN_SUBJECTS: ADMIN,
      };
      const token = await mintToken(oldRoot, env);
      service = await startProcess(`${oldRoot}/main.ts`, env);
      const context = `code of ${previous.rev} (${previous.why})`;

      const newer = service.lines.find((l) => l.msg === "database migrated by a later release");
      const head = (await loadMigrations()).map((m) => m.version);
      const old = (await loadMigrations(`${oldRoot}/migrations/`)).map((m) => m.version);
      const unknown = head.filter((v) => !old.includes(v));
      // Revisions before the warning existed start without it; newer ones name what they skip.
      if (newer) assert.deepEqual(newer.unknown_migrations, unknown, context);

      const health = await fetch(`${service.url}/health`);
      const body = await health.json();
      assert.equal(health.status, 200, `${context}: ${JSON.stringify(body)}`);
      assert.equal(body.checks.database.status, "ok", context);

      const res = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", SessionToken: token },
        body: JSON.stringify({ query: "{ deadJobs(first: 1) { totalCount } }" }),
      });
      const result = await res.json();
      assert.equal(res.status, 200, `${context}: ${JSON.stringify(result)}`);
      assert.deepEqual(result, { data: { deadJobs: { totalCount: 0 } } }, context);

      assert.equal(await service.stop(), 0, context);
      service = undefined;
    } finally {
      await service?.stop();
      await database.close();
      await Deno.remove(oldRoot, { recursive: true });
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
