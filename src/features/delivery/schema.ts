/**
 * GraphQL for delivery: `retryAiArtifactDelivery(artifactId)` (admin, issue 7) re-queues a failed
 * delivery. It returns the workforce's `AiArtifactPayload`; the artifact's delivery fields
 * (`deliveredAt`, `deliveryStatus`, `deliveryMetadata`) are resolved by the workforce module.
 */
import type { FeatureDeps } from "../../app.ts";
import { type GraphQLContext, requireAdmin } from "../../graphql/context.ts";
import { notFound } from "../../graphql/errors.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { artifactByPublicId } from "../workforce/store.ts";
import type { Delivery } from "./service.ts";

const typeDefs = /* GraphQL */ `
  extend type Mutation {
    "Admin: queues a failed delivery of an approved artifact again (spec 3.3)."
    retryAiArtifactDelivery(artifactId: String!): AiArtifactPayload!
  }
`;

export function deliveryModule(deps: FeatureDeps, delivery: Delivery): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      Mutation: {
        retryAiArtifactDelivery: async (
          _: unknown,
          args: { artifactId: string },
          ctx: GraphQLContext,
        ) => {
          requireAdmin(ctx);
          const artifact = looksLikePublicId(args.artifactId)
            ? await artifactByPublicId(sql, args.artifactId)
            : null;
          if (!artifact) throw notFound("AI artifact");
          return await delivery.retry(artifact);
        },
      },
    },
  };
}
