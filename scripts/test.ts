/**
 * `deno task test [paths] [deno test options]`: `deno test -A --parallel` over the test files under
 * `tests/` (deno.json's `test.include`) or the paths given, with two test files more at once than
 * the machine has cores, without type-checking them again (`deno task check` does that, and
 * `.ci/run` runs it first). At any moment a few files wait on a timer, a child process, a browser or a
 * server of their own; the extra two keep the cores busy meanwhile (docs/testing.md). `DENO_JOBS`
 * set in the environment wins. Files that start processes, browsers or servers of their own are
 * the long ones: they go first, so that no long file starts last and ends the run alone.
 */
import { testFiles } from "./test-plan.ts";

/** How many test files run at once on a machine with `cores` cores. */
export function testJobs(cores: number, env: string | undefined): string {
  return env && /^[1-9]\d*$/.test(env) ? env : String(Math.max(1, cores) + 2);
}

/** What a long test file does: start a process, a browser or a server of its own. */
const LONG =
  /\b(startProcess|runMain|withConsole|launchBrowser|startOwnPostgres|startOwnRedis|startRunnerProcess|ensureEmbeddedTemplate)\(|new Deno\.Command\(/g;

/** `files` with the long ones first (most such calls first), the others in their order. */
export function longFirst(files: { path: string; text: string }[]): string[] {
  const weight = (text: string) => text.match(LONG)?.length ?? 0;
  return files.map((f, i) => ({ path: f.path, weight: weight(f.text), i }))
    .sort((a, b) => b.weight - a.weight || a.i - b.i)
    .map((f) => f.path);
}

async function ordered(args: string[]): Promise<string[]> {
  const exists = (arg: string) => {
    try {
      return !arg.startsWith("-") && (Deno.statSync(arg), true);
    } catch {
      return false;
    }
  };
  const paths = args.filter(exists);
  const options = args.filter((a) => !exists(a));
  const files: string[] = [];
  for (const path of paths.length ? paths : ["tests/"]) {
    if (Deno.statSync(path).isDirectory) {
      const dir = new URL(`${path.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
      files.push(...(await testFiles(dir)).map((u) => u.pathname));
    } else files.push(path);
  }
  const texts = await Promise.all(files.map(async (path) => ({
    path,
    text: await Deno.readTextFile(path),
  })));
  return [...options, ...longFirst(texts)];
}

if (import.meta.main) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--parallel", "--no-check", ...await ordered(Deno.args)],
    env: { DENO_JOBS: testJobs(navigator.hardwareConcurrency, Deno.env.get("DENO_JOBS")) },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, forward(signal));
  }
  Deno.exit((await child.status).code);
}
