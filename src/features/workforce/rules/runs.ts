/** Runs: status transitions, the budget a run gets, schedule slots, and the texts runs end with. */
import { Cron } from "croner";
import { cronZone } from "../../../platform/cron.ts";
import { type RunResultBody, SKIPPED_LOG_TYPE } from "../../../platform/contract/mod.ts";
import type { RunStatus } from "./levels.ts";

const UTC = cronZone("UTC");

export const STALE_RUN_MS = 15 * 60_000;
export const SCHEDULER_INTERVAL_MS = 5 * 60_000;
/** Per-run limits sent to the runner (DESIGN 3.3; spec 8: 1.0 USD per run). */
export const RUN_BUDGET_USD = 1.0;
export const RUN_MAX_TURNS = 20;
/** The least budget a dispatched run gets (a run is only queued while the cap is not reached). */
const MIN_RUN_BUDGET_USD = 0.01;
/** The longest `skippedReason` stored. */
const SKIPPED_REASON_MAX = 2_000;
/** How many slots of one cron a tick looks at, at most. */
const MAX_SLOTS_PER_TICK = 400;

/**
 * DESIGN 3.3: a run's budget is the smaller of the per-run cap and what is left of the employee's
 * monthly cap (`monthlyBudgetCents`, of which `spentUsd` is spent this month).
 */
export function runBudgetUsd(monthlyBudgetCents: number, spentUsd: number): number {
  const left = monthlyBudgetCents / 100 - spentUsd;
  return Math.max(MIN_RUN_BUDGET_USD, Math.min(RUN_BUDGET_USD, Math.floor(left * 1e6) / 1e6));
}

const RUN_TRANSITIONS: Record<RunStatus, RunStatus[]> = {
  // A fast runner can report before the dispatch job has recorded `running`: the result wins.
  queued: ["running", "succeeded", "failed"],
  running: ["succeeded", "failed"],
  succeeded: [],
  failed: [],
};

export function canTransitionRun(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/** The statuses a run may conclude from (the guard of the result and sweep updates). */
export const CONCLUDABLE: RunStatus[] = ["queued", "running"];

export const isConcluded = (status: RunStatus) => status === "succeeded" || status === "failed";

/** The latest slot of `cron` in `(from, to]` (UTC), or null when none falls in it. */
export function dueSlot(cron: string, from: Date, to: Date): Date | null {
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, ...UTC });
  } catch {
    return null;
  }
  try {
    let latest: Date | null = null;
    let cursor = from;
    for (let i = 0; i < MAX_SLOTS_PER_TICK; i++) {
      const next = job.nextRun(cursor);
      if (!next || next.getTime() > to.getTime()) break;
      latest = next;
      cursor = next;
    }
    return latest;
  } finally {
    job.stop();
  }
}

/** Where the scheduler tick ending at `slot` starts looking for due slots. */
export const tickStart = (slot: Date) => new Date(slot.getTime() - SCHEDULER_INTERVAL_MS);

/** The most slots `nextRuns` answers. */
export const NEXT_RUNS_MAX = 10;

/**
 * The next `count` slots of `cron` after `now` that scheduler ticks start runs for (UTC). A tick
 * starts the latest slot of its window ({@link dueSlot}), so a cron firing more often than the
 * tick gets one slot a tick. Empty for a pattern croner refuses.
 */
export function nextScheduledSlots(cron: string, now: Date, count: number): Date[] {
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, ...UTC });
  } catch {
    return [];
  }
  try {
    const slots: Date[] = [];
    let cursor = now;
    while (slots.length < count) {
      const next = job.nextRun(cursor);
      if (!next) break;
      // The tick whose window (end - interval, end] holds the slot.
      const tick = new Date(
        Math.ceil(next.getTime() / SCHEDULER_INTERVAL_MS) * SCHEDULER_INTERVAL_MS,
      );
      slots.push(dueSlot(cron, tickStart(tick), tick) ?? next);
      cursor = tick;
    }
    return slots;
  } finally {
    job.stop();
  }
}

/** Runs started (or, queued, created) before this are stale at `now`. */
export const staleCutoff = (now: Date) => new Date(now.getTime() - STALE_RUN_MS);

/** Why a preflight skipped the run: the reason its `skipped` log entry gives; null otherwise. */
export function skippedReasonOf(result: RunResultBody): string | null {
  if (result.status !== "succeeded" || result.artifact) return null;
  const entry = result.run_log.find((e) => e.type === SKIPPED_LOG_TYPE);
  const reason = typeof entry?.reason === "string" ? entry.reason.trim() : "";
  return (reason || "skipped by a skill's preflight").slice(0, SKIPPED_REASON_MAX);
}

/** The error message a result's failure is stored with; null for a success. */
export function resultErrorMessage(result: RunResultBody): string | null {
  if (result.status !== "failed") return null;
  return result.error
    ? `${result.error.subtype}: ${result.error.message}`
    : "the runner reported a failure";
}

/** The error of a queued run failed because its employee was archived. */
export const ARCHIVED_RUN_MESSAGE = "archived: the employee was archived before the run started";
export const CANCELLED_BEFORE_DISPATCH = "cancelled: by an admin before the runner started it";
export const CANCELLED_UNKNOWN_TO_RUNNER =
  "cancelled: by an admin; the agent runner no longer had the run (it restarted)";
export const STALE_MESSAGES = {
  running: "stale: no result within 15 minutes of starting",
  queued: "stale: not dispatched within 15 minutes of being queued",
};
export const RUNNER_URL_UNSET = "agent runner unreachable: RUNNER_URL is not set";
export const WEBHOOK_SECRET_UNSET = "agent runner unreachable: WORKFORCE_WEBHOOK_SECRET is not set";
export const dispatchGaveUp = (attempts: number, problem: string) =>
  `agent runner unreachable after ${attempts} attempts: ${problem}`;

/** A log entry's `at` as an instant; null when it is missing or not a date-time. */
function instantOf(at: unknown): Date | null {
  if (typeof at !== "string") return null;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A run's log as `executionLog` entries. */
export function logEntries(log: unknown[] | null) {
  return (log ?? []).map((entry) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    return {
      at: instantOf(e.at),
      type: typeof e.type === "string" ? e.type : "unknown",
      data: entry ?? null,
    };
  });
}
