/**
 * Grows the bench's data in place, set-based, with rows shaped as the stores write them (the
 * same columns, the same side rows: a post's feed item, a member's feed follow, the counters the
 * services keep beside the rows). Each call adds the rows between two sizes; row `k` of a kind
 * sits `k` spacings before the run's start (sizes.ts), so a bigger size adds older history.
 *
 * A change that keeps a new figure beside the rows (a counter, a rollup) must keep it here too,
 * as its store does: the checks of cases.ts compare what the API answers with the rows.
 */
import { recountKeptCounts } from "../../tests/support/kept-counts.ts";
import type { Sql } from "../../src/platform/db.ts";
import { type Counts, EMPLOYEES, SPACING_S } from "./sizes.ts";

/** The internal ids of what the bench created through the API before growing anything. */
export interface Base {
  /** The run's start: every grown row is older. */
  t0: Date;
  viewerId: string;
  adminId: string;
  communityId: string;
  challengeId: string;
  challengePublicId: string;
  goalId: string;
}

/** A public id as `publicId()` makes one: URL-safe base64 of 16 random bytes, 22 characters. */
export const PUBLIC_ID =
  `rtrim(translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/', '-_'), '=')`;

/** Adds the rows of every kind from `from` to `to` (counts of sizes.ts); ms per kind. */
export async function grow(
  sql: Sql,
  base: Base,
  from: Counts,
  to: Counts,
): Promise<Record<string, number>> {
  const t0 = base.t0;
  const timings: Record<string, number> = {};
  const step = async (name: string, statement: PromiseLike<unknown>) => {
    const started = performance.now();
    await statement;
    timings[name] = Math.round(performance.now() - started);
  };
  const pid = () => sql.unsafe(PUBLIC_ID);

  // Users, with the onboarding and activation steps of some of them (the funnel's figures).
  await step(
    "users",
    sql`
    with u as (
      insert into users (public_id, subject, username, time_zone, onboarding_completed_at,
                         created_at, updated_at)
      select ${pid()}, 'scale-user-' || k, 'scale_' || k, 'UTC',
             case when k % 5 < 3 then t + interval '10 minutes' end, t, t
      from generate_series(${from.users + 1}::int, ${to.users}::int) k
      cross join lateral (
        select ${t0}::timestamptz - k * ${SPACING_S.users} * interval '1 second' as t) x
      returning id, created_at, substr(subject, 12)::int as k
    )
    insert into activation_steps (user_id, step, reached_at)
    select u.id, s.step, least(u.created_at + s.after, ${t0}::timestamptz)
    from u cross join (values ('first_goal', interval '1 hour', 2),
                              ('first_check_in', interval '1 day', 5),
                              ('first_badge', interval '3 days', 10)) s(step, after, every)
    where u.k % s.every = 0`,
  );

  if (from.users === 0) {
    // The viewer blocks two members and is blocked by a third: the reads' block checks have
    // something to find.
    await step(
      "blocks",
      sql`
      insert into user_blocks (blocker_id, blocked_id, created_at)
      select ${base.viewerId}, id, ${t0} from users where subject in ('scale-user-1', 'scale-user-2')
      union all
      select id, ${base.viewerId}, ${t0} from users where subject = 'scale-user-3'`,
    );
  }

  // Members, each a participant of the challenge (joined through `joinCommunity` and
  // `joinCommunityChallenge`: the membership, its feed follow, the counts).
  const audience = `community:${base.communityId}`;
  await step(
    "members",
    sql`
    with m as (
      insert into community_members (community_id, user_id, role, joined_at)
      select ${base.communityId}, u.id, 'member',
             least(u.created_at + interval '1 hour', ${t0}::timestamptz)
      from generate_series(${from.members + 1}::int, ${to.members}::int) k
      join users u on u.subject = 'scale-user-' || k
      returning user_id, joined_at
    ), f as (
      insert into feed_follows (user_id, audience, created_at)
      select user_id, ${audience}, joined_at from m
    )
    update communities set member_count = member_count + (select count(*) from m)
    where id = ${base.communityId}`,
  );
  await step(
    "participants",
    sql`
    with p as (
      insert into challenge_participants (public_id, challenge_id, user_id, score,
                                          entry_cost_paid, joined_at)
      select ${pid()}, ${base.challengeId}, u.id, (hashtext(u.subject) & 1023) % 500, 0,
             least(u.created_at + interval '2 hours', ${t0}::timestamptz)
      from generate_series(${from.members + 1}::int, ${to.members}::int) k
      join users u on u.subject = 'scale-user-' || k
      returning id, score, joined_at
    ), c as (
      insert into challenge_contributions (participant_id, source, amount, created_at)
      select id, 'bench:' || id, score, joined_at from p where score > 0
    )
    update community_challenges set participant_count = participant_count + (select count(*) from p)
    where id = ${base.challengeId}`,
  );

  // Posts by members, newest first back in time, each with its feed item (createCommunityPost).
  await step(
    "posts",
    sql`
    with p as (
      insert into community_posts (public_id, community_id, author_id, body, created_at)
      select ${pid()}, ${base.communityId}, u.id,
             'Scale post ' || j || ': ' || repeat('a day of steady progress ', 3),
             ${t0}::timestamptz - j * ${SPACING_S.posts} * interval '1 second'
      from generate_series(${from.posts + 1}::int, ${to.posts}::int) j
      join users u on u.subject = 'scale-user-' || ((j - 1) % ${to.members}::int + 1)
      returning id, author_id, created_at
    )
    insert into feed_items (public_id, user_id, kind, occurred_at, data, audience)
    select ${pid()}, p.author_id, 'community_post', p.created_at,
           jsonb_build_object('postId', p.id::text, 'communityId', ${base.communityId}::text),
           ${audience}
    from p`,
  );

  // Events on the viewer's target goal, one an hour (statement triggers keep the goal's activity
  // version and the leaderboard points, as for addGoalEvent).
  await step(
    "goal events",
    sql`
    insert into goal_events (public_id, goal_id, user_id, value, occurred_at, created_at)
    select ${pid()}, ${base.goalId}, ${base.viewerId}, 1 + i % 3, t, t
    from generate_series(${from.goalEvents + 1}::int, ${to.goalEvents}::int) i
    cross join lateral (
      select ${t0}::timestamptz - i * ${SPACING_S.goalEvents} * interval '1 second' as t) x`,
  );

  // The viewer's notifications, one a minute, four in five unread.
  await step(
    "notifications",
    sql`
    insert into notifications (public_id, user_id, kind, content, acknowledged_at, created_at,
                               actor_id, subject_type, subject_id, args)
    select ${pid()}, ${base.viewerId}, 'challenge.started', 'The challenge "Scale" has started.',
           case when i % 5 = 0 then t + interval '1 hour' end, t, null, 'community_challenge',
           ${base.challengePublicId}, jsonb_build_object('challengeTitle', 'Scale')
    from generate_series(${from.notifications + 1}::int, ${to.notifications}::int) i
    cross join lateral (
      select ${t0}::timestamptz - i * ${SPACING_S.notifications} * interval '1 second' as t) x`,
  );

  // Dead jobs (out of attempts), with the failure counter the worker keeps.
  await step(
    "dead jobs",
    sql`
    with d as (
      insert into jobs (queue, name, payload, run_at, attempts, max_attempts, last_error, dead_at,
                        public_id, created_at)
      select 'default',
             (array['notifications.broadcast', 'push.deliver', 'workforce.deliver',
                    'privacy.export', 'billing.sync'])[1 + i % 5],
             jsonb_build_object('id', i::text), t, 25, 25,
             'Error: upstream answered 503 Service Unavailable (attempt 25 of 25, job ' || i || ')',
             t, ${pid()}, t - interval '1 day'
      from generate_series(${from.deadJobs + 1}::int, ${to.deadJobs}::int) i
      cross join lateral (
        select ${t0}::timestamptz - i * ${SPACING_S.deadJobs} * interval '1 second' as t) x
      returning 1
    )
    insert into job_counters (name, shard, value)
    select 'failed', 0, count(*) * 25 from d
    on conflict (name, shard) do update set value = job_counters.value + excluded.value`,
  );

  // Feedback posts by users, one in fifty deleted.
  await step(
    "feedback posts",
    sql`
    insert into feedback_posts (public_id, author_id, title, description, category, status,
                                created_at, updated_at, deleted_at)
    select ${pid()}, u.id, 'Scale feedback ' || i, 'Please make it ' || repeat('better and ', 8),
           (array['feature', 'improvement', 'bug', 'other'])[1 + i % 4],
           (array['open', 'open', 'open', 'planned', 'in_progress', 'completed',
                  'declined'])[1 + i % 7],
           t, t, case when i % 50 = 0 then least(t + interval '1 day', ${t0}::timestamptz) end
    from generate_series(${from.feedbackPosts + 1}::int, ${to.feedbackPosts}::int) i
    join users u on u.subject = 'scale-user-' || ((i - 1) % ${to.users}::int + 1)
    cross join lateral (
      select ${t0}::timestamptz - i * ${SPACING_S.feedbackPosts} * interval '1 second' as t) x`,
  );

  // AI runs of the employees with their run logs; each succeeded run has an artifact, decided
  // (approved, rejected, auto-rejected) except one in a hundred, pending review.
  await step(
    "ai runs",
    sql`
    with e as (
      select id, row_number() over (order by id) - 1 as r from ai_employees
      where role like 'scale_reporter_%'
    ), r as (
      insert into ai_runs (public_id, employee_id, status, trigger, started_at, finished_at,
                           input_tokens, output_tokens, num_turns, cost_usd, error_message,
                           run_log, created_at, result_received_at, scheduled_for)
      select ${pid()}, e.id, case when i % 10 = 0 then 'failed' else 'succeeded' end, 'schedule',
             t, t + interval '2 minutes', 1200, 400, 3, 0.0125,
             case when i % 10 = 0 then 'error_during_execution: the model gave up' end,
             jsonb_build_array(
               jsonb_build_object('at', t, 'type', 'started'),
               jsonb_build_object('at', t + interval '20 seconds', 'type', 'tool_call',
                                  'tool', 'activation_funnel', 'output', repeat('figures ', 30)),
               jsonb_build_object('at', t + interval '2 minutes', 'type', 'finished')),
             t, t + interval '2 minutes', t
      from generate_series(${from.aiRuns + 1}::int, ${to.aiRuns}::int) i
      join e on e.r = i % ${EMPLOYEES}
      cross join lateral (
        select ${t0}::timestamptz - i * ${SPACING_S.aiRuns} * interval '1 second' as t) x
      returning id, employee_id, status, finished_at
    )
    insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
                              approval_status, reviewer_id, auto_approved, reviewed_at,
                              rejection_reason, post_filter_reason, created_at)
    select ${pid()}, r.id, r.employee_id, 'report', 'Weekly activation report',
           '# Weekly report' || chr(10) || repeat('Sign-ups held steady this week. ', 10), s.status,
           case when s.status in ('approved', 'rejected') then ${base.adminId}::bigint end, false,
           case when s.status <> 'pending' then r.finished_at + interval '1 hour' end,
           case when s.status = 'rejected' then 'not grounded in the figures' end,
           case when s.status = 'auto_rejected' then 'the post-filter refused it' end,
           r.finished_at
    from r cross join lateral (
      select case when r.id % 100 = 7 then 'pending'
                  when r.id % 20 < 12 then 'approved'
                  when r.id % 20 < 17 then 'rejected'
                  else 'auto_rejected' end as status) s
    where r.status = 'succeeded'`,
  );
  // The counts the stores keep beside these rows, set to what the rows hold.
  await step("kept counts", recountKeptCounts(sql));
  return timings;
}

/** The AI employees (before any size), as `insertEmployee` writes them. */
export async function createEmployees(sql: Sql, t0: Date): Promise<void> {
  await sql`
    insert into ai_employees (public_id, name, role, description, task_prompt,
      monthly_budget_cents, model_preference, schedule_cron, autonomy_level, active, skills,
      post_filter_skill, tools, allowed_kinds, created_at, updated_at)
    select ${sql.unsafe(PUBLIC_ID)}, 'Scale reporter ' || n, 'scale_reporter_' || n, '',
           'Write the weekly activation report.', 3000, 'gpt-4o-mini', null, 'shadow', true,
           '{}', null, '{}', '{report}',
           ${t0}::timestamptz - interval '1000 days', ${t0}::timestamptz - interval '1000 days'
    from generate_series(1, ${EMPLOYEES}::int) n`;
}
