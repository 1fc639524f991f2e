-- Notifications that matter (issue 28, item 4): per-kind preferences the senders respect, an
-- idempotency key for notifications sent by events and schedules, the unread count's index, and
-- the marks of challenges whose start and end were announced.
alter table notifications add column if not exists dedup_key text;

-- At most one notification per key (null keys never collide): a retried event or a second
-- instance's run of a schedule inserts nothing.
create unique index if not exists notifications_dedup_key_idx on notifications (dedup_key);

create index if not exists notifications_unread_idx
  on notifications (user_id) where acknowledged_at is null;

-- A missing row means "on": only the kinds a user turned off (or back on) have one.
create table if not exists notification_preferences (
  user_id bigint not null references users (id) on delete cascade,
  kind text not null,
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (user_id, kind)
);

alter table community_challenges add column if not exists start_announced_at timestamptz;
alter table community_challenges add column if not exists end_announced_at timestamptz;

create index if not exists community_challenges_unannounced_start_idx
  on community_challenges (starts_at) where start_announced_at is null and cancelled_at is null;
create index if not exists community_challenges_unannounced_end_idx
  on community_challenges (ends_at) where end_announced_at is null and cancelled_at is null;

-- Challenges that started or ended before announcements existed are not announced now.
update community_challenges set start_announced_at = now()
  where start_announced_at is null and starts_at <= now();
update community_challenges set end_announced_at = now()
  where end_announced_at is null and ends_at <= now();
