/** SQL for payment records. */
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { BillingEvent, PaymentOutcome, PlanSlug } from "./rules.ts";

export interface PaymentRecordRow {
  id: string;
  publicId: string;
  outcome: PaymentOutcome;
}

/**
 * Records the event once per (provider, provider_event_id): a replay, also one racing the first
 * delivery, inserts nothing and gets null (the unique key makes the second insert wait for the
 * first transaction and then skip).
 */
export async function recordPayment(
  sql: Queryable,
  input: {
    provider: string;
    event: BillingEvent;
    plan: PlanSlug | null;
    userId: string | null;
    outcome: PaymentOutcome;
  },
): Promise<PaymentRecordRow | null> {
  const e = input.event;
  return await maybeOne(sql<PaymentRecordRow[]>`
    insert into payment_records (public_id, provider, provider_event_id, event_type,
      provider_product_id, plan, user_id, app_user_id, amount, currency, store, environment,
      occurred_at, outcome, raw_event)
    values (${publicId()}, ${input.provider}, ${e.id}, ${e.type}, ${e.productId}, ${input.plan},
      ${input.userId}, ${e.appUserId}, ${e.price}, ${e.currency}, ${e.store}, ${e.environment},
      ${e.occurredAt}, ${input.outcome}, ${sql.json(e.raw as never)})
    on conflict (provider, provider_event_id) do nothing
    returning id, public_id as "publicId", outcome`);
}
