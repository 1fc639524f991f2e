/**
 * GraphQL for taking back and correcting what was recorded: `undoCheckIn`, `updateGoalEvent`,
 * `deleteGoalEvent`, `deleteGoal` (docs/domain.md, "Undo, edit and delete"). The resolvers adapt
 * their arguments to the use cases of `use-cases/changes.ts` (through `service.ts`).
 */
import { requireViewer } from "../../graphql/context.ts";
import {
  type GraphQLModule,
  IDEMPOTENCY_KEY_ARGUMENT,
  payloadFlags,
} from "../../graphql/module.ts";
import type { MutationResolvers } from "../../graphql/resolvers.gen.ts";
import type { GoalsErrorCode } from "./rules.ts";
import * as service from "./service.ts";
import type { GoalsDeps } from "./service.ts";
const typeDefs = /* GraphQL */ `
  "The answer of undoCheckIn."
  type UndoCheckInPayload {
    "The check-in taken back, as it was; null when refused or when the day had no check-in (alreadyUndone)."
    checkIn: CheckIn
    "The habit without the check-in; null when the request was refused."
    goal: Goal
    "Badges taken back: what is left no longer shows them earned."
    badgesRevoked: [Badge!]!
    "True when the day had no check-in (undone already, e.g. a retry); nothing changed."
    alreadyUndone: Boolean!
    errors: [UserError!]!
  }

  "The answer of updateGoalEvent and deleteGoalEvent."
  type GoalEventPayload {
    "The event as it is now (updateGoalEvent) or as it was (deleteGoalEvent)."
    event: GoalEvent
    "The target as it is after the change; null when the request was refused."
    goal: Goal
    "True when the change brought the target to its value and completed it."
    goalCompleted: Boolean!
    "True when the change took a target completed by reaching its value back below it (active again)."
    goalReopened: Boolean!
    "Badges the change earned (a target it completed); usually empty."
    badgesEarned: [Badge!]!
    "Badges taken back: what is left no longer earns them."
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  "The answer of deleteGoal."
  type DeleteGoalPayload {
    "The deleted goal's id and its sub-goals' ids."
    deletedGoalIds: [ID!]!
    "Badges taken back: what is left no longer earns them."
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  extend type Mutation {
    "Takes back the check-in of a local day (default today); possible for the days checkInHabit accepts (the last 7 days). A day without a check-in is answered with the habit and alreadyUndone."
    undoCheckIn(
      "The habit's public id."
      goalId: String!
      "The day checked in, in the user's time zone; default today."
      date: Date
    ): UndoCheckInPayload!
    "Changes a progress event (absent arguments stay; a null or empty note clears it); possible while it is within the last 366 days."
    updateGoalEvent(
      "The event's public id."
      eventId: String!
      "The new increment: not 0, within ±1e9; it cannot be cleared."
      value: Float
      "The new note, up to 500 characters."
      note: String
      "When it happened: within the last 366 days and not in the future; it cannot be cleared."
      occurredAt: DateTime
    ): GoalEventPayload!
    "Deletes a progress event; possible while it is within the last 366 days. Without the idempotency key a repeat answers not_found."
    deleteGoalEvent(
      "The event's public id."
      eventId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GoalEventPayload!
    "Deletes a goal, its sub-goals and everything recorded on them, for good (archive to keep them). Without the idempotency key a repeat answers not_found."
    deleteGoal(
      "The goal's public id."
      goalId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): DeleteGoalPayload!
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
      deleteGoalEvent: [
        "not_found",
        "not_allowed",
        "undo_expired",
        "conflict",
        "invalid",
        "idempotency_key_reused",
      ],
      deleteGoal: ["not_found", "invalid", "idempotency_key_reused"],
    } satisfies { [M in keyof MutationResolvers]?: GoalsErrorCode[] },
    resolvers: { Mutation, UndoCheckInPayload: payloadFlags("alreadyUndone") },
  };
}
