-- Local users, found or created from the identity provider's `sub` (spec 5.3).
create table if not exists users (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  subject text not null unique,
  username text not null,
  first_name text,
  last_name text,
  time_zone text not null default 'UTC',
  supporter_tier text,
  onboarding_completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create unique index if not exists users_username_key on users (lower(username));
