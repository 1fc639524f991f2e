-- Retention of what only grows (issue 45, docs/runbook.md "Retention"): each prune finds its next
-- batch of due rows in an index, oldest first, instead of scanning the table.

-- Feed items older than FEED_RETENTION_DAYS by when their activity happened.
create index if not exists feed_items_occurred_idx on feed_items (occurred_at);

-- AI run traces older than AI_RUN_LOG_RETENTION_DAYS after the run ended: only runs that still
-- have a trace are in the index, so it stays as small as the window kept.
create index if not exists ai_runs_log_kept_idx on ai_runs (finished_at)
  where run_log is not null;
-- When retention removed the run's trace; null while it is kept (or there never was one).
alter table ai_runs add column if not exists run_log_removed_at timestamptz;
