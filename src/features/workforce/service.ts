/**
 * The AI workforce's behaviour on top of its store: triggering and dispatching runs, concluding
 * them from the runner's result, review (approve, reject, auto-approval), the scheduler tick, the
 * stale-run sweep and budget alerts. Its jobs, schedules and subscriber are declared in `mod.ts`.
 */
import type { Config } from "../../config.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database, Queryable } from "../../platform/db.ts";
import type { Logger } from "../../platform/log.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import type { RunnerClient } from "./runner-client.ts";
import type { EventPublisher } from "../events.ts";
import type { JobQueue } from "../feature.ts";
import {
  chatAlertJob,
  DISPATCH_ATTEMPTS,
  dispatchJob,
  PATCH_CHECK_ATTEMPTS,
  patchCheckJob,
} from "./jobs.ts";
import { protectedPatchError } from "./delivery/rules.ts";
import {
  type AlertLevel,
  autoApproves,
  budgetAlertLevel,
  budgetExceeded,
  dueSlot,
  initialApprovalStatus,
  kindAllowed,
  levelsSettledBy,
  measureEdit,
  monthOf,
  SCHEDULER_INTERVAL_MS,
  STALE_RUN_MS,
} from "./rules.ts";
import { type RunResultBody, SKIPPED_LOG_TYPE } from "../../platform/contract/mod.ts";
import { buildRunRequest } from "./protocol.ts";
import {
  activeScheduledEmployees,
  appendRecentRejection,
  approveArtifact,
  type ArtifactRow,
  claimAlert,
  claimScheduleSlot,
  concludeRun,
  type EmployeeRow,
  employeesByIds,
  failAsCancelled,
  failRun,
  failStaleRuns,
  insertArtifact,
  insertQueuedRun,
  lastSucceededAt,
  listEmployees,
  lockEmployeeForRun,
  markCancelRequested,
  markRunStarted,
  memoriesByEmployeeIds,
  monthSpendByIds,
  recordLateResult,
  rejectArtifact,
  runByPublicId,
  type RunRow,
  upsertMemories,
  workforceMonthSpend,
} from "./store.ts";

const CANCELLED_BEFORE_DISPATCH = "cancelled: by an admin before the runner started it";
const CANCELLED_UNKNOWN_TO_RUNNER =
  "cancelled: by an admin; the agent runner no longer had the run (it restarted)";

/** A run mutation's result: the run, or null with the user errors when nothing was done. */
export interface TriggerOutcome {
  run: RunRow | null;
  errors: UserError[];
}

export interface WorkforceServiceDeps {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  fetch: typeof fetch;
  jobs: JobQueue;
  events: EventPublisher;
  /** The agent runner's HTTP API. */
  runner: RunnerClient;
}

export type Workforce = ReturnType<typeof createWorkforceService>;

/** Why a preflight skipped the run: the reason its `skipped` log entry gives; null otherwise. */
function skippedReasonOf(result: RunResultBody): string | null {
  if (result.status !== "succeeded" || result.artifact) return null;
  const entry = result.run_log.find((e) => e.type === SKIPPED_LOG_TYPE);
  const reason = typeof entry?.reason === "string" ? entry.reason.trim() : "";
  return (reason || "skipped by a skill's preflight").slice(0, 2_000);
}

export function createWorkforceService(deps: WorkforceServiceDeps) {
  const { db, jobs, clock, config } = deps;
  const sql = db.sql;
  const log = deps.log.child({ component: "workforce" });

  // ------------------------------------------------------------------------------------------
  // Alerts

  /** Claims the alert once per (subject, month, level) and enqueues the chat post. */
  async function alertOnce(
    tx: Queryable,
    subject: string,
    level: AlertLevel | "trigger_blocked",
    text: string,
  ): Promise<boolean> {
    const now = clock.now();
    const month = monthOf(now).label;
    const first = await claimAlert(tx, subject, month, level, now);
    if (level !== "trigger_blocked") {
      for (const lower of levelsSettledBy(level)) {
        if (lower !== level) await claimAlert(tx, subject, month, lower, now);
      }
    }
    if (first) await jobs.enqueue(tx, chatAlertJob, { subject, level, text });
    return first;
  }

  /** Posts to the chat webhook when its host is the allowed one; otherwise logs and refuses. */
  async function sendChat(alert: { subject: string; level: string; text: string }): Promise<void> {
    const { text, subject, level } = alert;
    const url = config.chatWebhookUrl;
    if (!url) {
      log.warn("chat alert not sent: CHAT_WEBHOOK_URL is not set", { subject, level, text });
      return;
    }
    const host = new URL(url).hostname.toLowerCase();
    if (host !== config.chatWebhookAllowedHost.toLowerCase()) {
      log.warn("chat alert refused: host is not CHAT_WEBHOOK_ALLOWED_HOST", {
        host,
        allowed_host: config.chatWebhookAllowedHost,
        subject,
        level,
        text,
      });
      return;
    }
    const res = await deps.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(config.httpTimeoutMs),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`chat webhook answered ${res.status}`);
    log.info("chat alert sent", { subject, level });
  }

  // ------------------------------------------------------------------------------------------
  // Runs

  /** Spec 3.1: creates a queued run (and its dispatch job) inside `tx`, or says why not. */
  async function startRunIn(
    tx: Queryable,
    employee: EmployeeRow,
    trigger: "schedule" | "manual",
    scheduledFor: Date | null = null,
  ): Promise<TriggerOutcome> {
    const current = await lockEmployeeForRun(tx, employee.id);
    if (!current || current.archivedAt) {
      return {
        run: null,
        errors: [userError("archived", "the employee is archived", "employeeId")],
      };
    }
    if (!current.active) {
      return {
        run: null,
        errors: [userError("paused", "the employee is paused; resume it to run", "employeeId")],
      };
    }
    const now = clock.now();
    const spend = (await monthSpendByIds(tx, [employee.id], now)).get(employee.id) ?? 0;
    if (budgetExceeded(spend, employee.monthlyBudgetCents)) {
      const cap = (employee.monthlyBudgetCents / 100).toFixed(2);
      await alertOnce(
        tx,
        employee.publicId,
        "trigger_blocked",
        `:no_entry: AI employee ${employee.name} (${employee.role}) was not run: monthly budget of ${cap} USD reached (spent ${
          spend.toFixed(2)
        } USD)`,
      );
      return {
        run: null,
        errors: [
          userError(
            "monthly_budget_exceeded",
            `${spend.toFixed(2)} USD spent this month of a ${cap} USD cap`,
          ),
        ],
      };
    }
    const run = await insertQueuedRun(tx, employee.id, trigger, now, scheduledFor);
    if (!run) {
      return {
        run: null,
        errors: [userError("already_running", "a run of this employee is in flight")],
      };
    }
    await jobs.enqueue(tx, dispatchJob, { runId: run.publicId }, {
      maxAttempts: DISPATCH_ATTEMPTS,
      key: `dispatch:${run.publicId}`,
    });
    log.info("run queued", { run_id: run.publicId, employee_id: employee.publicId, trigger });
    return { run, errors: [] };
  }

  function triggerRun(employee: EmployeeRow, trigger: "schedule" | "manual") {
    return sql.begin((tx) => startRunIn(tx, employee, trigger));
  }

  async function dispatchRun(runId: string, attempt: number, maxAttempts: number) {
    const run = await runByPublicId(sql, runId);
    if (!run || run.status !== "queued") return;
    const [employee] = await employeesByIds(sql, [run.employeeId]);
    const memories = await memoriesByEmployeeIds(sql, [employee.id]);
    const giveUp = (message: string) => failRun(sql, run.id, message, clock.now());
    if (!config.runnerUrl) {
      return void await giveUp("agent runner unreachable: RUNNER_URL is not set");
    }
    if (!config.workforceWebhookSecret) {
      return void await giveUp("agent runner unreachable: WORKFORCE_WEBHOOK_SECRET is not set");
    }
    let problem: string;
    try {
      const now = clock.now();
      const res = await deps.runner.startRun(buildRunRequest(run, employee, memories, {
        now,
        lastSucceededAt: await lastSucceededAt(sql, employee.id),
        monthSpendUsd: (await monthSpendByIds(sql, [employee.id], now)).get(employee.id) ?? 0,
        deliveryRepo: deps.config.githubRepo,
      }));
      if (res.status === 202) {
        if (await markRunStarted(sql, run.id, clock.now())) {
          log.info("run dispatched", { run_id: runId, attempt });
        } else if ((await runByPublicId(sql, runId))?.cancelRequestedAt) {
          await cancelOnRunner(runId); // cancelled while the runner was being called
        }
        return;
      }
      problem = `the runner answered ${res.status}`;
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    if (attempt >= maxAttempts) {
      await giveUp(`agent runner unreachable after ${attempt} attempts: ${problem}`);
      log.error("run dispatch gave up", { run_id: runId, attempts: attempt, problem });
      return;
    }
    throw new Error(`dispatch of run ${runId} failed (attempt ${attempt}): ${problem}`);
  }

  /** Passes a cancel on to the runner once the run has ended here; a failure is only logged. */
  async function cancelOnRunner(runId: string): Promise<void> {
    try {
      const res = await deps.runner.cancelRun(runId);
      log.info("run cancelled on the runner after it ended here", {
        run_id: runId,
        runner_status: res.status,
      });
    } catch (err) {
      log.warn("run ended here but the runner could not be told", {
        run_id: runId,
        problem: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Cancels a run (spec 4.8: cooperative). A queued run fails at once as cancelled. A running
   * run is cancelled on the runner: accepted (202) the run stays running with `cancelRequestedAt`
   * until the runner's `cancelled` result concludes it, cost included; unknown to the runner (404,
   * it restarted) the run fails as cancelled here; already finished there (409), its result is on
   * the way and the cancel is refused.
   */
  async function cancelRun(run: RunRow): Promise<TriggerOutcome> {
    const now = clock.now();
    if (run.status === "queued") {
      const cancelled = await failAsCancelled(
        sql,
        run.id,
        "queued",
        CANCELLED_BEFORE_DISPATCH,
        now,
      );
      if (cancelled) {
        log.info("run cancelled before dispatch", { run_id: run.publicId });
        return { run: cancelled, errors: [] };
      }
      run = (await runByPublicId(sql, run.publicId))!;
    }
    if (run.status !== "running") {
      return {
        run: null,
        errors: [userError("not_cancellable", `the run has already ${run.status}`, "runId")],
      };
    }
    let status: number;
    try {
      status = (await deps.runner.cancelRun(run.publicId)).status;
    } catch (err) {
      const problem = err instanceof Error ? err.message : String(err);
      log.warn("run cancel not delivered", { run_id: run.publicId, problem });
      return {
        run: null,
        errors: [
          userError(
            "runner_unreachable",
            `the agent runner could not be reached (${problem}); the run continues`,
          ),
        ],
      };
    }
    const current = async (changed: RunRow | null) =>
      changed ?? (await runByPublicId(sql, run.publicId))!;
    if (status === 202) {
      log.info("run cancel requested", { run_id: run.publicId });
      return { run: await current(await markCancelRequested(sql, run.id, now)), errors: [] };
    }
    if (status === 404) {
      const lost = await failAsCancelled(sql, run.id, "running", CANCELLED_UNKNOWN_TO_RUNNER, now);
      log.warn("run cancelled: the runner no longer has it", { run_id: run.publicId });
      return { run: await current(lost), errors: [] };
    }
    if (status === 409) {
      return {
        run: null,
        errors: [
          userError(
            "already_finished",
            "the runner has finished this run; its result is on the way",
            "runId",
          ),
        ],
      };
    }
    return {
      run: null,
      errors: [
        userError(
          "runner_unreachable",
          `the agent runner answered ${status}; the run continues`,
        ),
      ],
    };
  }

  /**
   * Concludes a run from the runner's result: `concluded`; `late` when the run had already ended
   * without a result (the stale sweep, a cancel), whose usage is then recorded so monthly spend
   * counts it, the run staying failed and any artifact dropped; `duplicate` for a repeat.
   */
  async function concludeFromResult(
    run: RunRow,
    result: RunResultBody,
  ): Promise<"concluded" | "late" | "duplicate"> {
    return await sql.begin(async (tx) => {
      const now = clock.now();
      const figures = {
        inputTokens: result.usage.input_tokens,
        outputTokens: result.usage.output_tokens,
        numTurns: result.usage.num_turns,
        costUsd: result.usage.cost_usd,
        runLog: result.run_log,
      };
      const concluded = await concludeRun(tx, run.id, {
        ...figures,
        status: result.status,
        skippedReason: skippedReasonOf(result),
        errorMessage: result.status === "failed"
          ? (result.error
            ? `${result.error.subtype}: ${result.error.message}`
            : "the runner reported a failure")
          : null,
      }, now);
      if (!concluded) {
        if (!(await recordLateResult(tx, run.id, figures, now))) return "duplicate";
        log.warn("late run result: usage recorded, the run stays failed", {
          run_id: run.publicId,
          result_status: result.status,
          cost_usd: result.usage.cost_usd,
          artifact_dropped: result.artifact !== null,
        });
        return "late";
      }
      if (result.status !== "succeeded") return "concluded";
      const [employee] = await employeesByIds(tx, [run.employeeId]);
      // The run's facts, and the service-owned cursor of a tool, advance only with a success.
      await upsertMemories(tx, employee.id, result.memory, now);
      if (!result.artifact) return "concluded"; // a preflight skipped the run
      // The runner refuses a kind outside the list; a result that carries one anyway is refused
      // here too, so no autonomy level can ever approve it.
      const kindRefused = kindAllowed(employee.allowedKinds, result.artifact.kind)
        ? null
        : `kind ${result.artifact.kind} is not one this employee may produce (${
          employee.allowedKinds.join(", ")
        })`;
      const metadata = result.artifact.metadata;
      const unsupportedFigures = metadata?.unsupported_figures ?? null;
      const isPatch = result.artifact.kind === "code_patch";
      const artifact = await insertArtifact(tx, {
        runId: run.id,
        employeeId: employee.id,
        kind: result.artifact.kind,
        title: result.artifact.title,
        payload: result.artifact.payload,
        approvalStatus: kindRefused ? "auto_rejected" : initialApprovalStatus(result.post_filter),
        postFilterReason: result.post_filter?.passed === false ? result.post_filter.reason : null,
        rejectionReason: kindRefused,
        unsupportedFigures,
        baseSha: isPatch ? metadata?.base_sha ?? null : null,
        patchFiles: isPatch ? metadata?.files ?? null : null,
      }, now);
      if (kindRefused) {
        log.warn("artifact refused: kind not allowed", {
          run_id: run.publicId,
          kind: result.artifact.kind,
          allowed_kinds: employee.allowedKinds,
        });
      }
      if (artifact?.approvalStatus === "pending") {
        // An archived employee's last artifact waits for a person, whatever its autonomy, and so
        // does a patch touching a protected path (a person rejects it or edits that change out).
        if (
          !employee.archivedAt &&
          autoApproves(employee.autonomyLevel, artifact.kind, unsupportedFigures ?? []) &&
          !protectedPatchError(artifact.kind, artifact.payload, config.protectedPaths)
        ) {
          await approveIn(tx, artifact, employee, null, null);
        } else {
          if (artifact.kind === "code_patch") await enqueuePatchCheck(tx, artifact, "stored");
          // Streamed to `pendingArtifactAdded` after commit (never for a rolled-back result).
          await deps.events.publish(tx, "ai_workforce.artifact_pending", {
            artifactId: artifact.publicId,
            kind: artifact.kind,
            employeeId: employee.publicId,
          });
        }
      }
      return "concluded";
    });
  }

  // ------------------------------------------------------------------------------------------
  // Review

  /** Queues the patch check of a code patch's payload as stored, or as an approval edited it. */
  async function enqueuePatchCheck(
    tx: Queryable,
    artifact: ArtifactRow,
    payload: "stored" | "edited",
  ): Promise<void> {
    await jobs.enqueue(tx, patchCheckJob, { artifactId: artifact.publicId }, {
      maxAttempts: PATCH_CHECK_ATTEMPTS,
      key: `check-patch:${artifact.publicId}:${payload}`,
    });
  }

  /** The one approval path (admin or system reviewer): update, then publish in the same tx. */
  async function approveIn(
    tx: Queryable,
    artifact: ArtifactRow,
    employee: EmployeeRow,
    reviewerId: string | null,
    editedPayload: string | null,
  ): Promise<ArtifactRow | null> {
    const edited = editedPayload === null
      ? null
      : { payload: editedPayload, ...measureEdit(artifact.payload, editedPayload) };
    const approved = await approveArtifact(tx, artifact.id, { reviewerId, edited }, clock.now());
    if (!approved) return null;
    if (edited && approved.kind === "code_patch") {
      await enqueuePatchCheck(tx, approved, "edited");
    }
    await deps.events.publish(tx, "ai_workforce.artifact_approved", {
      artifactId: approved.publicId,
      kind: approved.kind,
      employeeId: employee.publicId,
    });
    log.info("artifact approved", {
      artifact_id: approved.publicId,
      reviewer: reviewerId === null ? "system" : "admin",
      heavy_edit: edited?.heavy ?? false,
    });
    return approved;
  }

  function approve(artifact: ArtifactRow, reviewerId: string, editedPayload: string | null) {
    return sql.begin(async (tx) => {
      const [employee] = await employeesByIds(tx, [artifact.employeeId]);
      return await approveIn(tx, artifact, employee, reviewerId, editedPayload);
    });
  }

  function reject(artifact: ArtifactRow, reviewerId: string, reason: string) {
    return sql.begin(async (tx) => {
      const now = clock.now();
      const rejected = await rejectArtifact(tx, artifact.id, reviewerId, reason, now);
      if (rejected) await appendRecentRejection(tx, artifact.employeeId, reason, now);
      return rejected;
    });
  }

  // ------------------------------------------------------------------------------------------
  // Scheduled work

  /** Starts a run for every active employee whose cron has a slot in the tick's window. */
  async function schedulerTick(slot: Date): Promise<number> {
    const from = new Date(slot.getTime() - SCHEDULER_INTERVAL_MS);
    let started = 0;
    for (const employee of await activeScheduledEmployees(sql)) {
      const due = dueSlot(employee.scheduleCron!, from, slot);
      if (!due) continue;
      const outcome = await sql.begin(async (tx) => {
        if (!(await claimScheduleSlot(tx, employee.id, due, clock.now()))) return null;
        return await startRunIn(tx, employee, "schedule", due);
      });
      if (outcome?.run) started++;
      else if (outcome) {
        log.info("scheduled run not started", {
          employee_id: employee.publicId,
          slot: due.toISOString(),
          errors: outcome.errors.map((e) => `${e.code}: ${e.message}`),
        });
      }
    }
    return started;
  }

  /**
   * Fails runs running for more than 15 minutes without a result (spec 3.1), and runs queued for
   * more than 15 minutes (their dispatch never happened, so the employee would answer
   * `already_running` for ever).
   */
  async function sweepStaleRuns(): Promise<string[]> {
    const now = clock.now();
    const failed = await failStaleRuns(sql, new Date(now.getTime() - STALE_RUN_MS), {
      running: "stale: no result within 15 minutes of starting",
      queued: "stale: not dispatched within 15 minutes of being queued",
    }, now);
    if (failed.running.length) log.warn("stale runs failed", { run_ids: failed.running });
    if (failed.queued.length) {
      log.warn("runs never dispatched failed", { run_ids: failed.queued });
    }
    return [...failed.running, ...failed.queued];
  }

  async function budgetAlerts(): Promise<void> {
    const now = clock.now();
    const employees = await listEmployees(sql);
    const spend = await monthSpendByIds(sql, employees.map((e) => e.id), now);
    const total = await workforceMonthSpend(sql, now);
    await sql.begin(async (tx) => {
      for (const e of employees) {
        const spent = spend.get(e.id) ?? 0;
        const cap = e.monthlyBudgetCents / 100;
        const level = budgetAlertLevel(spent, cap);
        if (!level) continue;
        await alertOnce(
          tx,
          e.publicId,
          level,
          `${
            level === "critical" ? ":rotating_light:" : ":warning:"
          } AI employee ${e.name} (${e.role}) has spent ${spent.toFixed(2)} of ${
            cap.toFixed(2)
          } USD this month (${Math.floor((spent / cap) * 100)}%)`,
        );
      }
      const cap = config.aiMonthlyBudgetUsd;
      const level = budgetAlertLevel(total, cap);
      if (level) {
        await alertOnce(
          tx,
          "workforce",
          level,
          `${level === "critical" ? ":rotating_light:" : ":warning:"} The AI workforce has spent ${
            total.toFixed(2)
          } of ${cap.toFixed(2)} USD this month (${Math.floor((total / cap) * 100)}%)`,
        );
      }
    });
  }

  return {
    triggerRun,
    dispatchRun,
    cancelRun,
    sendChat,
    concludeFromResult,
    approve,
    reject,
    schedulerTick,
    sweepStaleRuns,
    budgetAlerts,
  };
}
