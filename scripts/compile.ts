/**
 * `deno task compile`: builds `bin/service` and `bin/runner`.
 *
 * `deno compile` needs the `denort` runtime of the same Deno version. It downloads it once into
 * `$DENO_DIR/dl/` (see `deno info` for DENO_DIR); on a machine without internet, place the
 * binary there or point `DENORT_BIN` at it.
 */
const targets = [
  // The embedded database's worker is started by URL, so it is named for the binary to hold it.
  {
    output: "bin/service",
    entry: "main.ts",
    include: ["migrations", "src/platform/embedded-worker.ts"],
  },
  { output: "bin/runner", entry: "runner/main.ts", include: ["runner/skills"] },
];

for (const target of targets) {
  const include = target.include.flatMap((path) => {
    try {
      Deno.statSync(path);
      return ["--include", path];
    } catch {
      return [];
    }
  });
  const args = ["compile", "-A", ...include, "--output", target.output, target.entry];
  console.log(`deno ${args.join(" ")}`);
  const { code } = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
  if (code !== 0) Deno.exit(code);
}
