/**
 * The mood feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function moodPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const logs = await sql`
    select public_id as id, mood, note, tags, logged_at as "loggedAt", created_at as "createdAt"
    from mood_logs where user_id = ${userId} order by logged_at, id`;
      return { moodLogs: [...logs] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from mood_logs where user_id = ${userId}`;
    },
  };
}
