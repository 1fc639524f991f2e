-- Undo and edit (issue 28): undoing check-ins, editing and deleting progress events, deleting
-- goals, mood logs and community posts. Rules: docs/domain.md, "Undo, edit and delete".

-- A progress event whose time is edited moves its leaderboard point to the periods of the new
-- time (migration 0013 keeps points for inserts and deletes only): the old rows' points are taken
-- away and the new rows' added, in the writer's statement.
create or replace function activity_points_move() returns trigger
language plpgsql as $$
begin
  update activity_points p set points = p.points - c.n
  from (
    select b.period, b.starts, o.user_id, count(*)::int as n
    from old_rows o
    cross join lateral activity_point_periods((o.occurred_at at time zone 'UTC')::date) b
    group by b.period, b.starts, o.user_id
  ) c
  where p.period = c.period and p.starts = c.starts and p.user_id = c.user_id;
  insert into activity_points as p (period, starts, user_id, points)
  select b.period, b.starts, n.user_id, count(*)::int
  from new_rows n
  cross join lateral activity_point_periods((n.occurred_at at time zone 'UTC')::date) b
  group by b.period, b.starts, n.user_id
  on conflict (period, starts, user_id) do update set points = p.points + excluded.points;
  return null;
end
$$;

create or replace trigger goal_events_points_update after update on goal_events
  referencing old table as old_rows new table as new_rows
  for each statement execute function activity_points_move();

-- The feed items of one goal (progress, check-ins, completion), removed with the goal or with the
-- activity they show.
create index if not exists feed_items_goal_idx
  on feed_items (user_id, (data ->> 'goalId')) where data ? 'goalId';

-- When a post's body was last edited by its author (null: never).
alter table community_posts add column if not exists edited_at timestamptz;

-- Feed items of progress events name their event from now on; older ones are matched once by
-- goal, time and value, so editing or deleting an older event finds its item too.
update feed_items f set data = f.data || jsonb_build_object('eventId', e.public_id)
from goal_events e
where f.kind = 'goal_event' and not f.data ? 'eventId'
  and e.user_id = f.user_id and f.data ->> 'goalId' = e.goal_id::text
  and e.occurred_at = f.occurred_at and (f.data ->> 'value')::double precision = e.value;

-- A goal's AI milestone suggestions go with the goal when it is deleted.
alter table milestone_suggestions
  drop constraint if exists milestone_suggestions_goal_id_fkey,
  add constraint milestone_suggestions_goal_id_fkey
    foreign key (goal_id) references goals (id) on delete cascade;
