/**
 * The recurring tasks the spec names (spec 3.1, 6.3, 8), as schedule names and cron expressions
 * (UTC). Features register their task under these names with `jobs.schedule(name, cron, task)`.
 */
export const CADENCES = {
  /** Every 5 minutes: start due runs of AI employees. */
  aiRunScheduler: { name: "ai_workforce.run_scheduler", cron: "*/5 * * * *" },
  /** Every 15 minutes: fail runs stuck in `running` for more than 15 minutes. */
  aiStaleRunSweep: { name: "ai_workforce.stale_run_sweep", cron: "*/15 * * * *" },
  /** Hourly: budget alerts at 80% and 100% of each employee's monthly cap. */
  aiBudgetAlert: { name: "ai_workforce.budget_alert", cron: "0 * * * *" },
} as const;
