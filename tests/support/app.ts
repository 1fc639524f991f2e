/**
 * Builds the whole service in-process for a test, on the test's own database and store, and
 * sends it requests without a network hop.
 */
import { assertKeptCountsAgree, KeptCountsDisagree } from "./kept-counts.ts";
import { type App, type AppOptions, buildApp, type Deps } from "../../src/app.ts";
import { integerIdGuard } from "./id-guard.ts";
import { parseConfig } from "../../src/config.ts";
import { type Clock, ManualClock } from "../../src/platform/clock.ts";
import { createErrorTracker } from "../../src/platform/errors.ts";
import { createServiceMetrics } from "../../src/platform/metrics.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import type { KvStore } from "../../src/platform/kv.ts";
import type { Database } from "../../src/platform/db.ts";
import { createTestDatabase } from "./db.ts";
import { createTestKv } from "./kv.ts";

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  fetch?: typeof fetch;
  db?: Database;
  kv?: KvStore;
  app?: AppOptions;
}

export interface TestApp {
  app: App;
  deps: Deps;
  log: ReturnType<typeof memoryLogger>;
  clock: Clock;
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = parseConfig({
    DATA_DIR: "/nonexistent",
    LOG_LEVEL: "debug",
    // A loaded test machine can take longer than the production wait for a healthy Redis's
    // count, and a test that counts requests would see one go through uncounted. The fault tests
    // set the default back.
    RATE_LIMIT_STORE_WAIT_MS: "2000",
    ...options.env,
  });
  const log = memoryLogger();
  const clock = options.clock ?? new ManualClock();
  const db = options.db ?? await createTestDatabase();
  const kv = options.kv ?? createTestKv(clock);
  const tracker = createErrorTracker({ dsn: config.errorTrackerDsn, log });
  const deps: Deps = { config, db, kv, log, clock, tracker, fetch: options.fetch ?? fetch };
  const integerIds: string[] = [];
  // Tests read the metrics of every app (the service records them only when it serves them).
  const app = buildApp(deps, {
    metrics: createServiceMetrics(),
    ...options.app,
    graphqlPlugins: [integerIdGuard(integerIds), ...(options.app?.graphqlPlugins ?? [])],
  });
  return {
    app,
    deps,
    log,
    clock,
    request: (path, init) => app.handler(new Request(new URL(path, "http://test.local"), init)),
    async close() {
      await app.stop();
      await tracker.flush();
      await kv.close();
      // Every test that wrote through the stores leaves the kept counts true to their rows (a
      // test that stopped its database leaves nothing to check).
      const counts = await assertKeptCountsAgree(db.sql).then(
        () => null,
        (err: Error) => err instanceof KeptCountsDisagree ? err : null,
      );
      await db.close();
      if (counts) throw counts;
      if (integerIds.length) {
        throw new Error(`integer-looking ids reached a client: ${integerIds.join("; ")}`);
      }
    },
  };
}

/** Log entries whose `msg` equals `msg`. */
export function logged(log: TestApp["log"], msg: string) {
  return log.entries.filter((e) => e.msg === msg);
}
