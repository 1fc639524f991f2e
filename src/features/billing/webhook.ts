/**
 * `POST /webhooks/billing-provider` (spec 4.7, DESIGN 3.5): records each provider event once and
 * publishes `billing.payment_processed` for the ones that change a supporter tier.
 */
import type { Config } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { secretsMatch } from "../../platform/hmac.ts";
import { errorResponse, parseJson } from "../../platform/contract/mod.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import type { EventPublisher } from "../events.ts";
import type { Clock } from "../../platform/clock.ts";
import type { UserRow, UsersApi } from "../users/mod.ts";
import {
  ANONYMOUS_PREFIX,
  bestPlan,
  BILLING_PROVIDER,
  type BillingEvent,
  firstKnown,
  parseBillingEvent,
  paymentOutcome,
  planForProduct,
  planHeld,
  type PlanSlug,
  sameEnvironment,
  tierAction,
  userIdCandidates,
} from "./rules.ts";
import { historyOfAppUsers, recordPayment } from "./store.ts";

export interface BillingWebhookDeps {
  config: Pick<Config, "billingWebhookSecret" | "billingEnvironment">;
  db: Database;
  clock: Clock;
  tracker: ErrorTracker;
  events: EventPublisher;
  users: Pick<UsersApi, "usersByPublicIds">;
}

/** Who an event is about, and the plan it concerns. */
interface Subject {
  user: UserRow | null;
  plan: PlanSlug | null;
  /** TRANSFER: our users the purchases moved away from. */
  sources: UserRow[];
  /** The app user id recorded (for a TRANSFER, its destination). */
  appUserId: string | null;
  /** More than one of our users matched the event's ids (the first one is used). */
  ambiguous: boolean;
}

export function billingWebhook(deps: BillingWebhookDeps): RouteHandler {
  const sql = deps.db.sql;

  async function usersNamed(ids: string[]): Promise<Map<string, UserRow>> {
    const found = ids.length ? await deps.users.usersByPublicIds(ids) : [];
    return new Map(found.map((u) => [u.publicId, u]));
  }

  /** A purchase event's user: the first of app_user_id, original_app_user_id, aliases we know. */
  async function purchaseSubject(event: BillingEvent): Promise<Subject> {
    const candidates = userIdCandidates(event);
    const known = await usersNamed(candidates);
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
  async function transferSubject(event: BillingEvent): Promise<Subject> {
    const to = event.transferredTo.filter((id) => !id.startsWith(ANONYMOUS_PREFIX));
    const from = event.transferredFrom;
    const known = await usersNamed([...to, ...from]);
    const user = firstKnown(to, known);
    const sources = [...new Set(from.map((id) => known.get(id)).filter((u) => u && u !== user))]
      .filter((u): u is UserRow => u !== undefined);
    const strangers = from.filter((id) => !known.has(id));
    const boughtUnsigned = planHeld(
      await historyOfAppUsers(sql, strangers),
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

  return async (req, ctx) => {
    const authorization = req.headers.get("authorization");
    if (!await secretsMatch(deps.config.billingWebhookSecret, authorization)) {
      const reason = !deps.config.billingWebhookSecret
        ? "secret unset"
        : authorization === null
        ? "missing"
        : "mismatch";
      deps.tracker.captureWarning("billing webhook authorization rejected", {
        request_id: ctx.requestId,
        path: "/webhooks/billing-provider",
        reason,
      });
      return errorResponse("unauthorized", "missing or wrong Authorization");
    }
    const parsed = parseJson(ctx.rawBody);
    if (!parsed.ok) return errorResponse("malformed_json", parsed.reason);
    const event = parseBillingEvent(parsed.value);
    if (typeof event === "string") return errorResponse("invalid_body", event);

    const action = tierAction(event.type, planForProduct(event.productId));
    const subject = action === "transfer"
      ? await transferSubject(event)
      : await purchaseSubject(event);
    const { user, plan } = subject;
    const environmentMatches = sameEnvironment(event.environment, deps.config.billingEnvironment);
    const outcome = paymentOutcome(action, plan, user !== null, environmentMatches);

    const record = await sql.begin(async (tx) => {
      const row = await recordPayment(tx, {
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

    if (!record) {
      ctx.log.info("billing event replayed", { provider_event_id: event.id });
      return json({ status: "duplicate", provider_event_id: event.id });
    }
    if (subject.ambiguous) {
      ctx.log.warn("billing event ids name several users; the first found was used", {
        provider_event_id: event.id,
        user_id: user?.publicId,
      });
    }
    if (outcome === "other_environment") {
      ctx.log.info("billing event from another store environment: recorded, no tier change", {
        provider_event_id: event.id,
        environment: event.environment,
        backend_environment: deps.config.billingEnvironment,
      });
    }
    if (outcome === "unknown_user" || outcome === "unknown_product") {
      deps.tracker.captureWarning(`billing event recorded with ${outcome.replace("_", " ")}`, {
        request_id: ctx.requestId,
        provider_event_id: event.id,
        event_type: event.type,
        product_id: event.productId,
        app_user_id: subject.appUserId,
      });
    }
    return json({ status: "recorded", outcome, provider_event_id: event.id });
  };
}
