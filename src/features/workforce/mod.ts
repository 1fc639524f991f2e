/**
 * The AI workforce feature (issue 6): its GraphQL module, its result webhook, and its jobs,
 * schedules and event subscriber (registered on the job system when built).
 */
import type { FeatureDeps } from "../../app.ts";
import type { RouteHandler } from "../../http/router.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { workforceModule } from "./schema.ts";
import { createWorkforceService, type Workforce } from "./service.ts";
import { createResultWebhook } from "./webhook.ts";

export interface WorkforceFeature {
  module: GraphQLModule;
  /** `POST /webhooks/ai-workforce`. */
  webhook: RouteHandler;
  service: Workforce;
}

export function createWorkforce(deps: FeatureDeps): WorkforceFeature {
  const service = createWorkforceService(deps);
  return {
    module: workforceModule(deps, service),
    webhook: createResultWebhook({
      db: deps.db,
      tracker: deps.tracker,
      secret: deps.config.workforceWebhookSecret,
      workforce: service,
    }),
    service,
  };
}
