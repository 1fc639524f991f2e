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
  enum AiRequestStatus {
    queued
    running
    succeeded
    failed
  }

  "An asynchronous AI request: processed by a background job, streamed by aiRequestUpdate."
  type AiRequest {
    id: ID!
    status: AiRequestStatus!
    "The result, once succeeded."
    resultJson: JSON
    "Set when failed, e.g. AI_DISABLED."
    errorCode: String
    errorMessage: String
  }

  extend type Query {
    "One of the current user's AI requests (to recover after a reconnect); null when there is none with this id."
    aiRequest(id: String!): AiRequest
  }

  extend type Subscription {
    "The request's current state, then each change, ending after succeeded or failed."
    aiRequestUpdate(requestId: String): AiRequest!
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
