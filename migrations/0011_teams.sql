-- Teams (issue 13): members with roles, hashed invite tokens, team-scoped sub-communities and
-- leaderboard opt-out. Sub-communities are tables of their own (not issue 12's communities).
create table if not exists teams (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  name text not null,
  -- Kept in step with team_members by the statements that change roles; the check makes the
  -- "cannot remove or demote the last owner" guard hold under concurrency.
  owner_count integer not null default 1 check (owner_count >= 1),
  default_sub_community_id bigint,
  -- Always false: lets the foreign key below refuse an archived default sub-community.
  default_archived boolean not null default false check (not default_archived),
  created_by bigint not null references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table if not exists team_sub_communities (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  team_id bigint not null references teams (id),
  name text not null,
  description text,
  open boolean not null,
  archived boolean not null default false,
  archived_at timestamptz,
  created_by bigint not null references users (id),
  created_at timestamptz not null default now(),
  unique (id, team_id, archived)
);
create index if not exists team_sub_communities_team_idx on team_sub_communities (team_id, created_at);

-- The default sub-community belongs to the team and is never archived (checked by the database,
-- so a concurrent archive and setDefault cannot leave an archived default).
alter table teams drop constraint if exists teams_default_sub_community_fk;
alter table teams add constraint teams_default_sub_community_fk
  foreign key (default_sub_community_id, id, default_archived)
  references team_sub_communities (id, team_id, archived);

-- One team per user: user_id is the key.
create table if not exists team_members (
  user_id bigint primary key references users (id),
  team_id bigint not null references teams (id),
  role text not null check (role in ('owner', 'admin', 'member')),
  leaderboard_visible boolean not null default true,
  joined_at timestamptz not null default now()
);
create index if not exists team_members_team_idx on team_members (team_id, joined_at);

create table if not exists team_sub_community_members (
  sub_community_id bigint not null references team_sub_communities (id),
  user_id bigint not null references users (id),
  joined_at timestamptz not null default now(),
  primary key (sub_community_id, user_id)
);
create index if not exists team_sub_community_members_user_idx
  on team_sub_community_members (user_id);

-- Invite tokens are stored as their SHA-256 (hex) only.
create table if not exists team_invites (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  team_id bigint not null references teams (id),
  token_hash text not null unique,
  created_by bigint not null references users (id),
  expires_at timestamptz not null,
  max_uses integer check (max_uses is null or max_uses >= 1),
  uses integer not null default 0 check (uses >= 0 and (max_uses is null or uses <= max_uses)),
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists team_invites_team_idx on team_invites (team_id, created_at);

-- Leaderboard scoring reads a member's check-ins and goal events by time.
create index if not exists habit_check_ins_user_day_idx on habit_check_ins (user_id, day);
create index if not exists goal_events_user_time_idx on goal_events (user_id, occurred_at);
