/**
 * Fatal start-up errors, made for real against a PostgreSQL of the test's own: a closed port, a
 * role that does not exist, a database that does not exist, a migration whose recorded checksum
 * differs, and a bad setting. Each `serve` and `migrate` ends by itself (never stays alive
 * without listening) with a non-zero exit code and one JSON log line naming the cause; before
 * issue 40 a refused connection exited 0 and a checksum mismatch hung.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { freePort, startOwnPostgres } from "../support/servers.ts";
import { jsonLines, runMain } from "../support/process.ts";
import { connect } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.href;
};

Deno.test("start-up: each fatal error exits non-zero with one log line naming its cause", async () => {
  const server = await startOwnPostgres();
  const dataDir = await Deno.makeTempDir({ prefix: "startup-" });
  try {
    // A database whose first migration's recorded checksum is not the file's.
    const admin = postgres(server.url, { max: 1, onnotice: () => {} });
    await admin`create database changed`;
    await admin.end();
    const changed = withDatabase(server.url, "changed");
    const quiet = createLogger({ level: "error" });
    const sql = connect(changed, 1, quiet);
    try {
      await migrate(sql, quiet);
      await sql`update schema_migrations set checksum = ${"0".repeat(64)} where version = '0001'`;
    } finally {
      await sql.end();
    }

    const closed = `postgres://postgres@127.0.0.1:${freePort()}/postgres`;
    const cases: [string[], Record<string, string>, string, number, RegExp][] = [
      [["serve"], { DATABASE_URL: closed }, "database_unreachable", 1, /ECONNREFUSED/],
      [
        ["serve"],
        { DATABASE_URL: withDatabase(server.url, "postgres").replace("postgres@", "nobody@") },
        "database_authentication_failed",
        1,
        /^role "nobody" does not exist$/,
      ],
      [
        ["serve"],
        { DATABASE_URL: withDatabase(server.url, "missing") },
        "database_missing",
        1,
        /^database "missing" does not exist$/,
      ],
      [
        ["serve"],
        { DATABASE_URL: changed },
        "migration_checksum_mismatch",
        1,
        /^migration 0001_foundation\.sql was changed after it was applied/,
      ],
      [
        ["migrate"],
        { DATABASE_URL: changed },
        "migration_checksum_mismatch",
        1,
        /^migration 0001_foundation\.sql was changed/,
      ],
      [["migrate"], { DATABASE_URL: closed }, "database_unreachable", 1, /ECONNREFUSED/],
      [
        ["serve"],
        { PORT: "abc" },
        "invalid_configuration",
        2,
        /^invalid configuration: PORT: .*\(got "abc"\)$/,
      ],
    ];
    const results = await Promise.all(
      cases.map(([args, env]) =>
        runMain(args, { DATA_DIR: dataDir, PORT: "0", ...env }, { timeoutMs: 60_000 })
      ),
    );
    results.forEach((result, i) => {
      const [args, env, cause, code, error] = cases[i];
      const what = `${args[0]} with ${JSON.stringify(env)}: ${result.stdout} ${result.stderr}`;
      assert.equal(result.code, code, what);
      const lines = jsonLines(result.stdout);
      const failed = args[0] === "serve" ? "start-up failed" : "migrate failed";
      assert.deepEqual(lines.map((l) => l.msg), [failed], what);
      const [line] = lines;
      assert.equal(line.level, "error");
      assert.equal(line.cause, cause, what);
      assert.match(line.error as string, error, what);
      assert.equal(line.exit_code, code);
      assert.equal(typeof line.hint, "string");
      assert.equal(line.stack, undefined, "a known cause needs no stack trace");
      // A configuration error also says so on stderr, in the one line it always printed.
      assert.equal(result.stderr, code === 2 ? line.error : "", what);
    });
    assert.equal(results[3].stdout.includes("listening"), false);
    const checksum = jsonLines(results[3].stdout)[0];
    assert.deepEqual([checksum.version, checksum.name], ["0001", "foundation"]);
    assert.equal(jsonLines(results[6].stdout)[0].variable, "PORT");
  } finally {
    await server.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
