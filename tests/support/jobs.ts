/** A job system on a test's own database, outside the app (for queue-level tests). */
import { createJobSystem, type JobSystemOptions } from "../../src/platform/jobs/index.ts";
import type { Database } from "../../src/platform/db.ts";
import { memoryLogger } from "../../src/platform/log.ts";
import { createErrorTracker } from "../../src/platform/errors.ts";
import { ManualClock } from "../../src/platform/clock.ts";

export function createTestJobs(db: Database, options: Partial<JobSystemOptions> = {}) {
  const log = memoryLogger();
  const clock = options.clock ?? new ManualClock();
  const jobs = createJobSystem({
    db,
    log,
    tracker: createErrorTracker({ log }),
    clock,
    random: () => 0.5,
    ...options,
  });
  return { jobs, log, clock };
}

/**
 * One deploy that dies with a job in hand: a job system whose handler for `name` waits on `hang`
 * claims the job, then is stopped with a 20 ms grace, so the job is released at shutdown.
 */
export async function shutDownMidJob(
  db: Database,
  name: string,
  hang: Promise<void>,
  options: Partial<JobSystemOptions> = {},
) {
  const deploy = createTestJobs(db, { pollIntervalMs: 10, graceMs: 20, ...options });
  let started!: () => void;
  const running = new Promise<void>((r) => started = r);
  deploy.jobs.handle(name, async () => {
    started();
    await hang;
  });
  await deploy.jobs.start();
  await running;
  await deploy.jobs.stop();
  return deploy;
}

/**
 * `db` as seen by a process that can be killed: after `kill()` no statement of it reaches the
 * database any more (each fails at once), as after a `kill -9` of the worker's process, while the
 * database and every other user of it go on.
 */
export function killable(db: Database): { db: Database; kill(): void } {
  let killed = false;
  const refuse = () => Promise.reject(new Error("the worker's process was killed"));
  const sql = new Proxy(db.sql, {
    apply(target, thisArg, args) {
      // deno-lint-ignore no-explicit-any
      return killed ? refuse() : Reflect.apply(target as any, thisArg, args);
    },
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "begin" && prop !== "unsafe") return value;
      return (...args: unknown[]) =>
        // deno-lint-ignore no-explicit-any
        killed ? refuse() : (value as any).apply(target, args);
    },
  });
  return {
    db: { ...db, sql, supportsListen: false, close: () => Promise.resolve() },
    kill: () => killed = true,
  };
}
