/**
 * The billing feature's part of owning one's data (docs/domain.md "Owning one's data"): its
 * sections of a user's export and the erasure of the user's data in its tables.
 */
import type { Queryable } from "../../platform/db.ts";
import type { PersonalData } from "../feature.ts";

export function billingPersonalData(sql: Queryable): PersonalData {
  return {
    async exportFor(userId) {
      const payments = await sql`
    select public_id as id, provider, event_type as "eventType", provider_product_id as product,
      plan, amount, currency, store, occurred_at as "occurredAt", outcome
    from payment_records where user_id = ${userId} order by occurred_at, id`;
      return { payments: [...payments] };
    },
    async eraseFor(tx, userId) {
      // Kept for bookkeeping (docs/billing.md), without the link to the person.
      await tx`update payment_records set user_id = null, app_user_id = null,
      raw_event = ${tx.json({ erased: true } as never)}
    where user_id = ${userId}`;
    },
  };
}
