/**
 * Step 3 of a release: both binaries (the service and the runner, compiled from their bundles as in
 * scripts/compile.ts) cross-compiled for linux x64 and arm64 into `dist/`.
 *
 * `deno run -A scripts/release/build.ts <version> [outDir]`, e.g. `build.ts v1.2.3`. Each target
 * needs its `denort` runtime, which `deno compile` downloads on first use.
 */
import { bundle, bundledPrograms, v8FlagArgs } from "../bundle.ts";
import { ReleaseError, runMain } from "./common.ts";

export const TARGETS = [
  { platform: "linux-x64", triple: "x86_64-unknown-linux-gnu" },
  { platform: "linux-arm64", triple: "aarch64-unknown-linux-gnu" },
] as const;

export interface BuildStep {
  /** File name of the release asset, e.g. `service-v1.2.3-linux-x64`. */
  asset: string;
  output: string;
  /** Arguments to `deno`. */
  args: string[];
}

/**
 * One `deno compile` per binary and target. `exists` says which `--include` paths are there (a
 * checkout without `runner/skills` builds without it).
 */
export function buildPlan(
  version: string,
  outDir = "dist",
  exists: (path: string) => boolean = () => true,
): BuildStep[] {
  if (!/^[\w.-]+$/.test(version)) {
    throw new ReleaseError(`"${version}" cannot be part of a file name`);
  }
  const dir = outDir.replace(/\/+$/, "");
  return bundledPrograms().flatMap((binary) =>
    TARGETS.map((target) => {
      const asset = `${binary.name}-${version}-${target.platform}`;
      const output = `${dir}/${asset}`;
      const include = binary.include.filter(exists).flatMap((path) => ["--include", path]);
      return {
        asset,
        output,
        args: [
          "compile",
          "-A",
          "--target",
          target.triple,
          ...v8FlagArgs(binary),
          ...include,
          "--output",
          output,
          binary.entry,
        ],
      };
    })
  );
}

function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  await runMain("build", async () => {
    const [version, outDir = "dist"] = Deno.args;
    if (!version) throw new ReleaseError("usage: build.ts <version> [outDir]");
    await Deno.mkdir(outDir, { recursive: true });
    // The binaries report the version without the tag's `v` (src/platform/version.ts).
    await bundle(undefined, ".", { version: version.replace(/^v(?=\d)/, "") });
    for (const step of buildPlan(version, outDir, pathExists)) {
      console.log(`deno ${step.args.join(" ")}`);
      const { code } = await new Deno.Command(Deno.execPath(), { args: step.args }).spawn().status;
      if (code !== 0) throw new ReleaseError(`deno compile of ${step.asset} exited with ${code}`);
    }
  });
}
