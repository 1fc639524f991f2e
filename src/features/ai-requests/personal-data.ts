/**
 * The ai-requests feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function aiRequestsPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const rows = await sql`
    select public_id as id, kind, input, status, result_json as result,
      created_at as "createdAt", finished_at as "finishedAt"
    from ai_requests where user_id = ${userId} order by created_at, id`;
      return { aiRequests: [...rows] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from ai_requests where user_id = ${userId}`;
    },
  };
}
