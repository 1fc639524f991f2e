-- Leaderboard points (issue 13): per user, one row per UTC week (Monday), UTC month and all time,
-- counting 1 per habit check-in (by its local day) and 1 per goal event (by its UTC day). Kept
-- by statement triggers in the transactions that insert or delete check-ins and goal events (as
-- migration 0012 keeps goals' activity versions), so a leaderboard reads at most one row per
-- member instead of counting a year of activity, and no writer can forget it. Per-day rows would still leave
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

-- The rows one day of activity counts in: its UTC week (from Monday), its month, all time.
create or replace function activity_point_periods(day date) returns table (period text, starts date)
language sql immutable as $$
  values ('week', date_trunc('week', day::timestamp)::date),
         ('month', date_trunc('month', day::timestamp)::date),
         ('all', '-infinity'::date)
$$;

insert into activity_points (period, starts, user_id, points)
select b.period, b.starts, a.user_id, count(*)::int
from (
  select user_id, day from habit_check_ins
  union all
  select user_id, (occurred_at at time zone 'UTC')::date from goal_events
) a
cross join lateral activity_point_periods(a.day) b
group by b.period, b.starts, a.user_id
on conflict (period, starts, user_id) do nothing;

create or replace function activity_points_apply() returns trigger
language plpgsql as $$
declare
  -- The changed rows' points per (period, period start, user).
  counted text := format(
    $q$
      select b.period, b.starts, a.user_id, count(*)::int as n
      from (select user_id, %s as day from changed) a
      cross join lateral activity_point_periods(a.day) b
      group by b.period, b.starts, a.user_id
    $q$,
    case when TG_TABLE_NAME = 'goal_events' then '(occurred_at at time zone ''UTC'')::date'
         else 'day' end);
begin
  if TG_OP = 'DELETE' then
    execute 'update activity_points p set points = p.points - c.n from (' || counted || ') c
             where p.period = c.period and p.starts = c.starts and p.user_id = c.user_id';
  else
    execute 'insert into activity_points as p (period, starts, user_id, points) ' || counted ||
            ' on conflict (period, starts, user_id) do update set points = p.points + excluded.points';
  end if;
  return null;
end
$$;

create or replace trigger habit_check_ins_points_insert after insert on habit_check_ins
  referencing new table as changed for each statement execute function activity_points_apply();
create or replace trigger habit_check_ins_points_delete after delete on habit_check_ins
  referencing old table as changed for each statement execute function activity_points_apply();
create or replace trigger goal_events_points_insert after insert on goal_events
  referencing new table as changed for each statement execute function activity_points_apply();
create or replace trigger goal_events_points_delete after delete on goal_events
  referencing old table as changed for each statement execute function activity_points_apply();
