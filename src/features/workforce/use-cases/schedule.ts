/**
 * Scheduled work of the workforce: the scheduler tick, the stale-run sweep, budget alerts, and
 * the chat post that carries an alert (the `ai_workforce.chat_alert` job).
 */
import {
  budgetAlertLevel,
  dueSlot,
  employeeAlertText,
  STALE_MESSAGES,
  staleCutoff,
  tickStart,
  workforceAlertText,
} from "../rules.ts";
import * as store from "../store.ts";
import { type BatchOptions, type BatchResult, pruneOlderThan } from "../../../platform/prune.ts";
import { chatUrlRefusal } from "../delivery/rules.ts";
import { postChat } from "../delivery/chat.ts";
import { startRunIn } from "./runs.ts";
import type { JobInfo } from "../../../platform/jobs/types.ts";
import { type Actor, alertOnce, type WorkforceServiceDeps } from "./shared.ts";

/** Starts a run for every active employee whose cron has a slot in the tick's window. */
export async function schedulerTick(
  deps: WorkforceServiceDeps,
  _actor: Actor,
  input: { slot: Date },
): Promise<number> {
  const sql = deps.db.sql;
  const from = tickStart(input.slot);
  let started = 0;
  for (const employee of await store.activeScheduledEmployees(sql)) {
    const due = dueSlot(employee.scheduleCron!, from, input.slot);
    if (!due) continue;
    const outcome = await sql.begin(async (tx) => {
      if (!(await store.claimScheduleSlot(tx, employee.id, due, deps.clock.now()))) return null;
      return await startRunIn(deps, tx, { employee, trigger: "schedule", scheduledFor: due });
    });
    if (outcome?.run) started++;
    else if (outcome) {
      deps.log.info("scheduled run not started", {
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
export async function sweepStaleRuns(
  deps: WorkforceServiceDeps,
  _actor: Actor,
): Promise<string[]> {
  const now = deps.clock.now();
  const failed = await store.failStaleRuns(deps.db.sql, staleCutoff(now), STALE_MESSAGES, now);
  if (failed.running.length) deps.log.warn("stale runs failed", { run_ids: failed.running });
  if (failed.queued.length) {
    deps.log.warn("runs never dispatched failed", { run_ids: failed.queued });
  }
  return [...failed.running, ...failed.queued];
}

/** Spec 6.3: alerts once per month and level for each employee and for the whole workforce. */
export async function budgetAlerts(deps: WorkforceServiceDeps, _actor: Actor): Promise<void> {
  const sql = deps.db.sql;
  const now = deps.clock.now();
  const employees = await store.listEmployees(sql);
  const spend = await store.monthSpendByIds(sql, employees.map((e) => e.id), now);
  const total = await store.workforceMonthSpend(sql, now);
  await sql.begin(async (tx) => {
    for (const e of employees) {
      const spent = spend.get(e.id) ?? 0;
      const cap = e.monthlyBudgetCents / 100;
      const level = budgetAlertLevel(spent, cap);
      if (!level) continue;
      await alertOnce(deps, tx, {
        subject: e.publicId,
        level,
        text: employeeAlertText(e, level, spent, cap),
      });
    }
    const cap = deps.config.aiMonthlyBudgetUsd;
    const level = budgetAlertLevel(total, cap);
    if (level) {
      await alertOnce(deps, tx, {
        subject: "workforce",
        level,
        text: workforceAlertText(level, total, cap),
      });
    }
  });
}

/**
 * Posts to the chat webhook when its host is the allowed one; otherwise logs and refuses. The
 * job completes itself right after the post: a post cannot be taken back, and once the handler
 * has returned its job cannot run again.
 */
export async function sendChat(
  deps: Pick<WorkforceServiceDeps, "config" | "log" | "fetch">,
  _actor: Actor,
  alert: { subject: string; level: string; text: string },
  job: Pick<JobInfo, "complete">,
): Promise<void> {
  const { config, log } = deps;
  const { text, subject, level } = alert;
  const url = config.chatWebhookUrl;
  if (!url) {
    log.warn("chat alert not sent: CHAT_WEBHOOK_URL is not set", { subject, level, text });
    return;
  }
  const refusal = chatUrlRefusal(url, config.chatWebhookAllowedHost);
  if (refusal) {
    log.warn("chat alert refused: URL not allowed", {
      reason: refusal,
      allowed_host: config.chatWebhookAllowedHost,
      subject,
      level,
      text,
    });
    return;
  }
  await postChat(deps.fetch, url, text, config.httpTimeoutMs);
  await job.complete();
  log.info("chat alert sent", { subject, level });
}

/**
 * Traces removed a statement. A trace is kilobytes of TOAST to free: 200 keep a statement near the
 * time of 1,000 feed items, which matters on the embedded database's one session.
 */
export const RUN_LOG_BATCH_SIZE = 200;

/**
 * Removes the traces of runs that ended more than `AI_RUN_LOG_RETENTION_DAYS` ago, in bounded
 * batches (the schedule's use case); logs how many when any. `options` bound the batches.
 */
export async function removeOldRunLogs(
  deps: Pick<WorkforceServiceDeps, "config" | "db" | "clock" | "log">,
  _actor: Actor,
  options: BatchOptions = {},
): Promise<BatchResult> {
  const now = deps.clock.now();
  const { before, ...result } = await pruneOlderThan(
    now,
    deps.config.retention.aiRunLogDays,
    (before, limit) => store.removeRunLogs(deps.db.sql, before, now, limit),
    { batchSize: RUN_LOG_BATCH_SIZE, ...options },
  );
  if (result.rows) {
    deps.log.info("run logs removed", { removed: result.rows, before, more: result.more });
  }
  return result;
}
