-- How many participants of a challenge hold each score (issue 45, docs/scale.md): a rank is one
-- plus the participants above, summed over the scores above instead of counted row by row, so a
-- viewer's entry and a deep leaderboard page cost the scores above, not the participants.
-- Changed in the statement that changes a score, adds or removes a participant. `n` has no check:
-- a change is written as an upsert of its delta, and PostgreSQL checks the proposed row before it
-- finds the conflict.
create table if not exists challenge_score_counts (
  challenge_id bigint not null references community_challenges (id) on delete cascade,
  score double precision not null,
  n integer not null,
  primary key (challenge_id, score)
);
insert into challenge_score_counts (challenge_id, score, n)
select challenge_id, score, count(*)::int from challenge_participants group by challenge_id, score
on conflict (challenge_id, score) do update set n = excluded.n;
