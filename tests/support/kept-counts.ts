/**
 * Seeds that insert rows with SQL of their own, bypassing the stores, call this after: it sets
 * the counts the stores keep (migrations 0030, 0032, 0035, 0036, 0039
 * and 0042) to what the rows hold.
 */
import type { Queryable } from "../../src/platform/db.ts";

export async function recountKeptCounts(sql: Queryable): Promise<void> {
  await sql`
    update communities c set post_count =
      (select count(*) from community_posts p where p.community_id = c.id)`;
  await sql`
    with live as (
      select category, status, count(*)::int as n from feedback_posts where deleted_at is null
      group by category, status
    ), zeroed as (
      update feedback_post_counts c set n = 0
      where not exists (select 1 from live where live.category = c.category
        and live.status = c.status)
    )
    insert into feedback_post_counts (category, status, n) select category, status, n from live
    on conflict (category, status) do update set n = excluded.n`;
  await sql`
    update ai_employees e set
      approved_count = (select count(*) from ai_artifacts a where a.employee_id = e.id
        and a.approval_status = 'approved' and not a.auto_approved),
      rejected_count = (select count(*) from ai_artifacts a where a.employee_id = e.id
        and a.approval_status = 'rejected'),
      auto_rejected_count = (select count(*) from ai_artifacts a where a.employee_id = e.id
        and a.approval_status = 'auto_rejected')`;
  await sql`
    insert into notification_counts (user_id, total, unread)
    select u.id, count(n.id)::int, (count(n.id) filter (where n.acknowledged_at is null))::int
    from users u left join notifications n on n.user_id = u.id
    group by u.id
    on conflict (user_id) do update set total = excluded.total, unread = excluded.unread`;
  await sql`delete from job_counters where name like 'dead:%'`;
  await sql`
    insert into job_counters (name, shard, value)
    select 'dead:' || name, 0, count(*) from jobs where dead_at is not null group by name`;
  await sql`delete from ai_employee_weeks`;
  await sql`
    insert into ai_employee_weeks (employee_id, week_start, approved, rejected, auto_rejected,
      auto_approved)
    select employee_id, date_trunc('week', created_at at time zone 'UTC')::date,
      count(*) filter (where approval_status = 'approved' and not auto_approved)::int,
      count(*) filter (where approval_status = 'rejected')::int,
      count(*) filter (where approval_status = 'auto_rejected')::int,
      count(*) filter (where approval_status = 'approved' and auto_approved)::int
    from ai_artifacts where approval_status <> 'pending' group by 1, 2`;
  await sql`delete from ai_employee_days`;
  await sql`
    insert into ai_employee_days (employee_id, day, rejections, spend_usd)
    select employee_id, day, sum(rejections)::int, sum(spend_usd) from (
      select employee_id, (reviewed_at at time zone 'UTC')::date as day, 1 as rejections,
        0 as spend_usd
      from ai_artifacts where approval_status = 'rejected' and reviewed_at is not null
      union all
      select employee_id, (created_at at time zone 'UTC')::date, 0, cost_usd
      from ai_runs where cost_usd <> 0
    ) both_kinds
    group by employee_id, day`;
  await sql`delete from challenge_score_counts`;
  await sql`
    insert into challenge_score_counts (challenge_id, score, n)
    select challenge_id, score, count(*)::int from challenge_participants
    group by challenge_id, score`;
}

/** What {@link assertKeptCountsAgree} throws: the counts that differ from their rows. */
export class KeptCountsDisagree extends Error {
  constructor(readonly wrong: string[]) {
    super(`kept counts disagree with their rows:\n${wrong.join("\n")}`);
    this.name = "KeptCountsDisagree";
  }
}

/**
 * Fails unless every kept count equals what its rows hold (zero-count score rows aside): called
 * at the end of tests that drive the writes behind them.
 */
export async function assertKeptCountsAgree(sql: Queryable): Promise<void> {
  const checks: Record<string, string> = {
    "communities.post_count": `
      select c.id, c.post_count as kept, (select count(*)::int from community_posts p
        where p.community_id = c.id) as actual from communities c`,
    feedback_post_counts: `
      select k.category || '/' || k.status as id, k.n as kept,
        (select count(*)::int from feedback_posts p where p.deleted_at is null
          and p.category = k.category and p.status = k.status) as actual
      from feedback_post_counts k
      union all
      select category || '/' || status, 0, count(*)::int from feedback_posts p
      where deleted_at is null and not exists (select 1 from feedback_post_counts k
        where k.category = p.category and k.status = p.status) group by category, status`,
    "ai_employees counts": `
      select e.id, array[e.approved_count, e.rejected_count, e.auto_rejected_count] as kept,
        array[
          (select count(*)::int from ai_artifacts a where a.employee_id = e.id
            and a.approval_status = 'approved' and not a.auto_approved),
          (select count(*)::int from ai_artifacts a where a.employee_id = e.id
            and a.approval_status = 'rejected'),
          (select count(*)::int from ai_artifacts a where a.employee_id = e.id
            and a.approval_status = 'auto_rejected')] as actual
      from ai_employees e`,
    notification_counts: `
      select u.id, array[coalesce(k.total, 0), coalesce(k.unread, 0)] as kept,
        array[(select count(*)::int from notifications n where n.user_id = u.id),
          (select count(*)::int from notifications n where n.user_id = u.id
            and n.acknowledged_at is null)] as actual
      from users u left join notification_counts k on k.user_id = u.id`,
    "dead jobs": `
      select name as id, sum(kept)::int as kept, sum(actual)::int as actual
      from (select substr(name, 6) as name, value as kept, 0 as actual from job_counters
            where name like 'dead:%'
            union all
            select name, 0, 1 from jobs where dead_at is not null) both_sides
      group by name`,
    ai_employee_weeks: `
      select employee_id || '@' || week_start as id,
        array[sum(k_approved), sum(k_rejected), sum(k_auto_rejected), sum(k_auto_approved)]::int[]
          as kept,
        array[sum(approved), sum(rejected), sum(auto_rejected), sum(auto_approved)]::int[]
          as actual
      from (select employee_id, week_start, approved as k_approved, rejected as k_rejected,
              auto_rejected as k_auto_rejected, auto_approved as k_auto_approved, 0 as approved,
              0 as rejected, 0 as auto_rejected, 0 as auto_approved
            from ai_employee_weeks
            union all
            select employee_id, date_trunc('week', created_at at time zone 'UTC')::date, 0, 0, 0,
              0, (approval_status = 'approved' and not auto_approved)::int,
              (approval_status = 'rejected')::int, (approval_status = 'auto_rejected')::int,
              (approval_status = 'approved' and auto_approved)::int
            from ai_artifacts) both_sides
      group by employee_id, week_start`,
    ai_employee_days: `
      select employee_id || '@' || day as id,
        array[sum(k_rejections)::float8, sum(k_spend)::float8] as kept,
        array[sum(rejections)::float8, sum(spend)::float8] as actual
      from (select employee_id, day, rejections as k_rejections, spend_usd as k_spend,
              0 as rejections, 0 as spend
            from ai_employee_days
            union all
            select employee_id, (reviewed_at at time zone 'UTC')::date, 0, 0, 1, 0
            from ai_artifacts where approval_status = 'rejected' and reviewed_at is not null
            union all
            select employee_id, (created_at at time zone 'UTC')::date, 0, 0, 0, cost_usd
            from ai_runs where cost_usd <> 0) both_sides
      group by employee_id, day`,
    challenge_score_counts: `
      select challenge_id || '@' || score as id, sum(kept)::int as kept,
        sum(actual)::int as actual
      from (select challenge_id, score, n as kept, 0 as actual from challenge_score_counts
            union all
            select challenge_id, score, 0, 1 from challenge_participants) both_sides
      group by challenge_id, score`,
  };
  const wrong: string[] = [];
  for (const [name, query] of Object.entries(checks)) {
    const rows = await sql.unsafe<{ id: string; kept: unknown; actual: unknown }[]>(query);
    for (const r of rows) {
      if (JSON.stringify(r.kept) !== JSON.stringify(r.actual)) {
        wrong.push(
          `${name} ${r.id}: kept ${JSON.stringify(r.kept)}, rows ${JSON.stringify(r.actual)}`,
        );
      }
    }
  }
  if (wrong.length) throw new KeptCountsDisagree(wrong);
}
