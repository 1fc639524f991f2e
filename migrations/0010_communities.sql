-- Communities, community posts, allies, accountability partners, community challenges with
-- leaderboards, and the points that pay challenge entry costs (issue 12). Rules: docs/domain.md,
-- "Communities". Integrity lives in constraints: the tests race joins, leaves and requests.

create table if not exists communities (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  owner_id bigint not null references users (id),
  name text not null,
  description text,
  visibility text not null check (visibility in ('public', 'private')),
  member_limit integer check (member_limit between 2 and 100000),
  member_count integer not null default 0 check (member_count >= 0),
  created_at timestamptz not null default now(),
  check (member_limit is null or member_count <= member_limit)
);
create unique index if not exists communities_name_key on communities (lower(name));
create index if not exists communities_discover_idx
  on communities (created_at desc, id desc) where visibility = 'public';

create table if not exists community_members (
  community_id bigint not null references communities (id),
  user_id bigint not null references users (id),
  role text not null default 'member' check (role in ('owner', 'member')),
  joined_at timestamptz not null default now(),
  primary key (community_id, user_id)
);
create index if not exists community_members_user_idx
  on community_members (user_id, joined_at desc, community_id desc);

-- An invite lets one user join one private community once (accepted_at set on joining).
create table if not exists community_invites (
  id bigint generated always as identity primary key,
  community_id bigint not null references communities (id),
  user_id bigint not null references users (id),
  invited_by bigint not null references users (id),
  created_at timestamptz not null default now(),
  accepted_at timestamptz,
  unique (community_id, user_id)
);

create table if not exists community_posts (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  community_id bigint not null references communities (id),
  author_id bigint not null references users (id),
  body text not null check (char_length(body) between 1 and 2000),
  created_at timestamptz not null default now()
);
create index if not exists community_posts_feed_idx
  on community_posts (community_id, created_at desc, id desc);

-- The unified feed reads a viewer's own items plus items of the audiences the viewer follows
-- (`community:<id>` for members, `check_in:<user id>` for an active partner).
alter table feed_items add column if not exists audience text;
update feed_items set audience = kind || ':' || user_id where audience is null;
create index if not exists feed_items_audience_order_idx
  on feed_items (audience, occurred_at desc, id desc);

create table if not exists feed_follows (
  user_id bigint not null references users (id),
  audience text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, audience)
);

-- Allies: one live link per pair of users (pending or accepted), whoever asked first.
create table if not exists ally_links (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  requester_id bigint not null references users (id),
  addressee_id bigint not null references users (id),
  status text not null default 'pending'
    check (status in ('pending', 'accepted', 'declined', 'removed')),
  created_at timestamptz not null default now(),
  responded_at timestamptz,
  ended_at timestamptz,
  check (requester_id <> addressee_id)
);
create unique index if not exists ally_links_live_pair_key
  on ally_links (least(requester_id, addressee_id), greatest(requester_id, addressee_id))
  where status in ('pending', 'accepted');
create index if not exists ally_links_requester_idx on ally_links (requester_id, status);
create index if not exists ally_links_addressee_idx on ally_links (addressee_id, status);

-- Accountability partnerships: one pending request per pair; at most one active partnership per
-- user, held by `active_partners` (two rows per active partnership, one per side).
create table if not exists partnerships (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  requester_id bigint not null references users (id),
  addressee_id bigint not null references users (id),
  status text not null default 'pending'
    check (status in ('pending', 'active', 'declined', 'ended', 'cancelled')),
  created_at timestamptz not null default now(),
  responded_at timestamptz,
  ended_at timestamptz,
  check (requester_id <> addressee_id)
);
create unique index if not exists partnerships_pending_pair_key
  on partnerships (least(requester_id, addressee_id), greatest(requester_id, addressee_id))
  where status = 'pending';
create index if not exists partnerships_requester_idx on partnerships (requester_id, status);
create index if not exists partnerships_addressee_idx on partnerships (addressee_id, status);

create table if not exists active_partners (
  user_id bigint primary key references users (id),
  partner_id bigint not null references users (id),
  partnership_id bigint not null references partnerships (id),
  since timestamptz not null default now()
);

-- Points: earned by activity, spent on challenge entry costs, refunded on leaving. Every change
-- is a ledger row with a unique reference, so a retried event never pays twice.
create table if not exists user_points (
  user_id bigint primary key references users (id),
  balance integer not null default 0 check (balance >= 0),
  updated_at timestamptz not null default now()
);

create table if not exists point_ledger (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id),
  delta integer not null,
  reason text not null,
  ref text not null unique,
  created_at timestamptz not null default now()
);
create index if not exists point_ledger_user_idx on point_ledger (user_id, created_at);

create table if not exists community_challenges (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  community_id bigint not null references communities (id),
  creator_id bigint not null references users (id),
  title text not null,
  description text,
  metric text not null check (metric in ('check_ins', 'goal_event_value')),
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  entry_cost integer not null default 0 check (entry_cost between 0 and 100000),
  participant_count integer not null default 0 check (participant_count >= 0),
  created_at timestamptz not null default now(),
  check (ends_at > starts_at)
);
create index if not exists community_challenges_community_idx
  on community_challenges (community_id, starts_at desc, id desc);

create table if not exists challenge_participants (
  id bigint generated always as identity primary key,
  public_id text not null unique,
  challenge_id bigint not null references community_challenges (id),
  user_id bigint not null references users (id),
  score double precision not null default 0,
  entry_cost_paid integer not null default 0 check (entry_cost_paid >= 0),
  joined_at timestamptz not null default now(),
  unique (challenge_id, user_id)
);
create index if not exists challenge_participants_rank_idx
  on challenge_participants (challenge_id, score desc, public_id);
create index if not exists challenge_participants_user_idx on challenge_participants (user_id);

-- What counted towards a participation (one row per source event), so a retried event counts
-- once and leaving clears the participant's progress.
create table if not exists challenge_contributions (
  participant_id bigint not null references challenge_participants (id) on delete cascade,
  source text not null,
  amount double precision not null,
  created_at timestamptz not null default now(),
  primary key (participant_id, source)
);
