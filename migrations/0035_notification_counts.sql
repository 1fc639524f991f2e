-- A user's notifications counted, not recounted (issue 45, docs/scale.md): `total` and `unread`
-- change in the statement that stores, reads (acknowledges) or removes notifications, so
-- `unreadNotificationCount` and `notifications { totalCount }` read one row.
create table if not exists notification_counts (
  user_id bigint primary key references users (id) on delete cascade,
  total integer not null default 0 check (total >= 0),
  unread integer not null default 0 check (unread >= 0 and unread <= total)
);
insert into notification_counts (user_id, total, unread)
select user_id, count(*)::int, (count(*) filter (where acknowledged_at is null))::int
from notifications group by user_id
on conflict (user_id) do update set total = excluded.total, unread = excluded.unread;
