/**
 * The feedback feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function feedbackPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const posts = await sql`
    select public_id as id, title, description, category, status, created_at as "createdAt",
      deleted_at as "deletedAt"
    from feedback_posts where author_id = ${userId} order by created_at, id`;
      const comments = await sql`
    select c.public_id as id, p.public_id as "postId", c.body, c.created_at as "createdAt"
    from feedback_comments c join feedback_posts p on p.id = c.post_id
    where c.author_id = ${userId} order by c.created_at, c.id`;
      const votes = await sql`
    select p.public_id as "postId", v.created_at as "createdAt"
    from feedback_votes v join feedback_posts p on p.id = v.post_id
    where v.user_id = ${userId} order by v.created_at`;
      return { posts: [...posts], comments: [...comments], votes: [...votes] };
    },
    async eraseFor(tx, userId, at) {
      // Posts and comments stay (others voted and answered) with their text removed.
      await tx`
    with erased as (
      update feedback_posts p set title = '[deleted]', description = '',
        deleted_at = coalesce(p.deleted_at, ${at})
      from (select id, deleted_at is null as live from feedback_posts
            where author_id = ${userId} for update) before
      where p.id = before.id
      returning p.category, p.status, before.live
    )
    update feedback_post_counts c set n = c.n - e.n
    from (select category, status, count(*)::int as n from erased where live
          group by category, status) e
    where c.category = e.category and c.status = e.status`;
      await tx`update feedback_comments set body = '[deleted]' where author_id = ${userId}`;
    },
  };
}
