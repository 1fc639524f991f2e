-- Read notifications pruned by age (NOTIFICATIONS_READ_RETENTION_DAYS, docs/runbook.md
-- "Retention"): the prune's batches walk the read ones oldest first.
create index if not exists notifications_read_created_idx on notifications (created_at)
  where acknowledged_at is not null;
