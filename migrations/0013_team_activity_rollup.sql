-- Leaderboard points (issue 13): per user, one row per UTC week (Monday), UTC month and all time,
-- counting 1 per habit check-in (by its local day) and 1 per goal event (by its UTC day). Kept
-- in the transactions that write check-ins and goal events, so a leaderboard reads at most one
-- row per member instead of counting a year of activity. Per-day rows would still leave
-- all-time boards summing hundreds of rows per member.
create table if not exists activity_points (
  period text not null check (period in ('week', 'month', 'all')),
  -- The period's first day; '-infinity' for all time.
  starts date not null,
  user_id bigint not null references users (id),
  points integer not null check (points >= 0),
  primary key (period, starts, user_id)
);
-- A leaderboard's first page walks a period's points from the top.
create index if not exists activity_points_board_idx
  on activity_points (period, starts, points desc, user_id);

insert into activity_points (period, starts, user_id, points)
select b.period, b.starts, a.user_id, count(*)::int
from (
  select user_id, day from habit_check_ins
  union all
  select user_id, (occurred_at at time zone 'UTC')::date from goal_events
) a
cross join lateral (values
  ('week', date_trunc('week', a.day::timestamp)::date),
  ('month', date_trunc('month', a.day::timestamp)::date),
  ('all', '-infinity'::date)
) b (period, starts)
group by b.period, b.starts, a.user_id
on conflict (period, starts, user_id) do nothing;
