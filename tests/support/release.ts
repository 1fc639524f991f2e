/**
 * Runs a release script (`scripts/release/<name>.ts`) as a subprocess the way the workflows do,
 * with only the given environment (no GITHUB_* leaks in from a CI runner), and returns its exit
 * code and output.
 */
const root = new URL("../../", import.meta.url).pathname;

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runReleaseScript(
  name: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ScriptResult> {
  const inherited: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "DENO_DIR", "TMPDIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) inherited[key] = value;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `scripts/release/${name}.ts`, ...args],
    cwd: root,
    clearEnv: true,
    env: { ...inherited, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
