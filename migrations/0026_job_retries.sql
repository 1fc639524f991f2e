-- The retry set (issue 42, docs/jobs.md "Retries and the dead set"): a job gets its public id at
-- its first failure, not only when it dies, so the admin API can name a job waiting for a retry;
-- the id stays when the job dies or is retried. Jobs waiting for a retry when this runs get one
-- now: URL-safe base64 of a random UUID's 16 bytes.
update jobs
set public_id = translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/=', '-_')
where public_id is null and dead_at is null and last_error is not null;

-- The retry set in the order the console lists it: next attempt first.
create index if not exists jobs_retrying_idx on jobs (run_at, public_id)
  where dead_at is null and public_id is not null;
