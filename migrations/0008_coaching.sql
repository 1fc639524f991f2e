-- AI coaching (issue 11): flag overrides, a ledger of model calls, and milestone suggestions
-- that become sub-goals only when the user accepts them.

-- An admin's override of an AI feature flag; a flag without a row follows AI_FLAGS.
create table if not exists ai_flags (
  name text primary key,
  enabled boolean not null,
  updated_by bigint references users (id),
  updated_at timestamptz not null default now()
);

-- One row per model call made for a user or the system (usage and cost as reported or estimated).
create table if not exists ai_calls (
  id bigint generated always as identity primary key,
  user_id bigint references users (id),
  feature text not null,
  model text not null,
  outcome text not null,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  cost_usd double precision not null default 0,
  cost_source text not null default 'estimate',
  attempts integer not null default 0,
  duration_ms integer not null default 0,
  created_at timestamptz not null default now()
);
create index if not exists ai_calls_user_time_idx on ai_calls (user_id, created_at);

-- Milestones the model proposed for a goal; accepted at most once.
create table if not exists milestone_suggestions (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  goal_id bigint not null references goals (id),
  milestones jsonb not null,
  accepted_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists milestone_suggestions_goal_idx on milestone_suggestions (goal_id);
