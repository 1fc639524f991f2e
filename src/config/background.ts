/** Backups and the job worker. */
import { z } from "zod";
import { integer, variable } from "../platform/env.ts";

export const BACKGROUND_VARIABLES = {
  BACKUP_DIR: variable({
    defaultText: "`DATA_DIR/backups`",
    description:
      'Folder of the backups the service makes (scheduled, the console\'s "Back up now", `main.ts backup`): gzipped JSON lines that `main.ts restore` loads into an embedded or a PostgreSQL database (docs/deployment.md, "Backups").',
    schema: z.string().min(1).optional(),
  }),
  BACKUP_INTERVAL_HOURS: variable({
    defaultText: "24 with the embedded database, 0 with `DATABASE_URL`",
    description:
      "Hours between scheduled backups; 0 turns them off (with PostgreSQL its own backups usually serve, docs/runbook.md).",
    schema: integer(0, 24 * 365).optional(),
  }),
  BACKUP_KEEP: variable({
    defaultText: "7",
    description:
      "How many backups `BACKUP_DIR` keeps: after each new one, the oldest beyond this count are removed.",
    schema: integer(1, 10_000).default(7),
  }),
  SIDEKIQ_DEAD_THRESHOLD: variable({
    defaultText: "25",
    description: "Dead-job count above which the job-queue health check is `degraded`.",
    schema: integer(0, 1_000_000).default(25),
  }),
  JOB_CONCURRENCY: variable({
    defaultText: "4",
    description: "Jobs one instance runs at once (0 disables the worker on this instance).",
    schema: integer(0, 256).default(4),
  }),
  JOB_LOCK_TIMEOUT_MS: variable({
    defaultText: "60000",
    description:
      "A running job's lock is refreshed every quarter of this; a job whose lock is older (its instance crashed or hung) is run again by another instance. Instances' clocks must agree to well within it.",
    schema: integer(1_000, 3_600_000).default(60_000),
  }),
  JOB_LOCAL_QUEUE_SIZE: variable({
    defaultText: "4 × JOB_CONCURRENCY",
    description:
      "Jobs a worker claims ahead of its free slots, in the same statement, and keeps locked in a local queue so a freed slot starts the next job without a database round trip; refilled once fewer wait than JOB_CONCURRENCY, handed back after waiting half of JOB_LOCK_TIMEOUT_MS and at shutdown. 0 claims only for free slots.",
    schema: integer(0, 10_000).optional(),
  }),
  FAN_OUT_BATCH_SIZE: variable({
    defaultText: "1000",
    description:
      'Recipients one batch of a fan-out handles: challenge start and end announcements and the streak reminder write their notifications this many at a time, each batch one transaction and one job that queues the next (docs/jobs.md, "Fan-out"). At most 2,000, which keeps every job payload of a batch well under 64 KB.',
    schema: integer(1, 2_000).default(1_000),
  }),
} as const;
