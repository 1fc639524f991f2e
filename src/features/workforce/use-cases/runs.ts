/**
 * Use cases of runs: `triggerRun` (spec 3.1), `dispatchRun` (the `ai_workforce.dispatch_run`
 * job) and `cancelRun` (spec 4.8).
 */
import type { Queryable } from "../../../platform/db.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import { DISPATCH_ATTEMPTS, dispatchJob } from "../jobs.ts";
import { buildRunRequest } from "../protocol.ts";
import {
  ARCHIVED_MESSAGE,
  budgetExceeded,
  budgetExceededMessage,
  CANCELLED_BEFORE_DISPATCH,
  CANCELLED_UNKNOWN_TO_RUNNER,
  dispatchGaveUp,
  notFound,
  refuse,
  RUNNER_URL_UNSET,
  triggerBlockedText,
  WEBHOOK_SECRET_UNSET,
  type WorkforceError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { EmployeeRow, RunRow } from "../store.ts";
import {
  type Actor,
  alertOnce,
  findEmployee,
  findRun,
  problemOf,
  type WorkforceServiceDeps,
} from "./shared.ts";

/** A run mutation's result: the run, or null with the user errors when nothing was done. */
export interface RunPayload {
  run: RunRow | null;
  /** True when a cancel of the run had been asked for already (cancelAiRun's repeat). */
  alreadyCancelled?: boolean;
  errors: WorkforceError[];
}

const refused = (...errors: WorkforceError[]): RunPayload => ({ run: null, errors });

/** Spec 3.1: creates a queued run (and its dispatch job) inside `tx`, or says why not. */
export async function startRunIn(
  deps: WorkforceServiceDeps,
  tx: Queryable,
  input: { employee: EmployeeRow; trigger: "schedule" | "manual"; scheduledFor?: Date | null },
): Promise<RunPayload> {
  const { employee, trigger } = input;
  const current = await store.lockEmployeeForRun(tx, employee.id);
  if (!current || current.archivedAt) {
    return refused(refuse("archived", ARCHIVED_MESSAGE, "employeeId"));
  }
  if (!current.active) {
    return refused(refuse("paused", "the employee is paused; resume it to run", "employeeId"));
  }
  const now = deps.clock.now();
  const spend = (await store.monthSpendByIds(tx, [employee.id], now)).get(employee.id) ?? 0;
  if (budgetExceeded(spend, employee.monthlyBudgetCents)) {
    await alertOnce(deps, tx, {
      subject: employee.publicId,
      level: "trigger_blocked",
      text: triggerBlockedText(employee, spend, employee.monthlyBudgetCents),
    });
    return refused(
      refuse(
        "monthly_budget_exceeded",
        budgetExceededMessage(spend, employee.monthlyBudgetCents),
      ),
    );
  }
  const run = await store.insertQueuedRun(tx, employee.id, trigger, now, input.scheduledFor);
  if (!run) return refused(refuse("already_running", "a run of this employee is in flight"));
  await deps.jobs.enqueue(tx, dispatchJob, { runId: run.publicId }, {
    maxAttempts: DISPATCH_ATTEMPTS,
    key: `dispatch:${run.publicId}`,
  });
  deps.log.info("run queued", {
    run_id: run.publicId,
    employee_id: employee.publicId,
    trigger,
  });
  return { run, errors: [] };
}

/** `triggerAiRun`: a manual run of the employee of `employeeId`. */
export async function triggerRun(
  deps: WorkforceServiceDeps,
  actor: Actor,
  input: { employeeId: string } & IdempotencyInput,
): Promise<RunPayload> {
  const retry = await retrySafe(deps, "triggerAiRun", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const employee = await findEmployee(deps, input.employeeId);
  if (!employee) return refused(...notFound("AI employee", "employeeId"));
  // Not a refusable transaction: a blocked trigger's alert is committed with its refusal.
  return await retry.transaction((tx) => startRunIn(deps, tx, { employee, trigger: "manual" }));
}

/** The dispatch job: posts a queued run to the runner; gives up after its last attempt. */
export async function dispatchRun(
  deps: WorkforceServiceDeps,
  _actor: Actor,
  input: { runId: string; attempt: number; maxAttempts: number },
): Promise<void> {
  const { runId, attempt, maxAttempts } = input;
  const { config, clock, log } = deps;
  const sql = deps.db.sql;
  const run = await store.runByPublicId(sql, runId);
  if (!run || run.status !== "queued") return;
  const [employee] = await store.employeesByIds(sql, [run.employeeId]);
  const memories = await store.memoriesByEmployeeIds(sql, [employee.id]);
  const giveUp = (message: string) => store.failRun(sql, run.id, message, clock.now());
  if (!config.runnerUrl) return void await giveUp(RUNNER_URL_UNSET);
  if (!config.workforceWebhookSecret) return void await giveUp(WEBHOOK_SECRET_UNSET);
  let problem: string;
  try {
    const now = clock.now();
    const res = await deps.runner.startRun(buildRunRequest(run, employee, memories, {
      now,
      lastSucceededAt: await store.lastSucceededAt(sql, employee.id),
      monthSpendUsd: (await store.monthSpendByIds(sql, [employee.id], now)).get(employee.id) ?? 0,
      deliveryRepo: config.githubRepo,
    }));
    if (res.status === 202) {
      if (await store.markRunStarted(sql, run.id, clock.now())) {
        log.info("run dispatched", { run_id: runId, attempt });
      } else if ((await store.runByPublicId(sql, runId))?.cancelRequestedAt) {
        await cancelOnRunner(deps, runId); // cancelled while the runner was being called
      }
      return;
    }
    problem = `the runner answered ${res.status}`;
  } catch (err) {
    problem = problemOf(err);
  }
  if (attempt >= maxAttempts) {
    await giveUp(dispatchGaveUp(attempt, problem));
    log.error("run dispatch gave up", { run_id: runId, attempts: attempt, problem });
    return;
  }
  throw new Error(`dispatch of run ${runId} failed (attempt ${attempt}): ${problem}`);
}

/** Passes a cancel on to the runner once the run has ended here; a failure is only logged. */
async function cancelOnRunner(deps: WorkforceServiceDeps, runId: string): Promise<void> {
  try {
    const res = await deps.runner.cancelRun(runId);
    deps.log.info("run cancelled on the runner after it ended here", {
      run_id: runId,
      runner_status: res.status,
    });
  } catch (err) {
    deps.log.warn("run ended here but the runner could not be told", {
      run_id: runId,
      problem: problemOf(err),
    });
  }
}

/**
 * `cancelAiRun` (spec 4.8: cooperative). A queued run fails at once as cancelled. A running run
 * is cancelled on the runner: accepted (202) the run stays running with `cancelRequestedAt` until
 * the runner's `cancelled` result concludes it, cost included; unknown to the runner (404, it
 * restarted) the run fails as cancelled here; already finished there (409), its result is on the
 * way and the cancel is refused. A run whose cancel was asked for already answers with
 * `alreadyCancelled`: ended, as it is; still running, after asking the runner again. With an
 * idempotency key the key is held while the runner is asked, so a retry asks it once.
 */
export async function cancelRun(
  deps: WorkforceServiceDeps,
  actor: Actor,
  input: { runId: string } & IdempotencyInput,
): Promise<RunPayload> {
  const retry = await retrySafe(deps, "cancelAiRun", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  return await retry.held((transaction) => cancelOnce(deps, input.runId, transaction));
}

/** One cancel of the run of `runId`; what it writes after the runner answered, in `transaction`. */
async function cancelOnce(
  deps: WorkforceServiceDeps,
  runId: string,
  transaction: (records: (tx: Queryable) => Promise<RunPayload>) => Promise<RunPayload>,
): Promise<RunPayload> {
  const { log } = deps;
  let run = await findRun(deps, runId);
  if (!run) return refused(...notFound("AI run", "runId"));
  const now = deps.clock.now();
  if (run.status === "queued") {
    const queued = run;
    // The run left the queue meanwhile (not stored: a refusal); the cancel goes on as for it now.
    const leftQueue = refused(refuse("not_cancellable", "the run left the queue", "runId"));
    const cancelled = await transaction(async (tx) => {
      const row = await store.failAsCancelled(
        tx,
        queued.id,
        "queued",
        CANCELLED_BEFORE_DISPATCH,
        now,
      );
      return row ? { run: row, errors: [] } : leftQueue;
    });
    if (cancelled !== leftQueue) {
      log.info("run cancelled before dispatch", { run_id: run.publicId });
      return cancelled;
    }
    run = (await store.runByPublicId(deps.db.sql, run.publicId))!;
  }
  // Asked for before this request (or, for a run that left the queue, meanwhile by another).
  const alreadyCancelled = run.cancelRequestedAt !== null;
  if (run.status === "failed" && alreadyCancelled) return { run, alreadyCancelled, errors: [] };
  if (run.status !== "running") {
    return refused(refuse("not_cancellable", `the run has already ${run.status}`, "runId"));
  }
  const { id, publicId } = run;
  let status: number;
  try {
    status = (await deps.runner.cancelRun(publicId)).status;
  } catch (err) {
    const problem = problemOf(err);
    log.warn("run cancel not delivered", { run_id: publicId, problem });
    return refused(
      refuse(
        "runner_unreachable",
        `the agent runner could not be reached (${problem}); the run continues`,
      ),
    );
  }
  const current = async (tx: Queryable, changed: RunRow | null): Promise<RunPayload> => ({
    run: changed ?? (await store.runByPublicId(tx, publicId))!,
    alreadyCancelled,
    errors: [],
  });
  if (status === 202) {
    log.info("run cancel requested", { run_id: publicId });
    return await transaction(async (tx) =>
      await current(tx, await store.markCancelRequested(tx, id, now))
    );
  }
  if (status === 404) {
    log.warn("run cancelled: the runner no longer has it", { run_id: publicId });
    return await transaction(async (tx) =>
      await current(
        tx,
        await store.failAsCancelled(tx, id, "running", CANCELLED_UNKNOWN_TO_RUNNER, now),
      )
    );
  }
  if (status === 409) {
    return refused(
      refuse(
        "already_finished",
        "the runner has finished this run; its result is on the way",
        "runId",
      ),
    );
  }
  return refused(
    refuse("runner_unreachable", `the agent runner answered ${status}; the run continues`),
  );
}
