-- The hourly streak reminder reads the zones users live in and then the users of the zones where
-- it is evening: both by time zone, over the users not leaving.
create index if not exists users_time_zone_active_idx
  on users (time_zone) where deletion_requested_at is null and erased_at is null;
