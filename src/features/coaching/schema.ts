/**
 * GraphQL for AI coaching: `getInsight`, `getAdvice`, `generateMilestones`, `acceptMilestones`,
 * the viewer's `aiAvailability` and the admin's `aiFlags` / `setAiFlag`, adapted to the use cases
 * of `service.ts`.
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
    "What to reach, 1 to 120 characters."
    title: String!
    "The value to reach on the goal's scale (for a habit, a count of check-ins); null when the milestone is only a date."
    targetValue: Float
    "In the user's time zone."
    dueDate: Date
  }

  "The answer of generateMilestones."
  type GenerateMilestonesPayload {
    "Pass it to acceptMilestones to store the milestones as sub-goals."
    suggestionId: ID
    "1 to 8 proposed milestones in order, dates from today to the goal's due date; empty when refused."
    milestones: [Milestone!]!
    "Why no milestones were proposed; empty on success."
    errors: [UserError!]!
  }

  "The answer of acceptMilestones."
  type AcceptMilestonesPayload {
    "The sub-goals created, in the order of the milestones."
    goals: [Goal!]!
    "Why no sub-goal was created; empty on success."
    errors: [UserError!]!
  }

  "The AI coach's reading of a goal's progress; made for each call and not stored, except that a retry with the idempotency key answers the same one."
  type Insight {
    "The public id of the goal it is about."
    goalId: ID!
    "A short summary of the progress, at most 1200 characters."
    summary: String!
    "Up to 5 observations (patterns, streaks, links to mood), each at most 300 characters."
    highlights: [String!]!
    "When the model answered."
    generatedAt: DateTime!
  }

  "The answer of getInsight."
  type GetInsightPayload {
    "The insight; null when refused."
    insight: Insight
    "Why no insight was made; empty on success."
    errors: [UserError!]!
  }

  "The AI coach's answer to a question about a goal; made for each call and not stored, except that a retry with the idempotency key answers the same one."
  type Advice {
    "The public id of the goal it is about."
    goalId: ID!
    "The question as asked, trimmed."
    question: String!
    "The answer, at most 2000 characters."
    answer: String!
    "Up to 5 concrete next steps, each at most 300 characters."
    steps: [String!]!
    "When the model answered."
    generatedAt: DateTime!
  }

  "The answer of getAdvice."
  type GetAdvicePayload {
    "The advice; null when refused."
    advice: Advice
    "Why no advice was given; empty on success."
    errors: [UserError!]!
  }

  "The AI feature flags (spec 7)."
  enum AiFlagName {
    "The AI coach: getInsight, getAdvice and generateMilestones."
    coaching
    "AI moderation of what users post."
    moderation
    "Background AI work: asynchronous AI requests (aiRequest)."
    batch
  }

  "Where a flag's setting comes from."
  enum AiFlagSource {
    "An admin's override, set with setAiFlag."
    database
    "The AI_FLAGS setting of the service (no override)."
    environment
  }

  "An AI feature flag as calls see it."
  type AiFlag {
    "Which flag."
    name: AiFlagName!
    "On for calls: the setting, and an LLM is configured."
    enabled: Boolean!
    "The setting: the admin's override, else AI_FLAGS."
    configured: Boolean!
    "Where configured comes from."
    source: AiFlagSource!
  }

  "Why an AI feature is not available to the current user now."
  enum AiUnavailableReason {
    "No LLM proxy is configured on this service (LLM_BASE_URL unset): every AI feature is off."
    not_configured
    "The feature's AI flag is off (an admin's setting, else AI_FLAGS): a call answers AI_DISABLED."
    flag_off
    "The user reached the feature's per-minute limit: a call answers AI_RATE_LIMITED until retryAfter seconds have passed."
    rate_limited
  }

  "Whether one AI feature is available to the current user now."
  type AiFeatureAvailability {
    "True when a call now would not be refused with AI_DISABLED or AI_RATE_LIMITED."
    available: Boolean!
    "Why the feature is not available; null when it is."
    reason: AiUnavailableReason
    "Seconds until the feature is available again when reason is rate_limited; null otherwise."
    retryAfter: Int
  }

  "Which AI features are on for the current user, so an app can hide or disable them before the user taps."
  type AiAvailability {
    "The AI coach: getInsight and getAdvice (flag coaching; 10 calls per minute together)."
    coaching: AiFeatureAvailability!
    "AI milestones: generateMilestones (flag coaching; 5 calls per minute)."
    milestones: AiFeatureAvailability!
    """
    Moderation of what the user posts (flag moderation). With an LLM configured and the flag off,
    posting answers AI_DISABLED; without an LLM (not_configured) posts are accepted unchecked.
    """
    moderation: AiFeatureAvailability!
  }

  "The answer of setAiFlag."
  type SetAiFlagPayload {
    "The flag as calls see it now; null when refused."
    flag: AiFlag
    "Why the flag was not set; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "Admin: the AI feature flags."
    aiFlags: [AiFlag!]!
    "Which AI features the current user may use now (the flags and the user's rate limits; counts no call)."
    aiAvailability: AiAvailability!
  }

  extend type Mutation {
    "AI: an insight into a goal's progress, streaks and recent moods (10 per minute with advice). With the idempotency key a retry answers the same insight without asking the model again or counting against the limit."
    getInsight(
      "The public id of one of the current user's goals; another's is not_found."
      goalId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GetInsightPayload!
    "AI: advice on a question about a goal (1..500 characters). With the idempotency key a retry answers the same advice without asking the model again or counting against the limit."
    getAdvice(
      "The public id of one of the current user's goals; another's is not_found."
      goalId: String!
      "The question, 1 to 500 characters after trimming (else invalid)."
      question: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GetAdvicePayload!
    "AI: proposed milestones for a goal (5 per minute); nothing is stored until accepted. With the idempotency key a retry answers the same suggestion without asking the model again or counting against the limit."
    generateMilestones(
      "The public id of one of the current user's active goals; another's is not_found, a goal not active is not_allowed."
      goalId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GenerateMilestonesPayload!
    "Stores a suggestion's milestones (all, or those at the given 0-based indexes) as sub-goals. A suggestion is accepted once: a retry without the idempotency key answers already_accepted."
    acceptMilestones(
      "The suggestionId generateMilestones answered; another user's is not_found."
      suggestionId: String!
      "0-based indexes of the milestones to keep, at least one, without repeats; default all of them."
      indexes: [Int!]
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AcceptMilestonesPayload!
    "Admin: turns an AI feature flag on or off (overrides AI_FLAGS)."
    setAiFlag(
      "The flag to set."
      name: AiFlagName!
      "True to turn it on, false to turn it off; on takes effect only with an LLM configured."
      enabled: Boolean!
    ): SetAiFlagPayload!
  }
`;

export function coachingModule(deps: CoachingServiceDeps): GraphQLModule {
  const Query: QueryResolvers = {
    aiFlags: adminField(() => service.aiFlags(deps)),
    aiAvailability: viewerField((viewer) => service.aiAvailability(deps, viewer)),
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
      getInsight: ["not_found", "invalid", "idempotency_key_reused"],
      getAdvice: ["not_found", "invalid", "idempotency_key_reused"],
      generateMilestones: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
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
