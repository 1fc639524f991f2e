/**
 * The billing use cases: recording a provider event once (and publishing
 * `billing.payment_processed` for the ones that change a supporter tier), and applying a
 * processed payment to the user's tier (lifetime is never replaced or revoked). The only billing
 * code that opens transactions, publishes events and calls the users feature.
 */
import type { Config } from "../../config.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db.ts";
import type { Logger } from "../../platform/log.ts";
import type { EventPublisher, PaymentProcessed } from "../events.ts";
import type { UserRow, UsersApi } from "../users/mod.ts";
import {
  ANONYMOUS_PREFIX,
  bestPlan,
  BILLING_PROVIDER,
  type BillingEvent,
  firstKnown,
  LIFETIME,
  type PaymentOutcome,
  paymentOutcome,
  planForProduct,
  planHeld,
  type PlanSlug,
  sameEnvironment,
  type TierAction,
  tierAction,
  tierChange,
  userIdCandidates,
} from "./rules.ts";
import * as store from "./store.ts";
import type { PaymentRecordRow } from "./store.ts";

export interface BillingServiceDeps {
  config: Pick<Config, "billingEnvironment">;
  db: Database;
  clock: Clock;
  events: EventPublisher;
  users: Pick<
    UsersApi,
    "userByPublicId" | "usersByPublicIds" | "setSupporterTier" | "replaceSupporterTier"
  >;
}

// ---- recording provider events ----

/** Who an event is about, and the plan it concerns. */
export interface Subject {
  user: UserRow | null;
  plan: PlanSlug | null;
  /** TRANSFER: our users the purchases moved away from. */
  sources: UserRow[];
  /** The app user id recorded (for a TRANSFER, its destination). */
  appUserId: string | null;
  /** More than one of our users matched the event's ids (the first one is used). */
  ambiguous: boolean;
}

async function usersNamed(
  deps: Pick<BillingServiceDeps, "users">,
  ids: string[],
): Promise<Map<string, UserRow>> {
  const found = ids.length ? await deps.users.usersByPublicIds(ids) : [];
  return new Map(found.map((u) => [u.publicId, u]));
}

/** A purchase event's user: the first of app_user_id, original_app_user_id, aliases we know. */
async function purchaseSubject(
  deps: Pick<BillingServiceDeps, "users">,
  event: BillingEvent,
): Promise<Subject> {
  const candidates = userIdCandidates(event);
  const known = await usersNamed(deps, candidates);
  return {
    user: firstKnown(candidates, known),
    plan: planForProduct(event.productId),
    sources: [],
    appUserId: event.appUserId,
    ambiguous: new Set([...known.values()].map((u) => u.id)).size > 1,
  };
}

/**
 * A TRANSFER's destination (the first of `transferred_to` we know) and what it moves: the best
 * tier held by the sources we know, or by purchases recorded under source ids we do not know
 * (bought before sign-in).
 */
async function transferSubject(
  deps: Pick<BillingServiceDeps, "users" | "db" | "clock">,
  event: BillingEvent,
): Promise<Subject> {
  const to = event.transferredTo.filter((id) => !id.startsWith(ANONYMOUS_PREFIX));
  const from = event.transferredFrom;
  const known = await usersNamed(deps, [...to, ...from]);
  const user = firstKnown(to, known);
  const sources = [...new Set(from.map((id) => known.get(id)).filter((u) => u && u !== user))]
    .filter((u): u is UserRow => u !== undefined);
  const strangers = from.filter((id) => !known.has(id));
  const boughtUnsigned = planHeld(
    await store.historyOfAppUsers(deps.db.sql, strangers),
    deps.clock.now().getTime(),
  );
  return {
    user,
    plan: bestPlan([...sources.map((u) => u.supporterTier), boughtUnsigned]),
    sources,
    appUserId: event.transferredTo[0] ?? null,
    ambiguous: false,
  };
}

export interface RecordedEvent {
  /** The record written; null when the event was recorded before (a replay). */
  record: PaymentRecordRow | null;
  subject: Subject;
  action: TierAction;
  outcome: PaymentOutcome;
}

/** Records a provider event once; a processed one that changes a tier publishes the payment. */
export async function recordBillingEvent(
  deps: BillingServiceDeps,
  event: BillingEvent,
): Promise<RecordedEvent> {
  const action = tierAction(event.type, planForProduct(event.productId));
  const subject = action === "transfer"
    ? await transferSubject(deps, event)
    : await purchaseSubject(deps, event);
  const { user, plan } = subject;
  const environmentMatches = sameEnvironment(event.environment, deps.config.billingEnvironment);
  const outcome = paymentOutcome(action, plan, user !== null, environmentMatches);

  const record = await deps.db.sql.begin(async (tx) => {
    const row = await store.recordPayment(tx, {
      provider: BILLING_PROVIDER,
      event,
      plan,
      userId: user?.id ?? null,
      appUserId: subject.appUserId,
      outcome,
    });
    if (row && outcome === "processed" && action !== "none") {
      await deps.events.publish(tx, "billing.payment_processed", {
        paymentId: row.publicId,
        provider: BILLING_PROVIDER,
        userPublicId: user!.publicId,
        plan: plan!,
        action,
        ...(action === "transfer"
          ? { fromUserPublicIds: subject.sources.map((u) => u.publicId) }
          : {}),
      });
    }
    return row;
  });
  return { record, subject, action, outcome };
}

// ---- applying payments to tiers ----

/** Grant or revoke: one guarded update (lifetime is never replaced or revoked by these). */
async function grantOrRevoke(
  deps: Pick<BillingServiceDeps, "users">,
  user: UserRow,
  payment: PaymentProcessed & { action: "grant" | "revoke" },
) {
  const change = tierChange(payment.action, payment.plan);
  return change
    ? await deps.users.setSupporterTier(user.id, change.tier, change.unlessTier)
    : false;
}

/** A lifetime refund: the tier falls back to what the user's other purchases still give. */
async function refundLifetime(deps: BillingServiceDeps, user: UserRow): Promise<boolean> {
  const fallback = planHeld(
    await store.historyOfUser(deps.db.sql, user.id),
    deps.clock.now().getTime(),
  );
  if (fallback === LIFETIME) return false;
  return await deps.users.replaceSupporterTier(user.id, LIFETIME, fallback);
}

/** A transfer: the sources lose their tier, the destination gains the plan moved. */
async function transferTier(
  deps: BillingServiceDeps,
  log: Logger,
  user: UserRow,
  payment: PaymentProcessed,
): Promise<boolean> {
  const sources = await deps.users.usersByPublicIds(payment.fromUserPublicIds ?? []);
  for (const source of sources) {
    if (source.supporterTier === null) continue;
    const cleared = await deps.users.replaceSupporterTier(source.id, source.supporterTier, null);
    log.info("supporter tier transferred away", {
      payment_id: payment.paymentId,
      user_id: source.publicId,
      cleared,
    });
  }
  return await grantOrRevoke(deps, user, { ...payment, action: "grant" });
}

/** Applies a processed payment to the tier; a user that is gone is logged and dropped. */
export async function applyPaymentToTier(
  deps: BillingServiceDeps & { log: Logger },
  payment: PaymentProcessed,
): Promise<void> {
  const { log } = deps;
  const user = await deps.users.userByPublicId(payment.userPublicId);
  if (!user) {
    log.warn("billing.payment_processed for a user that no longer exists", {
      payment_id: payment.paymentId,
    });
    return;
  }
  const { action } = payment;
  const changed = action === "refund"
    ? await refundLifetime(deps, user)
    : action === "transfer"
    ? await transferTier(deps, log, user, payment)
    : await grantOrRevoke(deps, user, { ...payment, action });
  log.info("supporter tier updated", {
    payment_id: payment.paymentId,
    user_id: user.publicId,
    action,
    plan: payment.plan,
    changed,
  });
}
