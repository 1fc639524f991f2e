/**
 * The badges feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function badgesPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const rows = await sql`
    select public_id as id, code, earned_at as "earnedAt" from user_badges
    where user_id = ${userId} order by earned_at, id`;
      return { badges: [...rows] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from user_badges where user_id = ${userId}`;
    },
  };
}
