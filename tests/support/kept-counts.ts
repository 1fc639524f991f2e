/**
 * Seeds that insert rows with SQL of their own, bypassing the stores, call this after: it sets
 * the counts the stores keep (migrations 0030 and 0032) to what the rows hold.
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
}
