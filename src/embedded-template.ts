/**
 * Pre-migrated embedded data directories: a PGlite data dir with every migration applied, dumped
 * as a gzipped tarball named by {@link templateKey} (`deno task embedded-template`, and
 * `deno task bundle` beside the bundle; scripts/embedded-template.ts writes them). A fresh
 * `DATA_DIR/pg` starts from the template of its migration set instead of running initdb and
 * every migration (docs/deployment.md). The name is the key: a template of another migration set
 * or another PGlite is never found, and the normal migration check still runs after the start.
 * It knows the service's migrations and its PGlite (`deno.json`), so it sits above the platform
 * layer: the service hands {@link findEmbeddedTemplate} to `openDatabase`.
 */
import denoConfig from "../deno.json" with { type: "json" };
import { loadMigrations, type Migration } from "./platform/migrate.ts";

/**
 * Folder of the templates: the repository's `build/embedded-template/`, or the one `deno task
 * bundle` puts beside the bundle's modules, which all sit at the top of their folder.
 */
export const EMBEDDED_TEMPLATE_DIR = new URL(
  import.meta.url.endsWith(".ts") ? "../build/embedded-template/" : "./embedded-template/",
  import.meta.url,
);

/** The PGlite the data dir was written by: its major PostgreSQL version decides the format. */
const PGLITE = denoConfig.imports["@electric-sql/pglite"];

/**
 * SHA-256 of the PGlite package, every migration's version and checksum, and the statements run
 * after the migrations (none for the service's template; the tests' template drops databases).
 */
export async function templateKey(
  migrations: Migration[],
  statements: string[] = [],
): Promise<string> {
  const text = [PGLITE, ...migrations.map((m) => `${m.version}:${m.checksum}`), ...statements]
    .join("\n");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Where the template of a migration set (and statements) is, found or not. */
export async function templateFile(
  migrations: Migration[],
  dir: URL,
  statements: string[] = [],
): Promise<URL> {
  const folder = dir.href.endsWith("/") ? dir : new URL(`${dir.href}/`);
  return new URL(`${await templateKey(migrations, statements)}.tar.gz`, folder);
}

async function isEmptyDir(path: string): Promise<boolean> {
  for await (const _ of Deno.readDir(path)) return false;
  return true;
}

/** Whether the template file `file` is there (a template is renamed into place whole). */
export async function templateExists(file: URL): Promise<boolean> {
  try {
    return (await Deno.stat(file)).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * The template to start the data dir `pgDir` from: only when it is empty, and only the template
 * of the service's migrations; otherwise undefined.
 */
export async function findEmbeddedTemplate(
  pgDir: string,
  templatesDir: URL = EMBEDDED_TEMPLATE_DIR,
): Promise<URL | undefined> {
  if (!(await isEmptyDir(pgDir))) return undefined;
  const file = await templateFile(await loadMigrations(), templatesDir);
  return await templateExists(file) ? file : undefined;
}
