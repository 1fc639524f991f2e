/** GraphQL for mood logs: `addMoodLog`, `deleteMoodLog` and `moodLogs`, adapted to `service.ts`. */
import { viewerField } from "../../graphql/context.ts";
import {
  connectionTypeDefs,
  type GraphQLModule,
  IDEMPOTENCY_KEY_ARGUMENT,
} from "../../graphql/module.ts";
import type {
  MoodLogResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import { badUserInput } from "../../graphql/errors.ts";
import type { MoodErrorCode } from "./rules.ts";
import * as service from "./service.ts";
import type { MoodDeps, MoodLogRow } from "./service.ts";

const typeDefs = /* GraphQL */ `
  type MoodLog {
    id: ID!
    "1 (very low) to 5 (very good)."
    mood: Int!
    note: String
    tags: [String!]!
    loggedAt: DateTime!
    createdAt: DateTime!
  }
  ${connectionTypeDefs("MoodLog")}

  type AddMoodLogPayload {
    moodLog: MoodLog
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type MoodLogPayload {
    "The log as it was."
    moodLog: MoodLog
    "Badges taken back: first_mood_log when no log is left."
    badgesRevoked: [Badge!]!
    errors: [UserError!]!
  }

  extend type Query {
    "The current user's mood logs in [from, to) (default the last 30 days; at most 366 days), newest first."
    moodLogs(from: DateTime, to: DateTime, first: Int, after: String, last: Int, before: String): MoodLogConnection!
  }

  extend type Mutation {
    "Logs a mood (1..5); up to 10 tags; loggedAt defaults to now."
    addMoodLog(
      mood: Int!
      note: String
      tags: [String!]
      loggedAt: DateTime
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AddMoodLogPayload!
    "Deletes one of the current user's mood logs, for good (at any time: they are private)."
    deleteMoodLog(id: String!): MoodLogPayload!
  }
`;

export function moodModule(deps: MoodDeps): GraphQLModule {
  const MoodLog: MoodLogResolvers = {
    id: (m: MoodLogRow) => m.publicId,
    loggedAt: (m: MoodLogRow) => m.loggedAt.toISOString(),
    createdAt: (m: MoodLogRow) => m.createdAt.toISOString(),
  };
  const Query: QueryResolvers = {
    moodLogs: viewerField(async (viewer, args) => {
      const page = await service.moodLogs(deps, viewer, args);
      if ("invalid" in page) throw badUserInput(page.invalid);
      return page;
    }),
  };
  const Mutation: MutationResolvers = {
    addMoodLog: viewerField((viewer, args) => service.addMoodLog(deps, viewer, args)),
    deleteMoodLog: viewerField((viewer, args) => service.deleteMoodLog(deps, viewer, args)),
  };
  return {
    typeDefs,
    errorCodes: {
      addMoodLog: ["invalid", "idempotency_key_reused"],
      deleteMoodLog: ["not_found"],
    } satisfies { [M in keyof MutationResolvers]?: MoodErrorCode[] },
    resolvers: { MoodLog, Query, Mutation },
  };
}
