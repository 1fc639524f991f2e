/** SQL for payment records. */
import { maybeOne, type Queryable } from "../../platform/db.ts";
import { publicId } from "../../platform/ids.ts";
import type { BillingEvent, HeldRecord, PaymentOutcome, PlanSlug } from "./rules.ts";

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
    /** The app user id the event names (for a TRANSFER, its destination). */
    appUserId: string | null;
    outcome: PaymentOutcome;
  },
): Promise<PaymentRecordRow | null> {
  const e = input.event;
  return await maybeOne(sql<PaymentRecordRow[]>`
    insert into payment_records (public_id, provider, provider_event_id, event_type,
      provider_product_id, plan, user_id, app_user_id, amount, amount_usd, currency, store,
      environment, occurred_at, outcome, raw_event)
    values (${publicId()}, ${input.provider}, ${e.id}, ${e.type}, ${e.productId}, ${input.plan},
      ${input.userId}, ${input.appUserId}, ${e.amount}, ${e.amountUsd}, ${e.currency}, ${e.store},
      ${e.environment}, ${e.occurredAt}, ${input.outcome}, ${sql.json(e.raw as never)})
    on conflict (provider, provider_event_id) do nothing
    returning id, public_id as "publicId", outcome`);
}

const MAX_HISTORY = 500;

const heldColumns = (sql: Queryable) =>
  sql`event_type as "eventType", plan, raw_event -> 'event' -> 'expiration_at_ms' as "expiresAtMs"`;

/** A user's processed events, oldest first (what {@link planHeld} reads). */
export async function historyOfUser(sql: Queryable, userId: string): Promise<HeldRecord[]> {
  return await sql<HeldRecord[]>`
    select * from (
      select ${heldColumns(sql)}, occurred_at, id from payment_records
      where user_id = ${userId} and outcome = 'processed'
      order by occurred_at desc nulls last, id desc limit ${MAX_HISTORY}
    ) latest order by occurred_at nulls first, id`;
}

/**
 * Events recorded under app user ids that named none of our users (a purchase made before
 * sign-in), oldest first: what a TRANSFER from those ids moves.
 */
export async function historyOfAppUsers(
  sql: Queryable,
  appUserIds: string[],
): Promise<HeldRecord[]> {
  if (appUserIds.length === 0) return [];
  return await sql<HeldRecord[]>`
    select * from (
      select ${heldColumns(sql)}, occurred_at, id from payment_records
      where app_user_id = any(${appUserIds}) and outcome = 'unknown_user'
      order by occurred_at desc nulls last, id desc limit ${MAX_HISTORY}
    ) latest order by occurred_at nulls first, id`;
}
