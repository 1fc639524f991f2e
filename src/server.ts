/**
 * Starting and stopping the service process: configuration, database, migrations, store,
 * the HTTP server, and a graceful shutdown on SIGTERM/SIGINT.
 */
import { type Config, parseConfig } from "./config.ts";
import { ConfigError } from "./platform/env.ts";
import {
  type BufferedSink,
  createBufferedSink,
  createLogger,
  errorFields,
  type Logger,
} from "./platform/log.ts";
import { createErrorTracker } from "./platform/errors.ts";
import { openDatabase, sessionSql } from "./platform/db.ts";
import { handleUnawaitedRejections } from "./platform/unawaited.ts";
import { migrate } from "./platform/migrate.ts";
import { openKv } from "./platform/kv.ts";
import { systemClock } from "./platform/clock.ts";
import { type App, buildApp } from "./app.ts";
import { createHttpDrain } from "./platform/http-drain.ts";
import { parseSeedFile, seedEmployees } from "./features/workforce/mod.ts";
import { loadDevKey } from "./graphql/dev-auth.ts";
import { demoDataRefusal, loadDemoData } from "./demo/load.ts";

/** Parses the environment, or prints one line naming the bad variable and exits with 2. */
export function loadConfigOrExit(env = Deno.env.toObject()): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(2);
    }
    throw err;
  }
}

const databaseTimeouts = (config: Config) => ({
  connectMs: config.databaseConnectTimeoutMs,
  statementMs: config.databaseStatementTimeoutMs,
});

async function withDatabase<T>(
  config: Config,
  log: Logger,
  fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
) {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    log,
    timeouts: databaseTimeouts(config),
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export async function runMigrations(config: Config): Promise<void> {
  const log = createLogger({ level: config.logLevel });
  await withDatabase(config, log, async (db) => {
    const applied = await migrate(sessionSql(db), log);
    log.info("migrations done", { applied: applied.length });
  });
}

/** `main.ts seed-employees FILE.json`: exit code 0 when every record was saved, else 1 (2: bad file). */
export async function runSeedEmployees(config: Config, file: string): Promise<number> {
  const log = createLogger({ level: config.logLevel });
  const records = parseSeedFile(await Deno.readTextFile(file));
  if (typeof records === "string") {
    console.error(`${file}: ${records}`);
    return 2;
  }
  return await withDatabase(config, log, async (db) => {
    await migrate(sessionSql(db), log);
    const report = await seedEmployees({ sql: db.sql, clock: systemClock }, records);
    console.log(JSON.stringify(report));
    for (const failure of report.failed) {
      console.error(`${failure.role}: ${failure.errors.join("; ")}`);
    }
    return report.failed.length ? 1 : 0;
  });
}

async function serviceAnswers(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/up`, { signal: AbortSignal.timeout(1000) })
    .catch(() => undefined);
  await res?.body?.cancel();
  return res !== undefined;
}

/**
 * `main.ts demo-data`: exit code 0 when the demo data is loaded (or was already there), 1 while a
 * service on the embedded database runs on this port, 2 in production or with a bad configuration.
 */
export async function runDemoData(env = Deno.env.toObject()): Promise<number> {
  const refusal = demoDataRefusal(env);
  if (refusal) {
    console.error(refusal);
    return 2;
  }
  const config = loadConfigOrExit(env);
  if (!config.databaseUrl && await serviceAnswers(config.port)) {
    console.error(
      `a service answers on port ${config.port}: stop it first, the embedded database under ${config.dataDir} takes one process at a time`,
    );
    return 1;
  }
  const log = createLogger({ level: config.logLevel });
  return await withDatabase(config, log, async (db) => {
    await migrate(sessionSql(db), log);
    const started = performance.now();
    const report = await loadDemoData({ sql: db.sql, clock: systemClock });
    console.log(JSON.stringify({ ...report, ms: Math.round(performance.now() - started) }));
    console.error(
      report.users.created.length
        ? "demo data loaded; sign in as alice: DEV_AUTH=on main.ts dev-token --sub alice (docs/auth.md)"
        : "demo data was already there; nothing was duplicated",
    );
    return 0;
  });
}

async function timed(fn: () => Promise<void>, log: Logger): Promise<number> {
  const started = performance.now();
  try {
    await fn();
  } catch (err) {
    log.error("error while stopping background work", errorFields(err));
  }
  return Math.round(performance.now() - started);
}

/** Creates the development key now, so the warning names its file. */
async function warnDevAuth(config: Config, log: Logger): Promise<void> {
  const key = await loadDevKey(config.dataDir);
  log.warn(
    "development sign-in is on: tokens minted by main.ts dev-token act as any user, admins included; never in production",
    { dev_auth: true, key_file: key.path },
  );
}

export interface ServeHooks {
  /** Called with the built app before its background work starts (a test entry registers a
   * job kind of its own here). */
  prepare?(app: App): void;
}

/** How long exiting waits for the log lines still queued when stdout is slow. */
const LOG_FLUSH_TIMEOUT_MS = 2000;

async function flushLog(sink: BufferedSink): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, LOG_FLUSH_TIMEOUT_MS));
  await Promise.race([sink.flush(), timeout]);
  clearTimeout(timer);
}

/**
 * Runs the service until SIGTERM/SIGINT. Its log is written in the background (a request never
 * waits for stdout) and flushed before the process exits.
 */
export async function serve(config: Config, hooks: ServeHooks = {}): Promise<void> {
  const sink = createBufferedSink();
  const log = createLogger({ level: config.logLevel, write: sink.write });
  try {
    await serveWith(config, hooks, log, sink);
  } finally {
    await flushLog(sink);
  }
}

async function serveWith(
  config: Config,
  hooks: ServeHooks,
  log: Logger,
  sink: BufferedSink,
): Promise<void> {
  const tracker = createErrorTracker({ dsn: config.errorTrackerDsn, log });
  handleUnawaitedRejections(log, tracker);
  if (config.devAuth) await warnDevAuth(config, log);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    log,
    timeouts: databaseTimeouts(config),
  });
  await migrate(sessionSql(db), log);
  const kv = openKv({
    redisUrl: config.redisUrl,
    log,
    prefix: config.redisKeyPrefix,
    timeouts: { connectMs: config.redisConnectTimeoutMs, commandMs: config.redisCommandTimeoutMs },
  });
  const app = buildApp({ config, db, kv, log, clock: systemClock, tracker, fetch });
  hooks.prepare?.(app);
  const drain = createHttpDrain();
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ port, hostname }) =>
      log.info("listening", {
        port,
        hostname,
        database: db.mode,
        kv: kv.mode,
        node_env: Deno.env.get("NODE_ENV") ?? null,
      }),
  }, drain.track(app.handler));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // app.stop() flips /up to 503 and closes the sockets at once; the job grace and the HTTP
    // drain then run side by side, each with its own window.
    const jobsStopped = timed(() => app.stop(), log);
    const httpDrained = drain.close(server, config.shutdownDrainMs);
    const [jobsMs, http] = await Promise.all([jobsStopped, httpDrained]);
    log.info("drained", { http_ms: http.durationMs, jobs_ms: jobsMs });
    if (!http.drained) {
      log.warn("in-flight requests did not finish in time", { in_flight: http.inFlight });
    }
    try {
      await kv.close();
      await db.close();
      await tracker.flush();
    } catch (err) {
      log.error("error while closing", errorFields(err));
    }
    log.info("stopped", {});
    await flushLog(sink);
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
  Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
  // After the signal handlers: a SIGTERM during start-up must still shut down gracefully.
  await app.start();
  await server.finished;
}
