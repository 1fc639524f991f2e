/**
 * GraphQL for async AI requests (spec 2.5, 4.2, 4.3): `aiRequest(id)` for reconnect recovery and
 * `aiRequestUpdate(requestId)`, which sends the request's current state first, then each newer
 * state, and ends after `succeeded` or `failed`. Both are for the request's owner only.
 */
import { viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { QueryResolvers, SubscriptionResolvers } from "../../graphql/resolvers.gen.ts";
import type { AiRequestView } from "./rules.ts";
import * as service from "./service.ts";
import type { AiRequestDeps } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "Where an AI request stands; it only moves forward, and succeeded and failed are final."
  enum AiRequestStatus {
    "Waiting for a background worker."
    queued
    "A worker is processing it."
    running
    "Done; resultJson holds the result."
    succeeded
    "Ended without a result; errorCode and errorMessage say why."
    failed
  }

  "An asynchronous AI request: processed by a background job, streamed by aiRequestUpdate."
  type AiRequest {
    "The request's public id (the argument of aiRequest and aiRequestUpdate)."
    id: ID!
    "Where the request stands."
    status: AiRequestStatus!
    "The result, once succeeded."
    resultJson: JSON
    "Set when failed, e.g. AI_DISABLED (no AI configured, or the batch flag off) or INTERNAL."
    errorCode: String
    "For people, set when failed; may change between releases."
    errorMessage: String
  }

  extend type Query {
    "One of the current user's AI requests (to recover after a reconnect); null when there is none with this id."
    aiRequest(
      "The request's public id."
      id: String!
    ): AiRequest
  }

  extend type Subscription {
    "The request's current state, then each change, ending after succeeded or failed."
    aiRequestUpdate(
      "The public id of one of the current user's requests; required (BAD_USER_INPUT when missing), another's is NOT_FOUND."
      requestId: String
    ): AiRequest!
  }
`;

export function aiRequestsModule(deps: Pick<AiRequestDeps, "db" | "pubsub">): GraphQLModule {
  const Query: QueryResolvers = {
    aiRequest: viewerField((viewer, args) => service.ownRequest(deps, viewer, args.id)),
  };

  const Subscription: SubscriptionResolvers = {
    aiRequestUpdate: {
      subscribe: viewerField((viewer, args) => service.requestUpdates(deps, viewer, args)),
      resolve: (event: AiRequestView) => event,
    },
  };

  return { typeDefs, resolvers: { Query, Subscription } };
}
