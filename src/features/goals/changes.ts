/**
 * GraphQL for taking back and correcting what was recorded: `undoCheckIn`, `updateGoalEvent`,
 * `deleteGoalEvent`, `deleteGoal` (docs/domain.md, "Undo, edit and delete"). The resolvers adapt
 * their arguments to the use cases of `use-cases/changes.ts` (through `service.ts`).
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type { MutationResolvers } from "../../graphql/resolvers.gen.ts";
import type { GoalsErrorCode } from "./rules.ts";
import * as service from "./service.ts";
import type { GoalsDeps } from "./service.ts";
const typeDefs = /* GraphQL */ `
  type UndoCheckInPayload {
    "The check-in taken back, as it was."
    checkIn: CheckIn
    goal: Goal
    "Badges taken back: what is left no longer shows them earned."
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  type GoalEventPayload {
    "The event as it is now (updateGoalEvent) or as it was (deleteGoalEvent)."
    event: GoalEvent
    goal: Goal
    "True when the change brought the target to its value and completed it."
    goalCompleted: Boolean!
    "True when the change took a target completed by reaching its value back below it (active again)."
    goalReopened: Boolean!
    badgesEarned: [Badge!]!
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  type DeleteGoalPayload {
    "The deleted goal's id and its sub-goals' ids."
    deletedGoalIds: [ID!]!
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  extend type Mutation {
    "Takes back the check-in of a local day (default today); possible for the days checkInHabit accepts (the last 7 days)."
    undoCheckIn(goalId: String!, date: Date): UndoCheckInPayload!
    "Changes a progress event (absent arguments stay; a null or empty note clears it); possible while it is within the last 366 days."
    updateGoalEvent(eventId: String!, value: Float, note: String, occurredAt: DateTime): GoalEventPayload!
    "Deletes a progress event; possible while it is within the last 366 days."
    deleteGoalEvent(eventId: String!): GoalEventPayload!
    "Deletes a goal, its sub-goals and everything recorded on them, for good (archive to keep them)."
    deleteGoal(goalId: String!): DeleteGoalPayload!
  }
`;

export function goalChangesModule(deps: GoalsDeps): GraphQLModule {
  const Mutation: MutationResolvers = {
    undoCheckIn: (_, args, ctx) => service.undoCheckIn(deps, requireViewer(ctx), args),
    updateGoalEvent: (_, args, ctx) => service.updateGoalEvent(deps, requireViewer(ctx), args),
    deleteGoalEvent: (_, args, ctx) => service.deleteGoalEvent(deps, requireViewer(ctx), args),
    deleteGoal: (_, args, ctx) => service.deleteGoal(deps, requireViewer(ctx), args),
  };
  return {
    typeDefs,
    errorCodes: {
      undoCheckIn: ["invalid", "not_found", "not_allowed", "undo_expired"],
      updateGoalEvent: ["invalid", "not_found", "not_allowed", "undo_expired", "conflict"],
      deleteGoalEvent: ["not_found", "not_allowed", "undo_expired", "conflict"],
      deleteGoal: ["not_found"],
    } satisfies { [M in keyof MutationResolvers]?: GoalsErrorCode[] },
    resolvers: { Mutation },
  };
}
