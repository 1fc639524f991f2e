-- Counts read often are kept, not recomputed (issue 45, docs/scale.md): each is changed in the
-- statement that adds, removes or moves the rows it counts.

-- A community's posts: communityFeed's totalCount is this minus the posts of the authors a block
-- separates from the viewer (found through the author index below).
alter table communities add column if not exists post_count integer not null default 0
  check (post_count >= 0);
update communities c set post_count = p.n
from (select community_id, count(*)::int as n from community_posts group by community_id) p
where p.community_id = c.id;
create index if not exists community_posts_author_idx on community_posts (author_id, community_id);

-- Live (not deleted) feedback posts by category and status: feedbackPosts' totalCount sums the
-- rows its filter selects.
create table if not exists feedback_post_counts (
  category text not null,
  status text not null,
  n integer not null default 0 check (n >= 0),
  primary key (category, status)
);
insert into feedback_post_counts (category, status, n)
select category, status, count(*)::int from feedback_posts where deleted_at is null
group by category, status
on conflict (category, status) do update set n = excluded.n;

-- The activation funnel's windows: sign-ups and steps by time.
create index if not exists users_created_at_idx on users (created_at);
create index if not exists activation_steps_time_idx on activation_steps (reached_at);
