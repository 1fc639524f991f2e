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
