/**
 * The agent runner entry point (`deno task runner`, `bin/runner`): answers `--help` and `--version`
 * without any configuration (runner/cli.ts), otherwise reads the configuration
 * (exit 2 with one line naming a bad variable), serves spec 4.8 (and `/metrics` alone on
 * `METRICS_PORT` when set), and on SIGTERM/SIGINT cancels running runs, lets them report `failed`
 * / `cancelled` for up to `SHUTDOWN_TIMEOUT_MS` while in-flight requests drain for up to
 * `SHUTDOWN_DRAIN_MS`, and exits 0.
 */
import { ConfigError, SECRET_MIN_LENGTH } from "../src/platform/env.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createLogger, errorFields, type Logger } from "../src/platform/log.ts";
import { errorResponse } from "../src/platform/contract/errors.ts";
import { fileURLToPath } from "node:url";
import { createRunner } from "./app.ts";
import { parseRunnerConfig, type RunnerConfig } from "./config.ts";
import { realSleep } from "./sleep.ts";
import { createHttpDrain } from "../src/platform/http-drain.ts";
import { serveGuarded } from "../src/platform/edge/serve.ts";
import { metricsOnlyHandler } from "../src/platform/metrics-endpoint.ts";
import { VERSION } from "../src/platform/version.ts";
import { parseRunnerCommandLine } from "./cli.ts";

function loadConfigOrExit(): RunnerConfig {
  try {
    return parseRunnerConfig(Deno.env.toObject());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(2);
    }
    throw err;
  }
}

/**
 * With `SKILLS_DIR` unset and no `./skills` folder, the example skills bundled next to this file
 * (and into `bin/runner` by `deno task compile`) are used, so a fresh install runs out of the box.
 */
function resolveSkillsDir(config: RunnerConfig, log: Logger): string {
  if (isDirectory(config.skillsDir)) return config.skillsDir;
  const bundled = fileURLToPath(new URL("./skills", import.meta.url));
  if (!Deno.env.get("SKILLS_DIR") && isDirectory(bundled)) {
    log.info("using the bundled example skills", { skills_dir: bundled });
    return bundled;
  }
  log.warn("SKILLS_DIR is not a directory: every run with skills will fail", {
    skills_dir: config.skillsDir,
  });
  return config.skillsDir;
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

const line = parseRunnerCommandLine(Deno.args);
if (line.kind === "print") {
  console.log(line.text);
  Deno.exit(0);
}
if (line.kind === "error") {
  console.error(line.message);
  Deno.exit(2);
}

const parsed = loadConfigOrExit();
const log = createLogger({ level: parsed.logLevel, fields: { service: "runner" } });
// By name only: a value is never logged.
for (const variable of parsed.shortSecrets) {
  log.warn(`secret shorter than ${SECRET_MIN_LENGTH} characters`, {
    variable,
    min_length: SECRET_MIN_LENGTH,
  });
}
const config = { ...parsed, skillsDir: resolveSkillsDir(parsed, log) };
const runner = createRunner({ config, log, clock: systemClock, sleep: realSleep, fetch });
const drain = createHttpDrain();
/** An error a handler let through (none should): logged, and a JSON 500, not a bare one. */
const unhandledServeError = (err: unknown): Response => {
  log.error("request failed", errorFields(err));
  return errorResponse("internal_error", "the request failed");
};
const server = serveGuarded({
  port: config.port,
  hostname: config.host,
  limits: config.edge,
  log,
  onListen: ({ port, hostname }) =>
    log.info("listening", {
      port,
      hostname,
      version: VERSION,
      auth_mode: config.authMode,
      skills_dir: config.skillsDir,
    }),
  onError: unhandledServeError,
}, drain.track(runner.handler));
const metricsServer = config.metricsPort === undefined ? null : Deno.serve({
  port: config.metricsPort,
  hostname: config.metricsHost,
  onListen: ({ port, hostname }) => log.info("metrics listening", { port, hostname }),
  onError: unhandledServeError,
}, metricsOnlyHandler(runner.metrics));

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  // New runs are refused (503) at once; cancelled runs report while requests drain.
  const [, http] = await Promise.all([
    runner.shutdown(config.shutdownTimeoutMs),
    drain.close(server, config.shutdownDrainMs),
  ]);
  if (!http.drained) {
    log.warn("in-flight requests did not finish in time", { in_flight: http.inFlight });
  }
  await metricsServer?.shutdown();
  log.info("stopped", {});
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
await server.finished;
