/**
 * `POST /webhooks/billing-provider` (spec 4.7, DESIGN 3.5): checks the provider's authorization,
 * parses the event and answers what the service's `recordBillingEvent` did with it.
 */
import type { Config } from "../../config.ts";
import type { ErrorTracker } from "../../platform/errors.ts";
import { secretsMatch } from "../../platform/hmac.ts";
import { errorResponse, parseJson } from "../../platform/contract/mod.ts";
import type { RouteHandler } from "../../http/router.ts";
import { json } from "../../http/router.ts";
import { parseBillingEvent } from "./rules.ts";
import { type BillingServiceDeps, recordBillingEvent } from "./service.ts";

export interface BillingWebhookDeps extends BillingServiceDeps {
  config: Pick<Config, "billingWebhookSecret" | "billingEnvironment">;
  tracker: ErrorTracker;
}

export function billingWebhook(deps: BillingWebhookDeps): RouteHandler {
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

    const { record, subject, outcome } = await recordBillingEvent(deps, event);
    const { user } = subject;

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
