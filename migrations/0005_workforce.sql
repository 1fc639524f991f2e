-- AI workforce (issue 6): employees, memories, runs, artifacts, schedule slots, budget alerts.

create table if not exists ai_employees (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  name text not null,
  role text not null unique,
  description text not null default '',
  task_prompt text not null,
  monthly_budget_cents integer not null default 3000 check (monthly_budget_cents >= 0),
  model_preference text not null default 'gpt-4o-mini',
  schedule_cron text,
  autonomy_level text not null default 'shadow'
    check (autonomy_level in ('shadow', 'semi_autonomous', 'autonomous')),
  active boolean not null default true,
  skills text[] not null default '{}',
  post_filter_skill text,
  promotion_confirmed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Spec 2.2: the customer support drafter never leaves shadow, whatever writes the row.
  constraint ai_employees_drafter_shadow
    check (role <> 'customer_support_drafter' or autonomy_level = 'shadow')
);

create table if not exists ai_employee_memories (
  employee_id bigint not null references ai_employees (id) on delete cascade,
  key text not null,
  value jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (employee_id, key)
);

create table if not exists ai_runs (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  employee_id bigint not null references ai_employees (id) on delete cascade,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'succeeded', 'failed')),
  trigger text not null check (trigger in ('schedule', 'manual')),
  started_at timestamptz,
  finished_at timestamptz,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  num_turns integer not null default 0,
  cost_usd numeric(14, 6) not null default 0,
  error_message text,
  run_log jsonb,
  created_at timestamptz not null default now()
);

-- At most one run in flight per employee (spec 3.1 `already_running`), across instances.
create unique index if not exists ai_runs_one_in_flight
  on ai_runs (employee_id) where status in ('queued', 'running');
create index if not exists ai_runs_employee_created on ai_runs (employee_id, created_at desc);
create index if not exists ai_runs_running on ai_runs (started_at) where status = 'running';

create table if not exists ai_artifacts (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  -- One artifact per run: a repeated webhook cannot create a second one.
  run_id bigint not null unique references ai_runs (id) on delete cascade,
  employee_id bigint not null references ai_employees (id) on delete cascade,
  kind text not null
    check (kind in ('code_patch', 'email_template', 'slack_message', 'report', 'draft_post',
                    'recommendation', 'other')),
  title text not null,
  payload text not null,
  original_payload text,
  approval_status text not null default 'pending'
    check (approval_status in ('pending', 'approved', 'rejected', 'auto_rejected')),
  post_filter_reason text,
  edit_distance integer,
  edit_ratio double precision,
  reviewer_id bigint references users (id),
  auto_approved boolean not null default false,
  reviewed_at timestamptz,
  rejection_reason text,
  delivered_at timestamptz,
  delivery_status text check (delivery_status in ('delivered', 'failed')),
  delivery_metadata jsonb,
  created_at timestamptz not null default now()
);

create index if not exists ai_artifacts_pending on ai_artifacts (created_at)
  where approval_status = 'pending';
create index if not exists ai_artifacts_employee on ai_artifacts (employee_id, reviewed_at);

-- Scheduler idempotency: one row per (employee, cron slot); only the inserter triggers the run.
create table if not exists ai_schedule_fires (
  employee_id bigint not null references ai_employees (id) on delete cascade,
  slot timestamptz not null,
  fired_at timestamptz not null default now(),
  primary key (employee_id, slot)
);

-- Budget alerts sent, at most once per subject (employee public id or 'workforce'), month, level.
create table if not exists ai_budget_alerts (
  subject text not null,
  month text not null,
  level text not null,
  sent_at timestamptz not null default now(),
  primary key (subject, month, level)
);
