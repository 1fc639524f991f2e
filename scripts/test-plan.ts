/**
 * Which test files each pass of `.ci/run` runs. The embedded pass is the README's test command:
 * every test file, on PGlite and the in-process store. The database pass runs, against real
 * PostgreSQL and Redis, the files whose tests depend on the database mode: those that import
 * `tests/support/db.ts` (directly, or through `setup.ts`, `app.ts`, `kv.ts`, ...). A file that
 * reaches it only for a database under something else (a page in a browser, a server of the test's
 * own, the bundle) says so in a line of its own, `// test-plan: once (<why>)`, and runs once, in
 * the embedded pass.
 *
 * `deno run -A scripts/test-plan.ts database` prints the database pass's files, one a line.
 */
import { relative } from "node:path";

/** The module every test that depends on the database mode imports: it reads the mode. */
export const DATABASE_SUPPORT = new URL("../tests/support/db.ts", import.meta.url);

const ROOT = new URL("../", import.meta.url);
const CONFIG = new URL("../deno.json", import.meta.url);

/** `deno test`'s own rule for which files are tests. */
const TEST_FILE = /(^|[._])test\.(ts|tsx|mts|js|mjs|jsx)$/;

/** The line that keeps a file out of the database pass, and its reason. */
const ONCE = /^\/\/ test-plan: once \((.+)\)$/m;

/** The test files under `dir` (a folder URL ending in `/`), sorted. */
export async function testFiles(dir: URL): Promise<URL[]> {
  const found: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) found.push(...await testFiles(new URL(`${entry.name}/`, dir)));
    else if (entry.isFile && TEST_FILE.test(entry.name)) found.push(new URL(entry.name, dir));
  }
  return found.sort((a, b) => a.href.localeCompare(b.href));
}

/** Each module's run-time imports, as Deno resolves them, for the graph of `files`. */
export async function importGraph(files: URL[]): Promise<Map<string, string[]>> {
  const dir = await Deno.makeTempDir({ prefix: "test-plan-" });
  const root = `${dir}/root.ts`;
  try {
    await Deno.writeTextFile(
      root,
      files.map((f) => `import ${JSON.stringify(f.href)};\n`).join(""),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", CONFIG.pathname, root],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; dependencies?: { code?: { specifier: string } }[] }[];
    };
    return new Map(
      info.modules.map((m) => [
        m.specifier,
        (m.dependencies ?? []).flatMap((d) => d.code ? [d.code.specifier] : []),
      ]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Whether `target` is among the modules `from` imports, directly or not. */
export function reaches(graph: Map<string, string[]>, from: string, target: string): boolean {
  const seen = new Set<string>();
  const pending = [from];
  while (pending.length) {
    const next = pending.pop()!;
    if (next === target) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...graph.get(next) ?? []);
  }
  return false;
}

/** The reason a test file gives for running once, or undefined. */
export function onceReason(source: string): string | undefined {
  return ONCE.exec(source)?.[1].trim() || undefined;
}

export interface TestPlan {
  /** Every test file: the embedded pass. */
  all: URL[];
  /** The files the database pass runs too. */
  database: URL[];
  /** Files that depend on the mode but run once, each with its reason. */
  once: { file: URL; reason: string }[];
}

/** The plan for the test files under `dir`. */
export async function testPlan(dir = new URL("../tests/", import.meta.url)): Promise<TestPlan> {
  const all = await testFiles(dir);
  const graph = await importGraph(all);
  const database: URL[] = [];
  const once: TestPlan["once"] = [];
  for (const file of all) {
    if (!reaches(graph, file.href, DATABASE_SUPPORT.href)) continue;
    const reason = onceReason(await Deno.readTextFile(file));
    if (reason) once.push({ file, reason });
    else database.push(file);
  }
  return { all, database, once };
}

if (import.meta.main) {
  const [pass] = Deno.args;
  if (pass !== "database") {
    console.error("usage: deno run -A scripts/test-plan.ts database");
    Deno.exit(2);
  }
  const plan = await testPlan();
  for (const file of plan.database) console.log(relative(ROOT.pathname, file.pathname));
}
