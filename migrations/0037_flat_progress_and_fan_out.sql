-- Costs that stay flat as data grows (issue 45, items 3 and 4).
--
-- Goal progress before a range, read without summing the goal's history: running totals at the
-- end of each day that has activity, one row per (goal, day), kept by statement triggers in the
-- writer's transaction (as migrations 0012 and 0013 keep theirs, so no writer can forget them).
-- The total before an instant is the last row of an earlier UTC day plus the events of that
-- instant's UTC day up to it (docs/domain.md, "Progress data").
create table if not exists goal_progress_days (
  goal_id bigint not null references goals (id) on delete cascade,
  -- Events count on their UTC date, check-ins on their own date.
  day date not null,
  -- The goal's event values through the end of `day`. Numeric: exact, so edits and deletes never
  -- leave a rounding residue behind.
  value_through numeric not null default 0,
  -- The goal's check-ins through `day`.
  check_ins_through bigint not null default 0,
  primary key (goal_id, day)
);

-- Adds changes (per goal and day: a value and a number of check-ins, negative for removals) to
-- the running totals: the changed days and every later day of the goal, in one statement.
create or replace function goal_progress_add(
  goal_ids bigint[], days date[], amounts numeric[], check_ins bigint[]
) returns void
language plpgsql as $$
begin
  -- One writer of a goal's totals at a time: they are read, then written.
  perform 1 from goals where id = any(goal_ids) order by id for no key update;
  with delta as (
    select x.goal_id, x.day, sum(x.dv) as dv, sum(x.dc) as dc
    from unnest(goal_ids, days, amounts, check_ins) as x(goal_id, day, dv, dc)
    group by x.goal_id, x.day
    having sum(x.dv) <> 0 or sum(x.dc) <> 0
  ), first_day as (
    select goal_id, min(day) as day from delta group by goal_id
  ), base as (
    -- The totals before each goal's first changed day.
    select f.goal_id, coalesce(b.value_through, 0) as bv, coalesce(b.check_ins_through, 0) as bc
    from first_day f left join lateral (
      select p.value_through, p.check_ins_through from goal_progress_days p
      where p.goal_id = f.goal_id and p.day < f.day order by p.day desc limit 1
    ) b on true
  ), kept as (
    -- The days from each goal's first changed one on: an index range per goal (the ordered
    -- subquery is not merged into a join, which would scan every goal's days).
    select p.goal_id, p.day, p.value_through, p.check_ins_through
    from first_day f cross join lateral (
      select * from goal_progress_days p where p.goal_id = f.goal_id and p.day >= f.day
      order by p.day
    ) p
  ), merged as (
    select coalesce(k.goal_id, d.goal_id) as goal_id, coalesce(k.day, d.day) as day,
           k.value_through, k.check_ins_through,
           coalesce(d.dv, 0) as dv, coalesce(d.dc, 0) as dc
    from kept k full join delta d on d.goal_id = k.goal_id and d.day = k.day
  ), runs as (
    -- A new day takes its totals from the kept day before it: the same run number.
    select m.*, count(m.value_through) over (partition by m.goal_id order by m.day) as run
    from merged m
  )
  insert into goal_progress_days as t (goal_id, day, value_through, check_ins_through)
  select r.goal_id, r.day,
         coalesce(max(r.value_through) over same_run, b.bv) + sum(r.dv) over so_far,
         coalesce(max(r.check_ins_through) over same_run, b.bc) + sum(r.dc) over so_far
  from runs r join base b on b.goal_id = r.goal_id
  window same_run as (partition by r.goal_id, r.run),
         so_far as (partition by r.goal_id order by r.day)
  on conflict (goal_id, day) do update
    set value_through = excluded.value_through, check_ins_through = excluded.check_ins_through;
end
$$;

create or replace function goal_events_progress() returns trigger
language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    perform goal_progress_add(array_agg(goal_id), array_agg((occurred_at at time zone 'UTC')::date),
                              array_agg(value::numeric), array_agg(0::bigint))
    from new_rows;
  elsif TG_OP = 'DELETE' then
    perform goal_progress_add(array_agg(goal_id), array_agg((occurred_at at time zone 'UTC')::date),
                              array_agg(-value::numeric), array_agg(0::bigint))
    from old_rows;
  else
    perform goal_progress_add(array_agg(goal_id), array_agg(day), array_agg(amount),
                              array_agg(0::bigint))
    from (
      select goal_id, (occurred_at at time zone 'UTC')::date as day, value::numeric as amount
      from new_rows
      union all
      select goal_id, (occurred_at at time zone 'UTC')::date, -value::numeric from old_rows
    ) c;
  end if;
  return null;
end
$$;

create or replace function habit_check_ins_progress() returns trigger
language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    perform goal_progress_add(array_agg(goal_id), array_agg(day), array_agg(0::numeric),
                              array_agg(1::bigint))
    from new_rows;
  elsif TG_OP = 'DELETE' then
    perform goal_progress_add(array_agg(goal_id), array_agg(day), array_agg(0::numeric),
                              array_agg(-1::bigint))
    from old_rows;
  else
    perform goal_progress_add(array_agg(goal_id), array_agg(day), array_agg(0::numeric),
                              array_agg(n))
    from (
      select goal_id, day, 1::bigint as n from new_rows
      union all
      select goal_id, day, -1::bigint from old_rows
    ) c;
  end if;
  return null;
end
$$;

create or replace trigger goal_events_progress_insert after insert on goal_events
  referencing new table as new_rows
  for each statement execute function goal_events_progress();
create or replace trigger goal_events_progress_update after update on goal_events
  referencing old table as old_rows new table as new_rows
  for each statement execute function goal_events_progress();
create or replace trigger goal_events_progress_delete after delete on goal_events
  referencing old table as old_rows
  for each statement execute function goal_events_progress();
create or replace trigger habit_check_ins_progress_insert after insert on habit_check_ins
  referencing new table as new_rows
  for each statement execute function habit_check_ins_progress();
create or replace trigger habit_check_ins_progress_update after update on habit_check_ins
  referencing old table as old_rows new table as new_rows
  for each statement execute function habit_check_ins_progress();
create or replace trigger habit_check_ins_progress_delete after delete on habit_check_ins
  referencing old table as old_rows
  for each statement execute function habit_check_ins_progress();

insert into goal_progress_days (goal_id, day, value_through, check_ins_through)
select goal_id, day,
       sum(sum(dv)) over (partition by goal_id order by day),
       sum(sum(dc)) over (partition by goal_id order by day)
from (
  select goal_id, (occurred_at at time zone 'UTC')::date as day, value::numeric as dv,
         0::bigint as dc
  from goal_events
  union all
  select goal_id, day, 0, 1 from habit_check_ins
) a
group by goal_id, day
on conflict (goal_id, day) do nothing;

-- The streak reminder walks the users of one zone in id order, a bounded batch at a time.
create index if not exists users_time_zone_id_active_idx
  on users (time_zone, id) where deletion_requested_at is null and erased_at is null;
