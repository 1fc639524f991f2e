/**
 * The feed feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function feedPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const items = await sql`
    select public_id as id, kind, data, occurred_at as "occurredAt" from feed_items
    where user_id = ${userId} order by occurred_at, id`;
      const follows = await sql`
    select audience, created_at as "createdAt" from feed_follows where user_id = ${userId}`;
      return { feedItems: [...items], follows: [...follows] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from feed_items where user_id = ${userId}`;
      await tx`delete from feed_follows where user_id = ${userId}`;
    },
  };
}
