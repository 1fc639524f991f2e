/** GraphQL for mood logs: `addMoodLog` and `moodLogs`. */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { viewerField } from "../../graphql/context.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { userError } from "../../platform/user-error.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { EventPublisher } from "../events.ts";
import type { BadgesApi } from "../badges/mod.ts";
import { moodLogInput, moodRange } from "./rules.ts";
import {
  countMoodLogs,
  deleteMoodLog,
  hasMoodLog,
  insertMoodLog,
  type MoodLogRow,
  moodLogsBetween,
} from "./store.ts";

export interface MoodDeps {
  db: Database;
  clock: Clock;
  events: EventPublisher;
  badges: Pick<BadgesApi, "awardFor" | "revokeUnjustified">;
}

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
    addMoodLog(mood: Int!, note: String, tags: [String!], loggedAt: DateTime): AddMoodLogPayload!
    "Deletes one of the current user's mood logs, for good (at any time: they are private)."
    deleteMoodLog(id: String!): MoodLogPayload!
  }
`;

export function moodModule(deps: MoodDeps): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      MoodLog: {
        id: (m: MoodLogRow) => m.publicId,
        loggedAt: (m: MoodLogRow) => m.loggedAt.toISOString(),
        createdAt: (m: MoodLogRow) => m.createdAt.toISOString(),
      },
      Query: {
        moodLogs: viewerField(
          async (viewer, args: PageArgs & { from?: Date | null; to?: Date | null }) => {
            const range = moodRange(args, deps.clock.now());
            if ("error" in range) throw badUserInput(range.error);
            const { from, to } = range;
            return await paginate(
              args,
              ["string", "string"],
              (window) => moodLogsBetween(sql, viewer.userId, from, to, window),
              (r) => [r.loggedKey, r.publicId],
              { totalCount: () => countMoodLogs(sql, viewer.userId, from, to) },
            );
          },
        ),
      },
      Mutation: {
        addMoodLog: viewerField(async (viewer, args: {
          mood: number;
          note?: string | null;
          tags?: string[] | null;
          loggedAt?: Date | null;
        }) => {
          const now = deps.clock.now();
          const { errors, ...input } = moodLogInput(args, now);
          if (errors.length) return { moodLog: null, badgesEarned: [], errors };
          return await sql.begin(async (tx) => {
            const moodLog = await insertMoodLog(tx, viewer.userId, input);
            await deps.events.publish(tx, "mood.logged", {
              userId: viewer.userId,
              moodLogId: moodLog.publicId,
              mood: moodLog.mood,
            });
            const badgesEarned = await deps.badges.awardFor(tx, viewer.userId, {
              type: "mood_logged",
            }, now);
            return { moodLog, badgesEarned, errors: [] };
          });
        }),
        deleteMoodLog: viewerField(async (viewer, args: { id: string }) => {
          const notFound = {
            moodLog: null,
            badgesRevoked: [],
            errors: [userError("not_found", "no such mood log of yours", "id")],
          };
          if (!looksLikePublicId(args.id)) return notFound;
          return await sql.begin(async (tx) => {
            const moodLog = await deleteMoodLog(tx, viewer.userId, args.id);
            if (!moodLog) return notFound;
            const badgesRevoked = await deps.badges.revokeUnjustified(tx, viewer.userId, {
              hasMoodLog: await hasMoodLog(tx, viewer.userId),
            });
            return { moodLog, badgesRevoked, errors: [] };
          });
        }),
      },
    },
  };
}
