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
  "A mood the current user logged; private to them."
  type MoodLog {
    "The log's public id."
    id: ID!
    "1 (very low) to 5 (very good)."
    mood: Int!
    "The user's words, trimmed, at most 500 characters; null when none was given."
    note: String
    "Lower-cased, without repeats, at most 10 of 1 to 30 characters; empty when none."
    tags: [String!]!
    "When the mood was felt: the time given when logging, or the time of logging."
    loggedAt: DateTime!
    "When the log was written."
    createdAt: DateTime!
  }
  ${connectionTypeDefs("MoodLog")}

  "The answer of addMoodLog."
  type AddMoodLogPayload {
    "The new log (on a retry with the same idempotency key, the one made first); null when refused."
    moodLog: MoodLog
    "Badges this log earned (first_mood_log on the first log); empty when none or refused."
    badgesEarned: [Badge!]!
    "Why the log was refused; empty on success."
    errors: [UserError!]!
  }

  "The answer of deleteMoodLog."
  type MoodLogPayload {
    "The log as it was."
    moodLog: MoodLog
    "Badges taken back: first_mood_log when no log is left."
    badgesRevoked: [Badge!]!
    "Why nothing was deleted; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "The current user's mood logs in [from, to) (default the last 30 days; at most 366 days), newest first."
    moodLogs(
      "Only logs with loggedAt at or after this time; default 30 days before to."
      from: DateTime
      "Only logs with loggedAt before this time; default now. from must not be after to."
      to: DateTime
      "Paging forward: how many logs, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the logs after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many logs, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the logs before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): MoodLogConnection!
  }

  extend type Mutation {
    "Logs a mood (1..5); up to 10 tags; loggedAt defaults to now."
    addMoodLog(
      "1 (very low) to 5 (very good); another number is refused (invalid)."
      mood: Int!
      "Optional words, at most 500 characters after trimming; blank counts as none."
      note: String
      "Up to 10 tags of 1 to 30 letters, digits, spaces, _ or -; stored lower-cased without repeats."
      tags: [String!]
      "When the mood was felt; default now. Not in the future, and within the last 366 days."
      loggedAt: DateTime
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AddMoodLogPayload!
    "Deletes one of the current user's mood logs, for good (at any time: they are private). Without the idempotency key a repeat answers not_found."
    deleteMoodLog(
      "The public id of one of the current user's logs; another's is not_found."
      id: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): MoodLogPayload!
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
      deleteMoodLog: ["not_found", "invalid", "idempotency_key_reused"],
    } satisfies { [M in keyof MutationResolvers]?: MoodErrorCode[] },
    resolvers: { MoodLog, Query, Mutation },
  };
}
