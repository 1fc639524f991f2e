/**
 * The workforce use cases, each `(deps, actor, input) => Promise<Result>`: the only workforce
 * code that opens transactions, publishes events and enqueues jobs. The rules decide, the store
 * runs the statements, the schema modules, the webhook, the jobs and the schedules adapt to these
 * functions. They live in `use-cases/`:
 *
 * - `employees.ts`: create, update, pause, archive, unarchive, seed;
 * - `runs.ts`: trigger, dispatch (a job), cancel;
 * - `results.ts`: the runner's result concludes a run;
 * - `review.ts`: approve, reject (and the approval path auto-approval shares);
 * - `delivery.ts`: deliver (a job), retry a failed delivery, check a patch (a job);
 * - `schedule.ts`: the scheduler tick, the stale sweep, budget alerts, chat posts;
 * - `reads.ts`: what the admin reads;
 * - `shared.ts`: the deps, the actor, lookups, alerts.
 */
import type { RunResultBody } from "../../platform/contract/mod.ts";
import type { JobInfo } from "../../platform/jobs/types.ts";
import type { AlertLevel } from "./rules.ts";
import type { RunRow } from "./store.ts";
import { dispatchRun } from "./use-cases/runs.ts";
import { concludeFromResult } from "./use-cases/results.ts";
import {
  budgetAlerts,
  removeOldRunLogs,
  schedulerTick,
  sendChat,
  sweepStaleRuns,
} from "./use-cases/schedule.ts";
import { SYSTEM, type WorkforceServiceDeps } from "./use-cases/shared.ts";

export * from "./use-cases/shared.ts";
export * from "./use-cases/employees.ts";
export * from "./use-cases/runs.ts";
export * from "./use-cases/results.ts";
export * from "./use-cases/review.ts";
export * from "./use-cases/delivery.ts";
export * from "./use-cases/schedule.ts";
export * from "./use-cases/reads.ts";
export type {
  ArtifactFilter,
  ArtifactRow,
  EmployeeRow,
  MemoryRow,
  RunRow,
  Window,
} from "./store.ts";

/** The system's use cases bound to `deps`: what the jobs, schedules and webhook call. */
export function createWorkforceService(deps: WorkforceServiceDeps) {
  return {
    dispatchRun: (runId: string, attempt: number, maxAttempts: number) =>
      dispatchRun(deps, SYSTEM, { runId, attempt, maxAttempts }),
    sendChat: (
      alert: { subject: string; level: AlertLevel | "trigger_blocked"; text: string },
      job: Pick<JobInfo, "complete">,
    ) => sendChat(deps, SYSTEM, alert, job),
    concludeFromResult: (run: RunRow, result: RunResultBody) =>
      concludeFromResult(deps, SYSTEM, { run, result }),
    schedulerTick: (slot: Date) => schedulerTick(deps, SYSTEM, { slot }),
    sweepStaleRuns: () => sweepStaleRuns(deps, SYSTEM),
    budgetAlerts: () => budgetAlerts(deps, SYSTEM),
    removeOldRunLogs: () => removeOldRunLogs(deps, SYSTEM),
  };
}

export type Workforce = ReturnType<typeof createWorkforceService>;
