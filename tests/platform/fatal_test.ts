/** How each fatal start-up error is described for its one log line (src/platform/fatal.ts). */
import assert from "node:assert/strict";
import { describeFatal } from "../../src/platform/fatal.ts";
import { ConfigError } from "../../src/platform/env.ts";
import { DataDirLockedError } from "../../src/platform/data-dir-lock.ts";
import { DependencyUnavailableError } from "../../src/platform/dependency.ts";
import { MigrationChecksumError, MigrationFailedError } from "../../src/platform/migrate.ts";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

Deno.test("fatal: each cause with its code, fields and exit code; only the unknown one has a stack", () => {
  const holder = { pid: 7, command: "serve", startedAt: "2026-01-01T00:00:00.000Z" };
  const cases: [unknown, string, number, Record<string, unknown>][] = [
    [new ConfigError("PORT", "bad"), "invalid_configuration", 2, { variable: "PORT" }],
    [new DataDirLockedError("/data", holder), "data_dir_locked", 1, { data_dir: "/data", holder }],
    [
      new DependencyUnavailableError("database", "connect ECONNREFUSED 127.0.0.1:1"),
      "database_unreachable",
      1,
      {},
    ],
    [pgError("28P01", "password authentication failed"), "database_authentication_failed", 1, {
      sqlstate: "28P01",
    }],
    [pgError("28000", 'role "x" does not exist'), "database_authentication_failed", 1, {}],
    [pgError("3D000", 'database "x" does not exist'), "database_missing", 1, {}],
    [new MigrationChecksumError("0001", "foundation"), "migration_checksum_mismatch", 1, {
      version: "0001",
      name: "foundation",
    }],
    [
      new MigrationFailedError("0002", "bad", pgError("42704", 'type "x" does not exist')),
      "migration_failed",
      1,
      { version: "0002", name: "bad", sqlstate: "42704" },
    ],
    [new TypeError("boom\nsecond line"), "startup_failed", 1, { error_name: "TypeError" }],
  ];
  for (const [err, cause, exitCode, fields] of cases) {
    const fatal = describeFatal(err);
    assert.equal(fatal.cause, cause, String(err));
    assert.equal(fatal.exitCode, exitCode);
    assert.equal(fatal.fields.exit_code, exitCode);
    assert.equal(fatal.fields.cause, cause);
    assert.equal(typeof fatal.fields.hint, "string");
    assert.ok(!fatal.message.includes("\n"), "one line");
    for (const [name, value] of Object.entries(fields)) {
      assert.deepEqual(fatal.fields[name], value, `${cause}: ${name}`);
    }
    assert.equal(fatal.fields.stack !== undefined, cause === "startup_failed");
  }
  assert.equal(describeFatal(new TypeError("boom\nsecond line")).message, "boom");
});
