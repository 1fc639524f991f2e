-- Who left or was removed from a team, with the membership as it ended (issue 43, docs/graphql.md
-- "Retrying mutations"): a repeated removeTeamMember answers that membership with alreadyRemoved
-- instead of not_found. One row per team and user, the latest departure; written in the statement
-- that removes the member, deleted with the team and erased with the user.
create table if not exists team_departures (
  team_id bigint not null references teams (id),
  user_id bigint not null references users (id),
  role text not null check (role in ('owner', 'admin', 'member')),
  joined_at timestamptz not null,
  left_at timestamptz not null,
  primary key (team_id, user_id)
);
create index if not exists team_departures_user_idx on team_departures (user_id);
