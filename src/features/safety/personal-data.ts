/**
 * The safety feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function safetyPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const reports = await sql`
    select r.public_id as id, u.public_id as "reportedUserId", r.post_public_id as "postId",
      r.reason, r.details, r.status, r.created_at as "createdAt"
    from user_reports r join users u on u.id = r.reported_user_id
    where r.reporter_id = ${userId} order by r.created_at, r.id`;
      return { reportsFiled: [...reports] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from user_reports where reporter_id = ${userId}`;
      // Reports about the user stay for the moderation record, without the copy of the post.
      await tx`update user_reports set post_body = null where reported_user_id = ${userId}`;
    },
  };
}
