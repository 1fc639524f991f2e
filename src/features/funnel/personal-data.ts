/**
 * The funnel feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function funnelPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const steps = await sql`
    select step, reached_at as "reachedAt" from activation_steps
    where user_id = ${userId} order by reached_at`;
      return { activationSteps: [...steps] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from activation_steps where user_id = ${userId}`;
    },
  };
}
