/**
 * A fresh embedded data dir starts from the pre-migrated template of its migration set
 * (src/embedded-template.ts, written by scripts/embedded-template.ts); without one, or
 * with only another set's, it is initialised and migrated as before.
 */
import assert from "node:assert/strict";
import { openDatabase } from "../../src/platform/db.ts";
import { findEmbeddedTemplate, templateKey } from "../../src/embedded-template.ts";
import { createLogger } from "../../src/platform/log.ts";
import { loadMigrations, migrate } from "../../src/platform/migrate.ts";
import { writeEmbeddedTemplate } from "../../scripts/embedded-template.ts";

const log = createLogger({ level: "error" });

async function tempFolder(): Promise<URL> {
  return new URL(`file://${await Deno.makeTempDir()}/`);
}

/** Opens a fresh data dir with the templates of `templates`; returns what `migrate` applied. */
async function freshStart(templates: URL): Promise<{ applied: string[]; dataDir: string }> {
  const dataDir = await Deno.makeTempDir();
  const db = await openDatabase({
    dataDir,
    log,
    embeddedTemplate: (pgDir) => findEmbeddedTemplate(pgDir, templates),
  });
  try {
    const applied = await migrate(db.sql, log);
    await db.sql`insert into service_settings (key, value) values ('greeting', '"hello"')`;
    return { applied, dataDir };
  } finally {
    await db.close();
  }
}

Deno.test("embedded template: a fresh data dir starts migrated from its set's template and keeps its own data", async () => {
  const templates = await tempFolder();
  const migrations = await loadMigrations();
  await writeEmbeddedTemplate(templates, migrations);
  const { applied, dataDir } = await freshStart(templates);
  try {
    assert.deepEqual(applied, [], "every migration came with the template");
    // The data dir is no longer empty: a restart resumes it and does not start over.
    const db = await openDatabase({
      dataDir,
      log,
      embeddedTemplate: (pgDir) => findEmbeddedTemplate(pgDir, templates),
    });
    try {
      assert.deepEqual(await migrate(db.sql, log), []);
      const rows = await db.sql`select value from service_settings where key = 'greeting'`;
      assert.deepEqual(rows.map((r) => r.value), ["hello"]);
      const recorded = await db.sql`select version, checksum from schema_migrations order by 1`;
      assert.deepEqual(
        recorded.map((r) => [r.version, r.checksum]),
        migrations.map((m) => [m.version, m.checksum]),
      );
    } finally {
      await db.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(templates, { recursive: true });
  }
});

Deno.test("embedded template: without one of its set a fresh data dir is migrated; another set's is ignored", async () => {
  const templates = await tempFolder();
  const all = (await loadMigrations()).map((m) => m.version);
  let dataDir: string | undefined;
  try {
    const empty = await Deno.makeTempDir();
    const found = await findEmbeddedTemplate(empty, templates);
    await Deno.remove(empty);
    assert.equal(found, undefined, "a folder without templates offers none");
    await writeEmbeddedTemplate(templates, (await loadMigrations()).slice(0, 3));
    const other = await freshStart(templates);
    dataDir = other.dataDir;
    assert.deepEqual(other.applied, all, "started from initdb, not from the three-file template");
  } finally {
    if (dataDir) await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(templates, { recursive: true });
  }
});

Deno.test("embedded template: the key changes with any migration's checksum", async () => {
  const migrations = await loadMigrations();
  const changed = migrations.map((m, i) => i === 5 ? { ...m, checksum: "0".repeat(64) } : m);
  assert.equal(await templateKey(migrations), await templateKey(await loadMigrations()));
  assert.notEqual(await templateKey(migrations), await templateKey(changed));
  assert.notEqual(await templateKey(migrations), await templateKey(migrations.slice(0, -1)));
  assert.notEqual(await templateKey(migrations), await templateKey(migrations, ["select 1"]));
});

/** `ensureEmbeddedTemplate` in a process of its own; answers whether that process built it. */
async function ensureInProcess(dir: URL, count: number, statements: string[]) {
  const code = `
    import { ensureEmbeddedTemplate } from "${new URL(
    "../../scripts/embedded-template.ts",
    import.meta.url,
  )}";
    import { loadMigrations } from "${new URL("../../src/platform/migrate.ts", import.meta.url)}";
    const migrations = (await loadMigrations()).slice(0, ${count});
    const { file, built } = await ensureEmbeddedTemplate(new URL("${dir}"), migrations, ${
    JSON.stringify(statements)
  });
    console.log(JSON.stringify({ file: file.href, built }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: new URL("../../", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as { file: string; built: boolean };
}

Deno.test("embedded template: processes asking at once build it once; another key is built anew", async () => {
  const dir = await tempFolder();
  try {
    const [first, second] = await Promise.all([
      ensureInProcess(dir, 3, []),
      ensureInProcess(dir, 3, []),
    ]);
    assert.equal(first.file, second.file);
    assert.deepEqual([first.built, second.built].sort(), [false, true], "built by one of them");
    assert.equal((await ensureInProcess(dir, 3, [])).built, false, "found by a later run");

    const other = await ensureInProcess(dir, 3, ["select 1"]);
    assert.equal(other.built, true, "other statements: another template");
    assert.notEqual(other.file, first.file);
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assert.deepEqual(names.filter((n) => n.endsWith(".tar.gz")), [other.file.split("/").pop()]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
