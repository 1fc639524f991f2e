-- Background jobs (issue 3): one table for ready, running, scheduled and dead jobs.
create table if not exists jobs (
  id bigserial primary key,
  queue text not null default 'default',
  name text not null,
  payload jsonb not null default '{}'::jsonb,
  run_at timestamptz not null,
  attempts integer not null default 0,
  max_attempts integer not null default 25,
  last_error text,
  locked_at timestamptz,
  locked_by text,
  -- Idempotency key: a second enqueue with the same key is a no-op while this row exists.
  key text unique,
  -- Set when the job ran out of attempts; dead jobs are never claimed.
  dead_at timestamptz,
  -- Given only to dead jobs, which the admin API exposes.
  public_id text unique,
  created_at timestamptz not null
);

create index if not exists jobs_ready_idx on jobs (run_at, id) where dead_at is null;
create index if not exists jobs_dead_idx on jobs (dead_at desc) where dead_at is not null;

-- Cumulative counters (`processed`, `failed`), sharded per worker slot so concurrent workers
-- do not queue on one row; readers sum the shards.
create table if not exists job_counters (
  name text not null,
  shard integer not null,
  value bigint not null default 0,
  primary key (name, shard)
);

-- One row per fired schedule slot: what makes a tick fire once across instances and retries.
create table if not exists job_schedule_slots (
  name text not null,
  slot timestamptz not null,
  fired_at timestamptz not null,
  primary key (name, slot)
);
