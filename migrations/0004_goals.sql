-- Goals, progress events, habit check-ins, streak freezes, mood logs, badges and the activity
-- feed (issue 5). Values are double precision so the driver hands back numbers, not strings.
create table if not exists goals (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  parent_id bigint references goals (id),
  title text not null,
  description text,
  kind text not null check (kind in ('habit', 'target')),
  unit text,
  start_value double precision,
  target_value double precision,
  due_date date,
  cadence text check (cadence in ('daily', 'weekly')),
  times_per_week integer check (times_per_week between 1 and 7),
  status text not null default 'active' check (status in ('active', 'completed', 'archived')),
  visibility text not null default 'private' check (visibility in ('private', 'public')),
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists goals_user_parent_idx on goals (user_id, parent_id, created_at);
create index if not exists goals_parent_idx on goals (parent_id) where parent_id is not null;

create table if not exists goal_events (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  goal_id bigint not null references goals (id),
  user_id bigint not null references users (id),
  value double precision not null,
  note text,
  occurred_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index if not exists goal_events_goal_time_idx on goal_events (goal_id, occurred_at);

-- One check-in per habit per local day (the user's time zone at check-in time).
create table if not exists habit_check_ins (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  goal_id bigint not null references goals (id),
  user_id bigint not null references users (id),
  day date not null,
  created_at timestamptz not null default now(),
  unique (goal_id, day)
);

-- A freeze spent on a missed day counts as that day's check-in for streaks.
create table if not exists streak_freeze_uses (
  id bigint generated always as identity primary key,
  goal_id bigint not null references goals (id),
  user_id bigint not null references users (id),
  day date not null,
  created_at timestamptz not null default now(),
  unique (goal_id, day)
);

create table if not exists streak_freeze_balances (
  user_id bigint primary key references users (id),
  available integer not null default 0 check (available >= 0),
  earned_total integer not null default 0,
  updated_at timestamptz not null default now()
);

-- A freeze is earned once per (habit, period on which its streak reached a multiple of 7).
create table if not exists streak_freeze_grants (
  goal_id bigint not null references goals (id),
  reached_on date not null,
  streak integer not null,
  created_at timestamptz not null default now(),
  primary key (goal_id, reached_on)
);

create table if not exists mood_logs (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  mood smallint not null check (mood between 1 and 5),
  note text,
  tags text[] not null default '{}',
  logged_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index if not exists mood_logs_user_time_idx on mood_logs (user_id, logged_at);

create table if not exists user_badges (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  code text not null,
  earned_at timestamptz not null default now(),
  unique (user_id, code)
);

-- The unified activity feed: one row per item, written by the feature where the activity
-- happens; `kind` names the source and `data` holds what the item shows.
create table if not exists feed_items (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  kind text not null,
  occurred_at timestamptz not null,
  data jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index if not exists feed_items_user_order_idx
  on feed_items (user_id, occurred_at desc, id desc);
