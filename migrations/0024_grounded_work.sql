-- AI employees that do grounded work (issue 38): the tools an employee is given and the artifact
-- kinds it may produce, the slot a scheduled run was for, the runs a skill's preflight skipped,
-- and the figures of an artifact that none of its run's sources hold. Rules: docs/workforce.md
-- "Tools, kinds and grounding".

-- Tools beyond the built-in ones (DESIGN 3.3); none keeps what every employee had before.
alter table ai_employees add column if not exists tools text[] not null default '{}';

-- Every kind keeps what every employee could produce before; spec 2.2's customer support
-- drafter writes email drafts and nothing else.
alter table ai_employees add column if not exists allowed_kinds text[] not null
  default '{code_patch,email_template,slack_message,report,draft_post,recommendation,other}';
update ai_employees set allowed_kinds = '{email_template}'
  where role = 'customer_support_drafter' and allowed_kinds <> '{email_template}';
alter table ai_employees drop constraint if exists ai_employees_allowed_kinds_check;
alter table ai_employees add constraint ai_employees_allowed_kinds_check
  check (cardinality(allowed_kinds) > 0 and allowed_kinds <@
    '{code_patch,email_template,slack_message,report,draft_post,recommendation,other}'::text[]);
alter table ai_employees drop constraint if exists ai_employees_drafter_kinds;
alter table ai_employees add constraint ai_employees_drafter_kinds
  check (role <> 'customer_support_drafter' or allowed_kinds = '{email_template}');

-- The cron slot a scheduled run was started for (null for a manual run).
alter table ai_runs add column if not exists scheduled_for timestamptz;
-- Why a skill's preflight ended a run before any model call (the run succeeded, with no
-- artifact); null for every other run.
alter table ai_runs add column if not exists skipped_reason text;
-- The run context's last_succeeded_at: one index entry read, however long the history.
create index if not exists ai_runs_employee_succeeded on ai_runs (employee_id, finished_at desc)
  where status = 'succeeded';

-- The grounding check's list (null where the kind is not checked or the runner did not check).
alter table ai_artifacts add column if not exists unsupported_figures text[];
