-- Progress reads over long histories (issue 5's bench: 10,000 check-ins or events per goal).
--
-- Streak runs are a function of a goal's activity days; computing them walks every day. A goal's
-- `activity_version` changes in the same transaction as any change to its check-ins, freeze uses
-- or events (statement triggers below, so no writer can forget it), and `goal_streak_summaries`
-- keeps the runs (and a target's event total) computed for one (version, time zone, per-period requirement). A read whose key
-- still matches uses the summary; any other read recomputes and stores it.
alter table goals add column if not exists activity_version bigint not null default 0;

create table if not exists goal_streak_summaries (
  goal_id bigint primary key references goals (id) on delete cascade,
  activity_version bigint not null,
  time_zone text not null,
  required integer not null,
  longest integer not null,
  last_length integer not null,
  -- Period index of the last period of the latest run; null when the goal has no run.
  last_index integer,
  -- Targets: the sum of every event (the current value less the start value).
  event_total double precision,
  computed_at timestamptz not null default now()
);

create or replace function goals_bump_activity_version() returns trigger
language plpgsql as $$
begin
  update goals set activity_version = activity_version + 1
  where id in (select distinct goal_id from changed);
  return null;
end
$$;

do $$
declare
  t text;
begin
  foreach t in array array['habit_check_ins', 'streak_freeze_uses', 'goal_events'] loop
    execute format(
      'create or replace trigger %I after insert on %I referencing new table as changed '
      'for each statement execute function goals_bump_activity_version()',
      t || '_activity_insert', t);
    execute format(
      'create or replace trigger %I after update on %I referencing new table as changed '
      'for each statement execute function goals_bump_activity_version()',
      t || '_activity_update', t);
    execute format(
      'create or replace trigger %I after delete on %I referencing old table as changed '
      'for each statement execute function goals_bump_activity_version()',
      t || '_activity_delete', t);
  end loop;
end
$$;

-- Sums of a target's events (current value, the value before a range, the pace window) read
-- from the index alone.
create index if not exists goal_events_goal_time_value_idx
  on goal_events (goal_id, occurred_at) include (value);
drop index if exists goal_events_goal_time_idx;
