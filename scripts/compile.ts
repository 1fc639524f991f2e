/**
 * `deno task compile`: builds `bin/service` and `bin/runner` from the bundles `deno task bundle`
 * writes (scripts/bundle.ts), each holding the files its bundle reads at run time.
 *
 * `deno compile` needs the `denort` runtime of the same Deno version. It downloads it once into
 * `$DENO_DIR/dl/` (see `deno info` for DENO_DIR); on a machine without internet, place the
 * binary there or point `DENORT_BIN` at it.
 *
 * `BUILD_VERSION=1.4.0 deno task compile` stamps both binaries with that version (src/platform/version.ts);
 * without it they report `0.0.0-dev`.
 */
import { buildVersion, bundle, bundledPrograms, v8FlagArgs } from "./bundle.ts";

await bundle(undefined, ".", { version: buildVersion() });
for (const program of bundledPrograms()) {
  const include = program.include.flatMap((path) => {
    try {
      Deno.statSync(path);
      return ["--include", path];
    } catch {
      return [];
    }
  });
  const args = [
    "compile",
    "-A",
    ...v8FlagArgs(program),
    ...include,
    "--output",
    `bin/${program.name}`,
    program.entry,
  ];
  console.log(`deno ${args.join(" ")}`);
  const { code } = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
  if (code !== 0) Deno.exit(code);
}
