/**
 * `deno task bundle`: what production starts. The service (`main.ts`) and the runner
 * (`runner/main.ts`) as bundles under `build/` (gitignored), each with the files it reads at run
 * time beside it; `deno task compile`, the release binaries and the Dockerfile compile these.
 * A bundle starts in about two thirds of the time the sources take: one module per chunk instead
 * of hundreds of files, most of them CommonJS (docs/deployment.md has the figures).
 *
 * - `build/service/`: `main.js` and its chunks (code splitting keeps what a mode does not use
 *   behind its dynamic import), `embedded-worker.js` (the embedded database's worker, a bundle of
 *   its own, started by URL), `migrations/` and `embedded-template/` (the pre-migrated data dir
 *   a fresh embedded database starts from, scripts/embedded-template.ts). Modules that find files
 *   from `import.meta.url` (src/platform/migrate.ts, src/platform/embedded.ts,
 *   src/embedded-template.ts) look beside themselves when they run as a bundle's `.js`.
 * - `build/runner/`: `main.js` and `skills/` (the example skills, found next to `main.js`).
 *
 * Given a version (`BUILD_VERSION`, or the release's from scripts/release/build.ts), the bundles
 * are stamped with it: the marker of src/platform/version.ts is replaced in every bundled module, so
 * `--version`, `/health` and the build-info metric name it. Without one they say `0.0.0-dev`.
 *
 * PGlite stays outside the bundles, imported by name (resolved through deno.json) only in embedded
 * mode: it reads its WebAssembly and data files next to its own modules. So a bundle runs from
 * inside the project (`deno run -A build/service/main.js serve`), or compiled.
 */
import { cp } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadMigrations } from "../src/platform/migrate.ts";
import { writeEmbeddedTemplate } from "./embedded-template.ts";
import { isStampableVersion } from "../src/platform/version.ts";

export const BUNDLE_DIR = "build";

const EXTERNAL = ["@electric-sql/pglite", "@electric-sql/pglite-socket"];

/**
 * The service binary's V8 heap settings (docs/deployment.md "Memory on small machines"): a young
 * generation of 16 MiB instead of up to 64, the next full collection once the old generation grew
 * by half of what the last one kept (instead of up to 4×), and freed pages returned at once. After
 * the `bench:memory` read load the process holds 179-196 MiB instead of 320-440, for 0.76-0.88 of
 * the goals lists' throughput. A compiled binary reads no `DENO_V8_FLAGS`: these are its settings.
 */
export const SERVICE_V8_FLAGS = [
  "--max-semi-space-size=8",
  "--heap-growing-percent=50",
  "--no-memory-pool",
];

/** A program as `deno compile` builds it from the bundle: its entry and the files it reads. */
export interface BundledProgram {
  name: "service" | "runner";
  entry: string;
  include: string[];
  /** V8 flags built into the binary. */
  v8Flags: string[];
}

/** `deno compile`'s arguments for `program`'s V8 flags. */
export function v8FlagArgs(program: BundledProgram): string[] {
  return program.v8Flags.length ? [`--v8-flags=${program.v8Flags.join(",")}`] : [];
}

export function bundledPrograms(dir = BUNDLE_DIR): BundledProgram[] {
  const out = dir.replace(/\/+$/, "");
  return [
    {
      name: "service",
      entry: `${out}/service/main.js`,
      include: [
        `${out}/service/migrations`,
        `${out}/service/embedded-worker.js`,
        `${out}/service/embedded-template`,
      ],
      v8Flags: SERVICE_V8_FLAGS,
    },
    {
      name: "runner",
      entry: `${out}/runner/main.js`,
      include: [`${out}/runner/skills`],
      v8Flags: [],
    },
  ];
}

/** The `deno` invocations that write the bundles into `dir`. */
export function bundleCommands(dir = BUNDLE_DIR): string[][] {
  const out = dir.replace(/\/+$/, "");
  // Neither minified nor with names kept. Kept names (`--keep-names`, which minifying needs, since
  // libraries read `constructor.name`) cost a `defineProperty` on every function the code creates,
  // closures made per request included, which costs request throughput (bench/README.md "The
  // bundle's flags"). Unminified, names stay as written (a clash between modules gets a numbered
  // suffix, `Redis2`) and so do stack traces, at no cost to a warm start.
  const common = [
    "bundle",
    "--platform",
    "deno",
    ...EXTERNAL.map((name) => `--external=${name}`),
  ];
  return [
    [...common, "--code-splitting", "--outdir", `${out}/service`, "main.ts"],
    [
      ...common,
      "--output",
      `${out}/service/embedded-worker.js`,
      "src/platform/embedded-worker.ts",
    ],
    [
      ...common,
      "--output",
      `${out}/runner/main.js`,
      "runner/main.ts",
    ],
  ];
}

/**
 * The literal src/platform/version.ts holds until a build stamps it (with its quotes). Spelt in two parts
 * here, so that this module never holds it whole.
 */
export const STAMP_MARKER = JSON.stringify(["@@GOALS", "BUILD_VERSION@@"].join("_"));

/**
 * Replaces the version marker with `version` in the `.js` files of `dir` (not recursive);
 * returns how many it replaced.
 */
export async function stampVersion(dir: string, version: string): Promise<number> {
  if (!isStampableVersion(version)) {
    throw new Error(`"${version}" is not a version a build can be stamped with`);
  }
  let count = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = `${dir}/${entry.name}`;
    const text = await Deno.readTextFile(path);
    const parts = text.split(STAMP_MARKER);
    if (parts.length === 1) continue;
    count += parts.length - 1;
    await Deno.writeTextFile(path, parts.join(JSON.stringify(version)));
  }
  return count;
}

export interface BundleOptions {
  /** The version the programs report; unset: `0.0.0-dev` (src/platform/version.ts). */
  version?: string;
}

/** Writes the bundles and their files into `dir` (emptied first), from the repository at `root`. */
export async function bundle(
  dir = BUNDLE_DIR,
  root = ".",
  options: BundleOptions = {},
): Promise<void> {
  const out = resolve(root, dir);
  for (const program of ["service", "runner"]) {
    await Deno.remove(`${out}/${program}`, { recursive: true }).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  for (const args of bundleCommands(out)) {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(
        `deno ${args.join(" ")} exited with ${code}: ${new TextDecoder().decode(stderr)}`,
      );
    }
  }
  if (options.version !== undefined) {
    for (const program of ["service", "runner"]) {
      if (await stampVersion(`${out}/${program}`, options.version) === 0) {
        throw new Error(`the ${program} bundle holds no version marker to stamp`);
      }
    }
  }
  await cp(`${root}/migrations`, `${out}/service/migrations`, {
    recursive: true,
    filter: (path) => !path.endsWith(".lock"),
  });
  await writeEmbeddedTemplate(
    pathToFileURL(`${out}/service/embedded-template/`),
    await loadMigrations(pathToFileURL(`${out}/service/migrations/`)),
  );
  await cp(`${root}/runner/skills`, `${out}/runner/skills`, { recursive: true })
    .catch((err) => {
      // A checkout without the example skills bundles the runner without them.
      if (err?.code !== "ENOENT") throw err;
    });
}

/** `BUILD_VERSION` from the environment, when set and not empty. */
export function buildVersion(): string | undefined {
  return Deno.env.get("BUILD_VERSION")?.trim() || undefined;
}

if (import.meta.main) {
  await bundle(Deno.args[0], ".", { version: buildVersion() });
  console.log(`bundled into ${Deno.args[0] ?? BUNDLE_DIR}/`);
}
