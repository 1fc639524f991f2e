/**
 * The agent runner entry point (`deno task runner`, `bin/runner`): reads the configuration
 * (exit 2 with one line naming a bad variable), serves spec 4.8, and on SIGTERM/SIGINT cancels
 * running runs, lets them report `failed` / `cancelled` for up to `SHUTDOWN_TIMEOUT_MS`, and exits 0.
 */
import { ConfigError } from "../src/config.ts";
import { systemClock } from "../src/platform/clock.ts";
import { createLogger } from "../src/platform/log.ts";
import { createRunner } from "./app.ts";
import { parseRunnerConfig, type RunnerConfig } from "./config.ts";
import { realSleep } from "./sleep.ts";

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

const config = loadConfigOrExit();
const log = createLogger({ level: config.logLevel, fields: { service: "runner" } });
const runner = createRunner({ config, log, clock: systemClock, sleep: realSleep, fetch });
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  onListen: ({ port, hostname }) =>
    log.info("listening", {
      port,
      hostname,
      auth_mode: config.authMode,
      skills_dir: config.skillsDir,
    }),
}, runner.handler);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  await runner.shutdown(config.shutdownTimeoutMs);
  await Promise.race([server.shutdown(), new Promise((resolve) => setTimeout(resolve, 1000))]);
  log.info("stopped", {});
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
await server.finished;
