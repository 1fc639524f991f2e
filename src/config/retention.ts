/** How long rows of the tables that only grow are kept (docs/runbook.md, "Retention"). */
import { integer, variable } from "../platform/env.ts";

/** Ten years: a longer setting is a mistake (keep forever is 0). */
const MAX_DAYS = 3650;

export const RETENTION_VARIABLES = {
  FEED_RETENTION_DAYS: variable({
    defaultText: "365",
    description:
      "Days a feed item is kept, counted from when its activity happened (`occurredAt`, the order `unifiedFeed` pages in): older items are deleted every 10 minutes in bounded batches, so the feed reaches back this far. The activity itself (the goal event, the check-in, the post, the badge) is kept. 0 keeps every item.",
    schema: integer(0, MAX_DAYS).default(365),
  }),
  AI_RUN_LOG_RETENTION_DAYS: variable({
    defaultText: "90",
    description:
      "Days an AI run's trace (`runLog`, `executionLog`) is kept after the run ended: older traces are removed hourly in bounded batches; the run itself (status, trigger, tokens, cost, error, artifacts) stays, and `runLogRemovedAt` says when its trace went. 0 keeps every trace.",
    schema: integer(0, MAX_DAYS).default(90),
  }),
  NOTIFICATIONS_READ_RETENTION_DAYS: variable({
    defaultText: "90",
    description:
      "Days a read (acknowledged) notification is kept, counted from when it was sent: older read ones are deleted hourly in bounded batches, and the counts `notifications { totalCount }` reads move with them. Unread notifications are never pruned. 0 keeps every notification.",
    schema: integer(0, MAX_DAYS).default(90),
  }),
  JOBS_DEAD_RETENTION_DAYS: variable({
    defaultText: "180",
    description:
      "Days a dead job (one that used its last attempt) is kept for the Jobs page, counted from when it died: older ones are deleted hourly in bounded batches, as Sidekiq keeps six months. 0 keeps them at any age (`JOBS_DEAD_MAX` still applies).",
    schema: integer(0, MAX_DAYS).default(180),
  }),
  JOBS_DEAD_MAX: variable({
    defaultText: "10000",
    description:
      "The most dead jobs kept, the newest: older ones beyond it are deleted hourly in bounded batches, as Sidekiq keeps 10,000. 0 keeps any number.",
    schema: integer(0, 10_000_000).default(10_000),
  }),
} as const;
