/**
 * Delivery of approved AI artifacts (issue 7): registers the handler of
 * `ai_workforce.deliver_artifact` on the job system and contributes `retryAiArtifactDelivery`.
 * See docs/delivery.md.
 */
import type { FeatureDeps } from "../../app.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { Adapters } from "./adapters.ts";
import { createDeliveryService, type Delivery } from "./service.ts";
import { deliveryModule } from "./schema.ts";

export interface DeliveryFeature {
  module: GraphQLModule;
  service: Delivery;
}

export function createDelivery(deps: FeatureDeps, adapters?: Adapters): DeliveryFeature {
  const service = createDeliveryService(deps, adapters);
  return { module: deliveryModule(deps, service), service };
}
