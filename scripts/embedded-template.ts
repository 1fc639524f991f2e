/**
 * `deno task embedded-template`: writes the pre-migrated embedded data dir a fresh `DATA_DIR/pg`
 * starts from (src/embedded-template.ts) into `build/embedded-template/`, where the
 * sources look; `deno task bundle` writes one beside the bundle. An in-memory PGlite is migrated
 * by the service's own `migrate`, checkpointed (so the files hold everything and a start from
 * them has no WAL to replay) and dumped; older templates in the folder are removed. The tests keep
 * theirs in a cache of their own ({@link ensureEmbeddedTemplate}, tests/support/db.ts).
 */
import { connect, startEmbeddedPostgres } from "../src/platform/db.ts";
import { createLogger } from "../src/platform/log.ts";
import { loadMigrations, migrate, type Migration } from "../src/platform/migrate.ts";
import { templateExists, templateFile } from "../src/embedded-template.ts";

/**
 * Writes the template of `migrations` into the folder `dir`; returns its file. `statements` run
 * after the migrations, one by one outside a transaction, and are part of the template's name.
 */
export async function writeEmbeddedTemplate(
  dir: URL,
  migrations: Migration[],
  statements: string[] = [],
): Promise<URL> {
  const log = createLogger({ level: "error" });
  const embedded = await startEmbeddedPostgres({});
  let dump: Blob;
  try {
    const sql = connect(embedded.url, 1, log);
    try {
      await migrate(sql, log, migrations);
      for (const statement of statements) await sql.unsafe(statement);
    } finally {
      await sql.end();
    }
    await embedded.pglite.exec("checkpoint");
    dump = await embedded.pglite.dumpDataDir("gzip");
  } finally {
    await embedded.stop();
  }
  const file = await templateFile(migrations, dir, statements);
  await Deno.mkdir(dir, { recursive: true });
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".tar.gz") && new URL(entry.name, file).href !== file.href) {
      await Deno.remove(new URL(entry.name, file));
    }
  }
  // Written under another name and renamed: a start never reads half a template.
  const partial = new URL(`${file.href}.partial`);
  await Deno.writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
  await Deno.rename(partial, file);
  return file;
}

/**
 * The template of `migrations` in the folder `dir`, written first when it is not there (a
 * template of another set or PGlite has another name: it is never taken, and writing this one
 * removes it). Processes that ask at once write it once: the writer holds an exclusive lock on
 * `dir/.lock`, the others wait for the lock and then find the file. `built` tells whether this
 * call wrote it.
 */
export async function ensureEmbeddedTemplate(
  dir: URL,
  migrations: Migration[],
  statements: string[] = [],
): Promise<{ file: URL; built: boolean }> {
  const file = await templateFile(migrations, dir, statements);
  if (await templateExists(file)) return { file, built: false };
  await Deno.mkdir(dir, { recursive: true });
  using lock = await Deno.open(new URL(".lock", file), { create: true, write: true });
  await lock.lock(true);
  try {
    if (await templateExists(file)) return { file, built: false };
    await writeEmbeddedTemplate(dir, migrations, statements);
    return { file, built: true };
  } finally {
    await lock.unlock();
  }
}

if (import.meta.main) {
  const dir = new URL(`${Deno.args[0] ?? "build/embedded-template"}/`, `file://${Deno.cwd()}/`);
  const file = await writeEmbeddedTemplate(dir, await loadMigrations());
  console.log(`wrote ${file.pathname}`);
}
