/**
 * The partners feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function partnersPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      // Both tables pair a requester with an addressee; the export names the other side.
      const links = (table: "partnerships" | "ally_links") =>
        sql`
    select l.public_id as id, case when l.requester_id = ${userId} then 'sent' else 'received' end
      as direction, o.public_id as "otherUserId", l.status, l.created_at as "createdAt",
      l.ended_at as "endedAt"
    from ${sql(table)} l
    join users o on o.id = case when l.requester_id = ${userId} then l.addressee_id
      else l.requester_id end
    where ${userId} in (l.requester_id, l.addressee_id) order by l.created_at, l.id`;
      const [partnerships, allies] = [await links("partnerships"), await links("ally_links")];
      return { partnerships: [...partnerships], allies: [...allies] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from active_partners where user_id = ${userId} or partner_id = ${userId}`;
      await tx`delete from partnerships where ${userId} in (requester_id, addressee_id)`;
      await tx`delete from ally_links where ${userId} in (requester_id, addressee_id)`;
    },
  };
}
