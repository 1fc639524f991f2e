/**
 * The partners feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function partnersPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const partnerships = await sql`
    select p.public_id as id, case when p.requester_id = ${userId} then 'sent' else 'received' end
      as direction, o.public_id as "otherUserId", p.status, p.created_at as "createdAt",
      p.ended_at as "endedAt"
    from partnerships p
    join users o on o.id = case when p.requester_id = ${userId} then p.addressee_id
      else p.requester_id end
    where ${userId} in (p.requester_id, p.addressee_id) order by p.created_at, p.id`;
      const allies = await sql`
    select a.public_id as id, case when a.requester_id = ${userId} then 'sent' else 'received' end
      as direction, o.public_id as "otherUserId", a.status, a.created_at as "createdAt",
      a.ended_at as "endedAt"
    from ally_links a
    join users o on o.id = case when a.requester_id = ${userId} then a.addressee_id
      else a.requester_id end
    where ${userId} in (a.requester_id, a.addressee_id) order by a.created_at, a.id`;
      return { partnerships: [...partnerships], allies: [...allies] };
    },
    async eraseFor(tx, userId) {
      await tx`delete from active_partners where user_id = ${userId} or partner_id = ${userId}`;
      await tx`delete from partnerships where ${userId} in (requester_id, addressee_id)`;
      await tx`delete from ally_links where ${userId} in (requester_id, addressee_id)`;
    },
  };
}
