-- The windows of an AI employee's figures kept as rollups (issue 45, docs/scale.md), each changed
-- in the statement that writes the rows it counts (store/artifacts.ts, store/runs.ts). The counts
-- have no check: a change is written as an upsert of its delta, and PostgreSQL checks the
-- proposed row before it finds the conflict.

-- Decisions per ISO week (Monday, UTC) of the artifact's creation: approved by an admin,
-- rejected, auto-rejected, auto-approved.
create table if not exists ai_employee_weeks (
  employee_id bigint not null references ai_employees (id) on delete cascade,
  week_start date not null,
  approved integer not null default 0,
  rejected integer not null default 0,
  auto_rejected integer not null default 0,
  auto_approved integer not null default 0,
  primary key (employee_id, week_start)
);
insert into ai_employee_weeks (employee_id, week_start, approved, rejected, auto_rejected,
  auto_approved)
select employee_id, date_trunc('week', created_at at time zone 'UTC')::date,
  count(*) filter (where approval_status = 'approved' and not auto_approved)::int,
  count(*) filter (where approval_status = 'rejected')::int,
  count(*) filter (where approval_status = 'auto_rejected')::int,
  count(*) filter (where approval_status = 'approved' and auto_approved)::int
from ai_artifacts where approval_status <> 'pending'
group by 1, 2
on conflict (employee_id, week_start) do nothing;

-- Per UTC day: human rejections by review day, spend (USD) of the runs created that day.
create table if not exists ai_employee_days (
  employee_id bigint not null references ai_employees (id) on delete cascade,
  day date not null,
  rejections integer not null default 0,
  spend_usd numeric(18, 6) not null default 0,
  primary key (employee_id, day)
);
create index if not exists ai_employee_days_day on ai_employee_days (day);
insert into ai_employee_days (employee_id, day, rejections, spend_usd)
select employee_id, day, sum(rejections)::int, sum(spend_usd) from (
  select employee_id, (reviewed_at at time zone 'UTC')::date as day, 1 as rejections,
    0 as spend_usd
  from ai_artifacts where approval_status = 'rejected' and reviewed_at is not null
  union all
  select employee_id, (created_at at time zone 'UTC')::date, 0, cost_usd
  from ai_runs where cost_usd <> 0
) both_kinds
group by employee_id, day
on conflict (employee_id, day) do nothing;
