-- The W3C `traceparent` of the request or job that enqueued a job, so the job's span continues
-- that trace (docs/observability.md). Null when tracing was off.
alter table jobs add column if not exists trace_context text;
