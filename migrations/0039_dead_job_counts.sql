-- The dead set's size kept per job name (issue 45, docs/scale.md): `job_counters` rows
-- `dead:<name>` (shard 0), changed by each statement that moves jobs into or out of the dead set
-- (a last failure, a release at shutdown, a retry, a discard, a prune), so `/health`, `deadJobs`'
-- totalCount and the Jobs page read a row per kind, not the dead jobs.
insert into job_counters (name, shard, value)
select 'dead:' || name, 0, count(*) from jobs where dead_at is not null group by name
on conflict (name, shard) do update set value = excluded.value;
