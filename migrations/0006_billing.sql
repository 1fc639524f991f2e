-- Billing (payment records), the feedback board, and activation steps for the funnel (issue 9).

-- One row per billing-provider event, recorded once per (provider, provider_event_id) (spec 2.6a).
create table if not exists payment_records (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  provider text not null,
  provider_event_id text not null,
  event_type text not null,
  provider_product_id text,
  -- The plan slug the product maps to; null when the product is unknown.
  plan text,
  -- Null when app_user_id names no user (kept in app_user_id for an operator).
  user_id bigint references users (id),
  app_user_id text,
  amount numeric(14, 4),
  currency text,
  store text,
  environment text,
  occurred_at timestamptz,
  -- processed | unknown_user | unknown_product | ignored (see docs/billing.md)
  outcome text not null,
  raw_event jsonb not null,
  created_at timestamptz not null default now(),
  constraint payment_records_provider_event_key unique (provider, provider_event_id)
);

create index if not exists payment_records_user_idx on payment_records (user_id, created_at);
create index if not exists payment_records_outcome_idx on payment_records (outcome, created_at)
  where outcome <> 'processed';

-- Feedback board posts; deleted_at marks a soft delete (never listed, never exported).
create table if not exists feedback_posts (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  author_id bigint not null references users (id),
  title text not null,
  description text not null,
  category text not null check (category in ('feature', 'improvement', 'bug', 'other')),
  status text not null default 'open'
    check (status in ('open', 'planned', 'in_progress', 'completed', 'declined')),
  vote_count integer not null default 0 check (vote_count >= 0),
  comment_count integer not null default 0 check (comment_count >= 0),
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);

create index if not exists feedback_posts_new_idx on feedback_posts (created_at desc, public_id desc)
  where deleted_at is null;
create index if not exists feedback_posts_top_idx
  on feedback_posts (vote_count desc, created_at desc, public_id desc) where deleted_at is null;
create index if not exists feedback_posts_export_idx on feedback_posts (created_at, id)
  where deleted_at is null;

create table if not exists feedback_votes (
  post_id bigint not null references feedback_posts (id),
  user_id bigint not null references users (id),
  created_at timestamptz not null default now(),
  primary key (post_id, user_id)
);

create table if not exists feedback_comments (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  post_id bigint not null references feedback_posts (id),
  author_id bigint not null references users (id),
  body text not null,
  created_at timestamptz not null default clock_timestamp()
);

create index if not exists feedback_comments_post_idx on feedback_comments (post_id, created_at, id);

-- The first time each user reached each activation step (docs/integrations.md).
create table if not exists activation_steps (
  user_id bigint not null references users (id),
  step text not null check (step in ('first_goal', 'first_check_in', 'first_badge')),
  reached_at timestamptz not null,
  primary key (user_id, step)
);

create index if not exists activation_steps_reached_idx on activation_steps (step, reached_at);
