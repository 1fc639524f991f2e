/**
 * Logical backups (src/platform/backup/), both database modes: the demo data dumped and restored
 * into an empty database is the same row for row (sequences and migration records included); an
 * older backup is restored and then migrated; a non-empty target, a newer release's backup and a
 * cut file are refused with nothing restored.
 */
import assert from "node:assert/strict";
import { createTestDatabase } from "../support/db.ts";
import { loadDemoData } from "../../src/demo/load.ts";
import { seedUser } from "../support/seed.ts";
import { ManualClock } from "../../src/platform/clock.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import type { Sql } from "../../src/platform/db.ts";
import { loadMigrations, migrate } from "../../src/platform/migrate.ts";
import { backupTables } from "../../src/platform/backup/dump.ts";
import { listBackups, pruneBackups, writeBackupFile } from "../../src/platform/backup/files.ts";
import {
  checkBackup,
  restoreDatabase,
  RestoreFailed,
  RestoreRefused,
} from "../../src/platform/backup/restore.ts";

/** Every table's rows as sorted JSON texts, the sequences and the migration records. */
async function contentOf(sql: Sql) {
  const out: Record<string, string[]> = {};
  for (const table of await backupTables(sql)) {
    const rows = await sql<{ r: string }[]>`select row_to_json(t)::text as r from ${sql(table)} t`;
    out[table] = rows.map((r) => r.r).sort();
  }
  out["@sequences"] = (await sql<{ s: string }[]>`
    select sequencename || '=' || coalesce(last_value::text, 'null') as s from pg_sequences
    where schemaname = 'public' order by 1`).map((r) => r.s);
  out["@migrations"] = (await sql<{ m: string }[]>`
    select version || ' ' || checksum || ' ' || applied_at::text as m from schema_migrations
    order by 1`).map((r) => r.m);
  return out;
}

const open = (path: string) => Deno.open(path).then((f) => f.readable);
const opener = (path: string) => () => open(path);

Deno.test("backup: the demo data restores into an empty database row for row", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup-test-" });
  const source = await createTestDatabase();
  const target = await createTestDatabase({ migrate: false });
  try {
    const clock = new ManualClock(new Date("2026-03-02T09:00:00Z"));
    await loadDemoData({ db: source, clock });
    const { file, summary } = await writeBackupFile(source.sql, dir, clock.now());
    assert.equal(file.name, "backup-20260302T090000000Z.ndjson.gz");
    assert.ok(summary.rows.goals > 0 && summary.rows.users >= 4, JSON.stringify(summary.rows));
    assert.equal(
      (await checkBackup(await open(file.path))).createdAt,
      clock.now().toISOString(),
    );

    const rows = await restoreDatabase(
      target.sql,
      opener(file.path),
      await loadMigrations(),
      memoryLogger(),
    );
    assert.deepEqual(rows, summary.rows);
    assert.deepEqual(await contentOf(target.sql), await contentOf(source.sql));
    // Identity columns go on from where the source was.
    const next = await seedUser(target.sql, { username: "after_restore" });
    const [max] = await source.sql<{ id: string }[]>`select max(id)::text as id from users`;
    assert.ok(BigInt(next.id) > BigInt(max.id));

    // Restoring again into the same (now full) database is refused, and changes nothing.
    await assert.rejects(
      restoreDatabase(target.sql, opener(file.path), await loadMigrations(), memoryLogger()),
      (err) => err instanceof RestoreRefused && /not empty/.test(err.message),
    );
  } finally {
    await Promise.all([source.close(), target.close()]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("backup: an older release's backup is restored, then migrated; a newer one is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup-test-" });
  const all = await loadMigrations();
  const older = all.slice(0, -2);
  const source = await createTestDatabase({ migrate: false });
  const target = await createTestDatabase({ migrate: false });
  try {
    await migrate(source.sql, memoryLogger(), older);
    await seedUser(source.sql, { username: "old_one" });
    const { file } = await writeBackupFile(source.sql, dir, new Date("2026-01-01T00:00:00Z"));

    // A release that lacks one of the backup's migrations refuses it, creating nothing.
    await assert.rejects(
      restoreDatabase(target.sql, opener(file.path), older.slice(0, -1), memoryLogger()),
      (err) => err instanceof RestoreRefused && /made by a newer release/.test(err.message),
    );
    const [{ n }] = await target.sql`
      select count(*)::int as n from pg_tables where schemaname = 'public'`;
    assert.equal(n, 0, "nothing was created");

    await restoreDatabase(target.sql, opener(file.path), all, memoryLogger());
    const versions = await target.sql<{ version: string }[]>`
      select version from schema_migrations order by version`;
    assert.deepEqual(versions.map((v) => v.version), all.map((m) => m.version));
    const [user] = await target.sql`select username from users`;
    assert.equal(user.username, "old_one");
  } finally {
    await Promise.all([source.close(), target.close()]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("backup: a cut file restores nothing; files are listed newest first and pruned", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup-test-" });
  const source = await createTestDatabase();
  // The file is checked before the target is read at all: any database serves as the target.
  const target = source;
  try {
    await seedUser(source.sql, { username: "cut_one" });
    const { file } = await writeBackupFile(source.sql, dir, new Date("2026-01-01T00:00:00Z"));
    const whole = await Deno.readFile(file.path);
    const text = new TextDecoder().decode(
      new Uint8Array(
        await new Response(new Blob([whole]).stream().pipeThrough(new DecompressionStream("gzip")))
          .arrayBuffer(),
      ),
    );
    const cut = text.slice(0, text.indexOf('{"@done"'));
    const cutPath = `${dir}/cut.ndjson.gz`;
    await Deno.writeFile(
      cutPath,
      new Uint8Array(
        await new Response(
          new Blob([cut]).stream().pipeThrough(new CompressionStream("gzip")),
        ).arrayBuffer(),
      ),
    );
    await assert.rejects(
      restoreDatabase(target.sql, opener(cutPath), await loadMigrations(), memoryLogger()),
      (err) => err instanceof RestoreFailed && /incomplete/.test(err.message),
    );
    const [{ n }] = await target.sql`select count(*)::int as n from users`;
    assert.equal(n, 1, "checked before the target was touched");

    await writeBackupFile(source.sql, dir, new Date("2026-01-02T00:00:00Z"));
    await writeBackupFile(source.sql, dir, new Date("2026-01-03T00:00:00Z"));
    assert.deepEqual((await listBackups(dir)).map((f) => f.createdAt.toISOString().slice(0, 10)), [
      "2026-01-03",
      "2026-01-02",
      "2026-01-01",
    ]);
    assert.deepEqual(await pruneBackups(dir, 2), ["backup-20260101T000000000Z.ndjson.gz"]);
    assert.equal((await listBackups(dir)).length, 2);
  } finally {
    await source.close();
    await Deno.remove(dir, { recursive: true });
  }
});
