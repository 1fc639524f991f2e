-- Finding people, blocking and reporting (issue 28, item 3). Rules: docs/domain.md, "Finding
-- people", "Blocking" and "Reports".

-- Who may find a user by name: `searchable` (exact username and prefix search), `exact_username`
-- (only by the exact username, the default) or `hidden` (neither).
alter table users add column if not exists discoverability text not null default 'exact_username'
  check (discoverability in ('searchable', 'exact_username', 'hidden'));

-- Prefix search reads a range of this index, in its order: only searchable users are in it, keyed
-- by the lower-cased username in byte order (collation "C", so the range [prefix, prefix || '~')
-- holds exactly the usernames starting with the prefix, whatever the database's collation).
create index if not exists users_username_search_idx
  on users ((lower(username) collate "C")) where discoverability = 'searchable';

-- A block hides each user from the other (requests, posts, feeds, lookups) both ways.
create table if not exists user_blocks (
  blocker_id bigint not null references users (id),
  blocked_id bigint not null references users (id),
  created_at timestamptz not null,
  primary key (blocker_id, blocked_id),
  check (blocker_id <> blocked_id)
);

create index if not exists user_blocks_blocked_idx on user_blocks (blocked_id, blocker_id);

-- A report of a user or of a community post to the admins. `post_body` keeps what was reported
-- (the post may be edited or removed afterwards); `post_id` is not a foreign key for that reason.
create table if not exists user_reports (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  reporter_id bigint not null references users (id),
  reported_user_id bigint not null references users (id),
  post_id bigint,
  post_public_id text,
  post_body text,
  reason text not null,
  details text,
  status text not null default 'open' check (status in ('open', 'actioned', 'dismissed')),
  resolved_by bigint references users (id),
  resolution_note text,
  resolved_at timestamptz,
  created_at timestamptz not null
);

-- One open report per reporter and subject: a repeat is answered, not stored again.
create unique index if not exists user_reports_open_key
  on user_reports (reporter_id, reported_user_id, coalesce(post_id, 0)) where status = 'open';

-- The admins' queue: open reports oldest first, and each status's list.
create index if not exists user_reports_queue_idx on user_reports (status, created_at, public_id);
