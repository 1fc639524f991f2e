-- Owning one's data (issue 28): exports of a user's data and account deletion with a grace period.
-- Rules: docs/domain.md "Owning one's data".

-- A pending deletion (cancelled by signing in again) and the erasure that ended the account: the
-- row stays as an anonymous tombstone ("deleted user") so shared records keep their references.
alter table users add column if not exists deletion_requested_at timestamptz;
alter table users add column if not exists erased_at timestamptz;
create index if not exists users_deletion_due_idx on users (deletion_requested_at)
  where deletion_requested_at is not null and erased_at is null;

-- The SHA-256 of an erased account's token subject: tokens issued before `erased_at` are refused.
create table if not exists erased_subjects (
  subject_digest text primary key,
  erased_at timestamptz not null
);

-- One export of a user's data: written by a background job, downloaded with its token until
-- `expires_at`, deleted afterwards.
create table if not exists data_exports (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  user_id bigint not null references users (id),
  status text not null default 'pending' check (status in ('pending', 'ready')),
  download_token text not null,
  content jsonb,
  created_at timestamptz not null,
  ready_at timestamptz,
  expires_at timestamptz not null,
  check ((status = 'ready') = (content is not null))
);
create index if not exists data_exports_user_idx on data_exports (user_id, created_at desc);
create index if not exists data_exports_expiry_idx on data_exports (expires_at);
