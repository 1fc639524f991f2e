-- More counts kept instead of recomputed (issue 45, docs/scale.md), each changed in the statement
-- that writes the rows it counts.

-- An AI employee's decisions behind its promotion figures: approved by an admin, rejected,
-- auto-rejected (store/artifacts.ts changes them with each review transition).
alter table ai_employees
  add column if not exists approved_count integer not null default 0 check (approved_count >= 0),
  add column if not exists rejected_count integer not null default 0 check (rejected_count >= 0),
  add column if not exists auto_rejected_count integer not null default 0
    check (auto_rejected_count >= 0);
update ai_employees e set
  approved_count = a.approved, rejected_count = a.rejected, auto_rejected_count = a.auto_rejected
from (
  select employee_id,
    count(*) filter (where approval_status = 'approved' and not auto_approved)::int as approved,
    count(*) filter (where approval_status = 'rejected')::int as rejected,
    count(*) filter (where approval_status = 'auto_rejected')::int as auto_rejected
  from ai_artifacts group by employee_id
) a
where a.employee_id = e.id;
-- The weekly decision figures read a window of creation time per employee.
create index if not exists ai_artifacts_employee_created on ai_artifacts (employee_id, created_at);

-- The activation funnel's wizard step by time.
create index if not exists users_onboarding_completed_idx on users (onboarding_completed_at)
  where onboarding_completed_at is not null;
