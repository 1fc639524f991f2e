/**
 * `deno task test [paths] [deno test options]`: `deno test -A --parallel` over the test files under
 * `tests/` (deno.json's `test.include`) or the paths given, with two test files more at once than
 * the machine has cores. At any moment a few files wait on a timer, a child process, a browser or a
 * server of their own; the extra two keep the cores busy meanwhile (docs/testing.md). `DENO_JOBS`
 * set in the environment wins.
 */

/** How many test files run at once on a machine with `cores` cores. */
export function testJobs(cores: number, env: string | undefined): string {
  return env && /^[1-9]\d*$/.test(env) ? env : String(Math.max(1, cores) + 2);
}

if (import.meta.main) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--parallel", ...Deno.args],
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
