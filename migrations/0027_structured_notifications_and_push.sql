-- Structured notifications and push (issue 43, items 2 and 3).
--
-- A notification keeps its kind and English content, and now also says who caused it (the actor;
-- null for the service's own notices), what it is about (the subject: a GraphQL type's enum value
-- and that object's public id) and the values its text is made of (args, by name), so an app can
-- link to the subject and render the text in its own language. Rows written before this migration
-- keep their kind and content; their actor and subject are null and their args empty.
alter table notifications add column if not exists actor_id bigint
  references users (id) on delete set null;
alter table notifications add column if not exists subject_type text;
alter table notifications add column if not exists subject_id text;
alter table notifications add column if not exists args jsonb not null default '{}'::jsonb;

-- Erasing a user clears their place as the actor of other users' notifications.
create index if not exists notifications_actor_idx
  on notifications (actor_id) where actor_id is not null;

-- Devices a user registered for push: a Web Push subscription (its JSON), an APNs device token or
-- an FCM registration token. A token belongs to one device at a time: registering it again (by
-- the same or another user) moves it, so `token_digest` (SHA-256 of the token, hex) is unique per
-- platform. A token the provider reports gone is deleted.
create table if not exists push_devices (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id) on delete cascade,
  platform text not null check (platform in ('web', 'apns', 'fcm')),
  token text not null,
  token_digest text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (platform, token_digest)
);

create index if not exists push_devices_user_idx on push_devices (user_id, updated_at desc);
