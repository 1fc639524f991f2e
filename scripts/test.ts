/**
 * `deno task test [paths] [deno test options]`: `deno test -A --parallel` over the test files under
 * `tests/` (deno.json's `test.include`) or the paths given, with two workers more than the machine
 * has cores, without type-checking them again (`deno task check` does that, and `.ci/run` runs it
 * first). At any moment a few workers wait on a timer, a child process, a browser or a server of
 * their own; the extra two keep the cores busy meanwhile (docs/testing.md). `DENO_JOBS` set in the
 * environment wins.
 *
 * Files run in groups, each group one module importing its files, so that a group's files share
 * one worker and what a worker sets up once (the modules, the embedded database, a signing key): a
 * worker's start-up costs more than most files' tests. The long units start first, so that none
 * starts last and ends the run alone: the page tests' groups, then the files that start processes
 * or servers of their own, each alone; the other files' smaller groups even out the end.
 */
import { testFiles } from "./test-plan.ts";

/** How many test files run at once on a machine with `cores` cores. */
export function testJobs(cores: number, env: string | undefined): string {
  return env && /^[1-9]\d*$/.test(env) ? env : String(Math.max(1, cores) + 2);
}

/** What a long test file does: start a process or a server of its own. */
const PROCESS =
  /\b(startProcess|runMain|startOwnPostgres|startOwnRedis|startRunnerProcess|ensureEmbeddedTemplate)\(|new Deno\.Command\(/g;
/** What a page test does: drive a browser. */
const PAGE = /\b(withConsole|launchBrowser)\(/g;

const weight = (text: string, what = PROCESS) => text.match(what)?.length ?? 0;

/** `files` with the long ones first (most such calls first), the others in their order. */
export function longFirst(files: { path: string; text: string }[]): string[] {
  const long = (text: string) => weight(text) + weight(text, PAGE);
  return files.map((f, i) => ({ path: f.path, weight: long(f.text), i }))
    .sort((a, b) => b.weight - a.weight || a.i - b.i)
    .map((f) => f.path);
}

/** `files` in at most `count` groups of about the same size of source, each in their order. */
function balanced(files: { path: string; text: string }[], count: number): string[][] {
  const bins = Array.from(
    { length: Math.max(1, count) },
    () => ({ size: 0, files: [] as number[] }),
  );
  const order = files.map((f, i) => ({ i, size: f.text.length }))
    .sort((a, b) => b.size - a.size || a.i - b.i);
  for (const { i, size } of order) {
    const bin = bins.reduce((min, b) => b.size < min.size ? b : min);
    bin.size += size;
    bin.files.push(i);
  }
  return bins.filter((b) => b.files.length)
    .map((b) => b.files.sort((x, y) => x - y).map((i) => files[i].path));
}

/**
 * The units the files run in, in the order they start, each one worker: the page tests in `jobs`
 * groups (the longest units), then each file that starts processes or servers alone (most calls
 * first), then the other files in `3 * jobs` groups, small units that even out the end of the run.
 * A unit of one file is that file itself.
 */
export function runPlan(files: { path: string; text: string }[], jobs: number): string[][] {
  const processes = files.filter((f) => weight(f.text) > 0);
  const pages = files.filter((f) => weight(f.text) === 0 && weight(f.text, PAGE) > 0);
  const others = files.filter((f) => weight(f.text) === 0 && weight(f.text, PAGE) === 0);
  return [
    ...balanced(pages, jobs),
    ...longFirst(processes).map((path) => [path]),
    ...balanced(others, Math.min(3 * jobs, Math.ceil(others.length / 2))),
  ];
}

/** The module that runs a group: it imports each file (absolute URLs), in order. */
export function groupModule(paths: string[], cwd: string): string {
  return paths.map((p) => `import ${JSON.stringify(new URL(p, `file://${cwd}/`).href)};\n`)
    .join("");
}

async function expand(args: string[]) {
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
  return { options, texts };
}

if (import.meta.main) {
  const jobs = testJobs(navigator.hardwareConcurrency, Deno.env.get("DENO_JOBS"));
  const { options, texts } = await expand(Deno.args);
  const units = runPlan(texts, Number(jobs));
  // Outside the project: deno.json excludes build/, and tests/ holds only tests.
  const dir = await Deno.makeTempDir({ prefix: "test-groups-" });
  const modules = await Promise.all(units.map(async (paths, i) => {
    if (paths.length === 1) return paths[0];
    const file = `${dir}/group-${String(i + 1).padStart(2, "0")}_test.ts`;
    await Deno.writeTextFile(file, groupModule(paths, Deno.cwd()));
    return file;
  }));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "-A",
      "--parallel",
      "--no-check",
      "--config",
      "deno.json",
      ...options,
      ...modules,
    ],
    env: { DENO_JOBS: jobs },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, forward(signal));
  }
  const { code } = await child.status;
  await Deno.remove(dir, { recursive: true });
  Deno.exit(code);
}
