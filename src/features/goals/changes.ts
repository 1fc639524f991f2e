/**
 * GraphQL for taking back and correcting what was recorded: `undoCheckIn`, `updateGoalEvent`,
 * `deleteGoalEvent`, `deleteGoal` (docs/domain.md, "Undo, edit and delete"). The resolvers adapt
 * their arguments to the use cases of `use-cases/changes.ts` (through `service.ts`).
 */
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import * as service from "./service.ts";
import type { EventArgs, GoalsDeps } from "./service.ts";

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
  return {
    typeDefs,
    resolvers: {
      Mutation: {
        undoCheckIn: (
          _: unknown,
          args: { goalId: string; date?: string | null },
          ctx: GraphQLContext,
        ) => service.undoCheckIn(deps, requireViewer(ctx), args),
        updateGoalEvent: (_: unknown, args: EventArgs, ctx: GraphQLContext) =>
          service.updateGoalEvent(deps, requireViewer(ctx), args),
        deleteGoalEvent: (_: unknown, args: { eventId: string }, ctx: GraphQLContext) =>
          service.deleteGoalEvent(deps, requireViewer(ctx), args),
        deleteGoal: (_: unknown, args: { goalId: string }, ctx: GraphQLContext) =>
          service.deleteGoal(deps, requireViewer(ctx), args),
      },
    },
  };
}
