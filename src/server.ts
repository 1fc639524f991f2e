/**
 * Starting and stopping the service process: configuration, database, migrations, store,
 * the HTTP server, and a graceful shutdown on SIGTERM/SIGINT.
 *
 * This module is on the start-up path, so it imports only what serving needs before the app is
 * built: the composition root (`./app.ts`, every feature and the GraphQL schema), the seed and
 * demo-data loaders and the development keys are imported where they are used.
 */
import { type Config, parseConfig } from "./config.ts";
import { ConfigError, SECRET_MIN_LENGTH } from "./platform/env.ts";
import {
  type BufferedSink,
  createBufferedSink,
  createLogger,
  errorFields,
  type Logger,
} from "./platform/log.ts";
import { createErrorTracker, type ErrorTracker } from "./platform/errors.ts";
import { errorResponse } from "./platform/contract/errors.ts";
import { describeFatal } from "./platform/fatal.ts";
import { VERSION } from "./platform/version.ts";
import { openDatabase, openPoolConnections, sessionSql } from "./platform/db.ts";
import { handleUnawaitedRejections } from "./platform/unawaited.ts";
import { migrate } from "./platform/migrate.ts";
import { findEmbeddedTemplate } from "./embedded-template.ts";
import { openKv } from "./platform/open-kv.ts";
import { systemClock } from "./platform/clock.ts";
import type { App } from "./app.ts";
import { createHttpDrain } from "./platform/http-drain.ts";
import { serveGuarded } from "./platform/edge/serve.ts";
import { metricsOnlyHandler } from "./platform/metrics-endpoint.ts";
import { createHandler } from "./http/handler.ts";
import { requestUrl } from "./platform/request-url.ts";
import { serviceHealth, upResponse } from "./http/health.ts";

/**
 * Parses the environment, or prints one line naming the bad variable and exits with 2. `logLine`
 * (`serve`, `migrate`): also the fatal error's JSON log line on stdout, where the service logs.
 */
export function loadConfigOrExit(
  env = Deno.env.toObject(),
  { logLine = false }: { logLine?: boolean } = {},
): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      if (logLine) {
        createLogger().error("start-up failed", describeFatal(err).fields);
      }
      Deno.exit(2);
    }
    throw err;
  }
}

const databaseTimeouts = (config: Config) => ({
  connectMs: config.databaseConnectTimeoutMs,
  statementMs: config.databaseStatementTimeoutMs,
});

/**
 * The database the settings name (a fresh embedded one starts from its template); an embedded one
 * is locked for `command` (a second process on its DATA_DIR is refused).
 */
const openConfiguredDatabase = (config: Config, log: Logger, command: string) =>
  openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    command,
    poolSize: config.databasePoolSize,
    log,
    timeouts: databaseTimeouts(config),
    embeddedTemplate: (pgDir) => findEmbeddedTemplate(pgDir),
  });

async function withDatabase<T>(
  config: Config,
  log: Logger,
  command: string,
  fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
) {
  const db = await openConfiguredDatabase(config, log, command);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * `main.ts migrate`: exit code 0 once every migration is applied; otherwise one JSON log line
 * naming the cause (`migrate failed`, src/platform/fatal.ts) and its exit code.
 */
export async function runMigrations(config: Config): Promise<number> {
  const log = createLogger({ level: config.logLevel });
  try {
    await withDatabase(config, log, "migrate", async (db) => {
      const applied = await migrate(sessionSql(db), log);
      log.info("migrations done", { applied: applied.length });
    });
    return 0;
  } catch (err) {
    const fatal = describeFatal(err);
    log.error("migrate failed", fatal.fields);
    return fatal.exitCode;
  }
}

/**
 * A command line tool's database work: a failure to open or migrate the database (the embedded
 * one in use by another process, a server it cannot reach) is one line on stderr and exit code 1.
 */
async function cliWithDatabase(
  config: Config,
  log: Logger,
  command: string,
  fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<number>,
): Promise<number> {
  let db;
  try {
    db = await openConfiguredDatabase(config, log, command);
    await migrate(sessionSql(db), log);
  } catch (err) {
    await db?.close().catch(() => {});
    const fatal = describeFatal(err);
    console.error(`${command}: ${fatal.message}`);
    return fatal.exitCode;
  }
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** `main.ts seed-employees FILE.json`: exit code 0 when every record was saved, else 1 (2: bad file). */
export async function runSeedEmployees(config: Config, file: string): Promise<number> {
  const { parseSeedFile, seedEmployees } = await import("./features/workforce/mod.ts");
  const log = createLogger({ level: config.logLevel });
  const records = parseSeedFile(await Deno.readTextFile(file));
  if (typeof records === "string") {
    console.error(`${file}: ${records}`);
    return 2;
  }
  return await cliWithDatabase(config, log, "seed-employees", async (db) => {
    const report = await seedEmployees({ sql: db.sql, clock: systemClock }, records);
    console.log(JSON.stringify(report));
    for (const failure of report.failed) {
      console.error(`${failure.role}: ${failure.errors.join("; ")}`);
    }
    return report.failed.length ? 1 : 0;
  });
}

/**
 * `main.ts demo-data`: exit code 0 when the demo data is loaded (or was already there), 1 while
 * another process holds the embedded database (or the database cannot be opened), 2 in production
 * or with a bad configuration.
 */
export async function runDemoData(env = Deno.env.toObject()): Promise<number> {
  const { demoDataRefusal, loadDemoData } = await import("./demo/load.ts");
  const refusal = demoDataRefusal(env);
  if (refusal) {
    console.error(refusal);
    return 2;
  }
  const config = loadConfigOrExit(env);
  const log = createLogger({ level: config.logLevel });
  return await cliWithDatabase(config, log, "demo-data", async (db) => {
    const started = performance.now();
    const report = await loadDemoData({ db, clock: systemClock });
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
  const { loadDevKey } = await import("./graphql/dev-auth.ts");
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
 * waits for stdout) and flushed before the process exits. A failure to start (or to keep serving:
 * the app failing to build, the job system failing to start) is fatal: one `start-up failed` log
 * line naming the cause (src/platform/fatal.ts), and the process exits with its code (1, or 2 for
 * a configuration error); it never stays alive without serving.
 */
export async function serve(config: Config, hooks: ServeHooks = {}): Promise<void> {
  const sink = createBufferedSink();
  const log = createLogger({ level: config.logLevel, write: sink.write });
  try {
    await serveWith(config, hooks, log, sink);
  } catch (err) {
    const fatal = describeFatal(err);
    log.error("start-up failed", fatal.fields);
    await flushLog(sink);
    Deno.exit(fatal.exitCode);
  } finally {
    await flushLog(sink);
  }
}

/**
 * What a listener answers for an error its handler let through (none should: the handler maps
 * every error to an answer): reported like any unhandled error, and a JSON 500 instead of
 * `Deno.serve`'s bare one.
 */
function unhandledServeError(tracker: ErrorTracker) {
  return (err: unknown): Response => {
    tracker.captureError(err, { where: "http server" });
    return errorResponse("internal_error", "the request failed");
  };
}

/** The probes answered before the app is built (`GET /up`, `GET /health`). */
function isProbe(req: Request): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const path = requestUrl(req)?.pathname;
  return path === "/up" || path === "/health";
}

/**
 * Loads the app (every feature and the GraphQL schema) while it opens the database (migrated)
 * and the store, then listens as soon as those are up: should the app still be loading, `/up` and
 * `/health` are answered from the live dependencies and every other request waits for the app.
 */
async function serveWith(
  config: Config,
  hooks: ServeHooks,
  log: Logger,
  sink: BufferedSink,
): Promise<void> {
  const tracker = createErrorTracker({ dsn: config.errorTrackerDsn, log });
  handleUnawaitedRejections(log, tracker);
  // By name only: a value is never logged.
  for (const variable of config.shortSecrets) {
    log.warn(`secret shorter than ${SECRET_MIN_LENGTH} characters`, {
      variable,
      min_length: SECRET_MIN_LENGTH,
    });
  }
  // The app's modules load while the database opens (connects, or PGlite starts) and migrates.
  const appModule = import("./app.ts");
  appModule.catch(() => {});
  // The Prometheus client only where metrics are served (docs/observability.md).
  const metricsModule = config.metricsToken !== undefined || config.metricsPort !== undefined
    ? import("./platform/metrics.ts")
    : undefined;
  metricsModule?.catch(() => {});
  if (config.devAuth) await warnDevAuth(config, log);
  if (config.databaseUrl) {
    const { warnUnmovedEmbeddedData } = await import("./embedded-moved.ts");
    await warnUnmovedEmbeddedData(config, log);
  }
  const db = await openConfiguredDatabase(config, log, "serve");
  // The first requests (the orchestrator's /health: two statements at once) find their
  // connections open: they open while the migrations are checked.
  await Promise.all([
    migrate(sessionSql(db), log),
    db.mode === "postgres" ? openPoolConnections(db, 2) : undefined,
  ]);
  const kv = await openKv({
    redisUrl: config.redisUrl,
    log,
    prefix: config.redisKeyPrefix,
    timeouts: { connectMs: config.redisConnectTimeoutMs, commandMs: config.redisCommandTimeoutMs },
  });
  const deps = { config, db, kv, log, clock: systemClock, tracker, fetch };

  let stopping = false;
  let app: App | undefined;
  let closeControl: (() => Promise<void>) | undefined;
  const probes = createHandler({
    log,
    tracker,
    trustProxyHops: config.trustProxyHops,
    shuttingDown: () => stopping,
  }, (req) => {
    const path = new URL(req.url).pathname;
    return path === "/up" ? Promise.resolve(upResponse(stopping)) : serviceHealth(deps)();
  });
  const built = Promise.all([appModule, metricsModule]).then(([{ buildApp }, metrics]) => {
    app = buildApp(deps, { metrics: metrics?.createServiceMetrics() });
    hooks.prepare?.(app);
    log.info("app built", { ms_since_start: Math.round(performance.now()) });
    return app;
  });
  // Not awaited until after listening; a failure to build is thrown below.
  built.catch(() => {});
  const drain = createHttpDrain();
  const handler = async (req: Request, info: Deno.ServeHandlerInfo) => {
    if (app) return await app.handler(req, info);
    if (isProbe(req)) return await probes(req, info);
    return await (await built).handler(req, info);
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
        database: db.mode,
        kv: kv.mode,
        node_env: Deno.env.get("NODE_ENV") ?? null,
      }),
    onError: unhandledServeError(tracker),
  }, drain.track(handler));
  const metricsServer = config.metricsPort === undefined ? null : Deno.serve({
    port: config.metricsPort,
    hostname: config.metricsHost,
    onListen: ({ port, hostname }) => log.info("metrics listening", { port, hostname }),
    onError: unhandledServeError(tracker),
  }, async (req) => await metricsOnlyHandler((await built).metrics)(req));

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // app.stop() flips /up to 503 and closes the sockets at once; the job grace and the HTTP
    // drain then run side by side, each with its own window.
    const jobsStopped = timed(async () => await (await built).stop(), log);
    const httpDrained = drain.close(server, config.shutdownDrainMs);
    const [jobsMs, http] = await Promise.all([jobsStopped, httpDrained]);
    log.info("drained", { http_ms: http.durationMs, jobs_ms: jobsMs });
    if (!http.drained) {
      log.warn("in-flight requests did not finish in time", { in_flight: http.inFlight });
    }
    try {
      await closeControl?.();
      await metricsServer?.shutdown();
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
  const started = await built;
  if (db.mode === "embedded") {
    const { serveControlSocket } = await import("./control-socket.ts");
    closeControl = await serveControlSocket(
      config.dataDir,
      () => started.features.backups.api.backUpNow("command"),
      log,
    );
  }
  // Requests that arrived while the app was built are taken up before the job system starts.
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (!stopping) {
    try {
      await started.start();
    } catch (err) {
      // A signal meanwhile closed the connections the job system was opening (its LISTEN):
      // that is the shutdown under way, which exits by itself, not a failure to start.
      if (!stopping) throw err;
    }
  }
  await server.finished;
}
