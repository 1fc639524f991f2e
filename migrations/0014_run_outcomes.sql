-- AI runs (issue 20): when the runner's result arrived, and when an admin asked for a cancel.
-- `result_received_at` is null for a run that ended without a result (the stale sweep, the
-- dispatch giving up, a cancel of a queued run): a result that arrives later still records its
-- usage and cost once, so monthly spend is never under-counted.
alter table ai_runs add column if not exists result_received_at timestamptz;
alter table ai_runs add column if not exists cancel_requested_at timestamptz;
-- Results concluded before this migration had their figures recorded then.
update ai_runs set result_received_at = finished_at
  where result_received_at is null and status = 'succeeded';
-- The queued-run sweep looks for runs never dispatched.
create index if not exists ai_runs_queued on ai_runs (created_at) where status = 'queued';
