/**
 * GraphQL for AI coaching: `getInsight`, `getAdvice`, `generateMilestones`, `acceptMilestones`
 * and the admin's `aiFlags` / `setAiFlag`, adapted to the use cases of `service.ts`.
 */
import { adminField, viewerField } from "../../graphql/context.ts";
import { type GraphQLModule, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";
import type { MutationResolvers, QueryResolvers } from "../../graphql/resolvers.gen.ts";
import type { CoachingErrorCode } from "./rules.ts";
import * as service from "./service.ts";
import type { CoachingServiceDeps } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "A milestone the AI coach proposes: a target value on the goal's scale, a date, or both."
  type Milestone {
    title: String!
    targetValue: Float
    "In the user's time zone."
    dueDate: Date
  }

  type GenerateMilestonesPayload {
    "Pass it to acceptMilestones to store the milestones as sub-goals."
    suggestionId: ID
    milestones: [Milestone!]!
    errors: [UserError!]!
  }

  type AcceptMilestonesPayload {
    "The sub-goals created, in the order of the milestones."
    goals: [Goal!]!
    errors: [UserError!]!
  }

  type Insight {
    goalId: ID!
    summary: String!
    highlights: [String!]!
    generatedAt: DateTime!
  }

  type GetInsightPayload {
    insight: Insight
    errors: [UserError!]!
  }

  type Advice {
    goalId: ID!
    question: String!
    answer: String!
    steps: [String!]!
    generatedAt: DateTime!
  }

  type GetAdvicePayload {
    advice: Advice
    errors: [UserError!]!
  }

  "The AI feature flags (spec 7)."
  enum AiFlagName { coaching moderation batch }

  "database: an admin's override. environment: AI_FLAGS."
  enum AiFlagSource { database environment }

  "An AI feature flag as calls see it."
  type AiFlag {
    name: AiFlagName!
    "On for calls: the setting, and an LLM is configured."
    enabled: Boolean!
    "The setting: the admin's override, else AI_FLAGS."
    configured: Boolean!
    source: AiFlagSource!
  }

  type SetAiFlagPayload {
    flag: AiFlag
    errors: [UserError!]!
  }

  extend type Query {
    "Admin: the AI feature flags."
    aiFlags: [AiFlag!]!
  }

  extend type Mutation {
    "AI: an insight into a goal's progress, streaks and recent moods (10 per minute with advice)."
    getInsight(goalId: String!): GetInsightPayload!
    "AI: advice on a question about a goal (1..500 characters)."
    getAdvice(goalId: String!, question: String!): GetAdvicePayload!
    "AI: proposed milestones for a goal (5 per minute); nothing is stored until accepted."
    generateMilestones(goalId: String!): GenerateMilestonesPayload!
    "Stores a suggestion's milestones (all, or those at the given 0-based indexes) as sub-goals. A suggestion is accepted once: a retry without the idempotency key answers already_accepted."
    acceptMilestones(
      suggestionId: String!
      indexes: [Int!]
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AcceptMilestonesPayload!
    "Admin: turns an AI feature flag on or off (overrides AI_FLAGS)."
    setAiFlag(name: AiFlagName!, enabled: Boolean!): SetAiFlagPayload!
  }
`;

export function coachingModule(deps: CoachingServiceDeps): GraphQLModule {
  const Query: QueryResolvers = {
    aiFlags: adminField(() => service.aiFlags(deps)),
  };
  const Mutation: MutationResolvers = {
    getInsight: viewerField((viewer, args, ctx) => service.getInsight(deps, viewer, args, ctx.log)),
    getAdvice: viewerField((viewer, args, ctx) => service.getAdvice(deps, viewer, args, ctx.log)),
    generateMilestones: viewerField((viewer, args, ctx) =>
      service.generateMilestones(deps, viewer, args, ctx.log)
    ),
    acceptMilestones: viewerField((viewer, args) => service.acceptMilestones(deps, viewer, args)),
    setAiFlag: adminField((admin, args) => service.setAiFlag(deps, admin, args)),
  };
  return {
    typeDefs,
    errorCodes: {
      getInsight: ["not_found"],
      getAdvice: ["not_found", "invalid"],
      generateMilestones: ["not_found", "not_allowed"],
      acceptMilestones: [
        "not_found",
        "invalid",
        "not_allowed",
        "already_accepted",
        "idempotency_key_reused",
      ],
      setAiFlag: ["invalid"],
    } satisfies { [M in keyof MutationResolvers]?: CoachingErrorCode[] },
    resolvers: { Query, Mutation },
  };
}
