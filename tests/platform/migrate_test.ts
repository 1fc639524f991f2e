import assert from "node:assert/strict";
import {
  loadMigrations,
  migrate,
  MigrationChecksumError,
  MigrationFailedError,
} from "../../src/platform/migrate.ts";
import { createLogger } from "../../src/platform/log.ts";
import { createTestDatabase, DB_MODE, secondPool } from "../support/db.ts";

const log = createLogger({ level: "error" });

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir + "/";
}

Deno.test("migrate: applies in order, records checksums, skips applied ones", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    // Pending files are sent as one text: several statements each, a file ending in a comment.
    const dir = await folder({
      "0002_second.sql": "alter table a add column b int; -- no newline at the end",
      "0001_first.sql":
        "create table a (id int);\ninsert into a values (1)\n-- the insert ends here",
      "0003_third.sql": "create function third() returns int language sql as $$ select 3 $$;",
      "README.md": "not a migration",
    });
    const migrations = await loadMigrations(dir);
    assert.deepEqual(migrations.map((m) => m.version), ["0001", "0002", "0003"]);
    assert.deepEqual(await migrate(db.sql, log, migrations), ["0001", "0002", "0003"]);
    assert.deepEqual(await migrate(db.sql, log, migrations), []);
    const rows = await db
      .sql`select version, name, checksum from schema_migrations order by version`;
    assert.deepEqual(rows.map((r) => r.name), ["first", "second", "third"]);
    assert.match(rows[0].checksum, /^[0-9a-f]{64}$/);
    assert.deepEqual(rows.map((r) => r.checksum), migrations.map((m) => m.checksum));
    const [{ b, third }] = await db.sql`select b, third() from a`;
    assert.deepEqual([b, third], [null, 3]);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: a changed, already-applied file is refused and nothing else runs", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    await migrate(
      db.sql,
      log,
      await loadMigrations(await folder({ "0001_a.sql": "create table a (id int);" })),
    );
    const changed = await loadMigrations(
      await folder({
        "0001_a.sql": "create table a (id bigint);",
        "0002_b.sql": "create table b (id int);",
      }),
    );
    await assert.rejects(() => migrate(db.sql, log, changed), (err: unknown) => {
      assert.ok(err instanceof MigrationChecksumError);
      assert.match(err.message, /0001_a\.sql was changed after it was applied/);
      return true;
    });
    const [{ exists }] = await db.sql`select to_regclass('b') is not null as exists`;
    assert.equal(exists, false);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: a changed file is refused on a database that has every migration applied", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    const files = { "0001_a.sql": "create table a (id int);", "0002_b.sql": "create table b ();" };
    await migrate(db.sql, log, await loadMigrations(await folder(files)));
    const changed = await loadMigrations(
      await folder({ ...files, "0002_b.sql": "create table b (id int);" }),
    );
    await assert.rejects(() => migrate(db.sql, log, changed), (err: unknown) => {
      assert.ok(err instanceof MigrationChecksumError);
      assert.match(err.message, /0002_b\.sql was changed after it was applied/);
      return true;
    });
  } finally {
    await db.close();
  }
});

Deno.test("migrate: older code on a database a later release migrated starts and logs what it does not know", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    const older = { "0001_a.sql": "create table a (id int);" };
    const later = await loadMigrations(
      await folder({ ...older, "0002_b.sql": "alter table a add column b int;" }),
    );
    await migrate(db.sql, log, later);
    const lines: Record<string, unknown>[] = [];
    const capture = createLogger({ level: "info", write: (line) => lines.push(JSON.parse(line)) });
    assert.deepEqual(await migrate(db.sql, capture, await loadMigrations(await folder(older))), []);
    const warning = lines.find((l) => l.msg === "database migrated by a later release");
    assert.deepEqual(warning?.unknown_migrations, ["0002"]);
    await db.sql`insert into a (id) values (1)`;
  } finally {
    await db.close();
  }
});

Deno.test("migrate: a failing migration leaves no trace", async () => {
  const db = await createTestDatabase({ migrate: false });
  try {
    const bad = await loadMigrations(
      await folder({
        "0001_ok.sql": "create table ok (id int);",
        "0002_bad.sql": "create table broken (id nonsense_type);",
      }),
    );
    const lines: Record<string, unknown>[] = [];
    const capture = createLogger({ level: "info", write: (line) => lines.push(JSON.parse(line)) });
    // Every pending file goes in one text; the file that failed is still named.
    await assert.rejects(() => migrate(db.sql, capture, bad), (err: unknown) => {
      assert.ok(err instanceof MigrationFailedError);
      assert.deepEqual([err.version, err.migration], ["0002", "bad"]);
      assert.match(err.message, /^migration 0002_bad\.sql failed: type "nonsense_type" does not/);
      return true;
    });
    const [{ exists }] = await db.sql`select to_regclass('ok') is not null as exists`;
    assert.equal(exists, false);
    assert.deepEqual(lines.filter((l) => l.msg === "migration applied"), []);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: concurrent start-ups apply each migration once", async () => {
  const db = await createTestDatabase({ migrate: false });
  // Real PostgreSQL: separate pools, as two instances would have. Embedded: one process only.
  const other = DB_MODE === "postgres" ? secondPool(db) : db.sql;
  try {
    const migrations = await loadMigrations(
      await folder({
        "0001_a.sql": "create table a (id int);",
        "0002_b.sql": "insert into a values (1);",
      }),
    );
    const results = await Promise.all([
      migrate(db.sql, log, migrations),
      migrate(other, log, migrations),
      migrate(db.sql, log, migrations),
    ]);
    assert.deepEqual(results.flat().sort(), ["0001", "0002"]);
    const [{ n }] = await db.sql`select count(*)::int as n from a`;
    assert.equal(n, 1);
  } finally {
    if (other !== db.sql) await other.end();
    await db.close();
  }
});

Deno.test("migrate: the project's own migrations load with unique versions", async () => {
  const migrations = await loadMigrations();
  assert.ok(migrations.length >= 1);
  assert.equal(new Set(migrations.map((m) => m.version)).size, migrations.length);
});
