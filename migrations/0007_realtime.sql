-- Real-time: notifications written by features (streamed by `notificationUpdate`) and async AI
-- requests processed by a background job (streamed by `aiRequestUpdate`, spec 2.5).
create table if not exists notifications (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null,
  content text not null,
  acknowledged_at timestamptz,
  created_at timestamptz not null default now()
);

create index if not exists notifications_user_created_idx
  on notifications (user_id, created_at desc, public_id desc);

create table if not exists ai_requests (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null,
  input jsonb not null default '{}'::jsonb,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'succeeded', 'failed')),
  result_json jsonb,
  error_code text,
  error_message text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);

create index if not exists ai_requests_user_idx on ai_requests (user_id, created_at desc);
