/** GraphQL for mood logs: `addMoodLog` and `moodLogs`. */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { JobSystem } from "../../platform/jobs/types.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { awardBadgesFor } from "../badges/store.ts";
import { FUTURE_SKEW_MS, parseInstant } from "../goals/rules.ts";
import {
  MOOD_LIST_LIMIT,
  MOOD_NOTE_MAX,
  MOOD_WINDOW_DAYS,
  moodError,
  normalizeTags,
} from "./rules.ts";
import { insertMoodLog, type MoodLogRow, moodLogsBetween } from "./store.ts";

const typeDefs = /* GraphQL */ `
  type MoodLog {
    id: ID!
    "1 (very low) to 5 (very good)."
    mood: Int!
    note: String
    tags: [String!]!
    loggedAt: String!
    createdAt: String!
  }

  type AddMoodLogPayload {
    moodLog: MoodLog
    badgesEarned: [Badge!]!
    errors: [String!]!
  }

  extend type Query {
    "The current user's mood logs in [from, to) (ISO 8601; default the last 30 days), newest first, at most 1000."
    moodLogs(from: String, to: String): [MoodLog!]!
  }

  extend type Mutation {
    "Logs a mood (1..5); up to 10 tags; loggedAt (ISO 8601) defaults to now."
    addMoodLog(mood: Int!, note: String, tags: [String!], loggedAt: String): AddMoodLogPayload!
  }
`;

const DAY_MS = 86_400_000;

export function moodModule(
  deps: { db: Database; clock: Clock; jobs: Pick<JobSystem, "publish"> },
): GraphQLModule {
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
        moodLogs: async (
          _: unknown,
          args: { from?: string | null; to?: string | null },
          ctx: GraphQLContext,
        ) => {
          const viewer = requireViewer(ctx);
          const to = args.to == null
            ? new Date(deps.clock.now().getTime() + 1)
            : parseInstant(args.to);
          if (!to) throw badUserInput("to must be an ISO 8601 date-time");
          const from = args.from == null
            ? new Date(to.getTime() - 30 * DAY_MS)
            : parseInstant(args.from);
          if (!from) throw badUserInput("from must be an ISO 8601 date-time");
          if (from > to) throw badUserInput("from must not be after to");
          if (to.getTime() - from.getTime() > MOOD_WINDOW_DAYS * DAY_MS) {
            throw badUserInput(`the range may span at most ${MOOD_WINDOW_DAYS} days`);
          }
          return await moodLogsBetween(sql, viewer.userId, from, to, MOOD_LIST_LIMIT);
        },
      },
      Mutation: {
        addMoodLog: async (
          _: unknown,
          args: {
            mood: number;
            note?: string | null;
            tags?: string[] | null;
            loggedAt?: string | null;
          },
          ctx: GraphQLContext,
        ) => {
          const viewer = requireViewer(ctx);
          const now = deps.clock.now();
          const errors: string[] = [];
          const moodProblem = moodError(args.mood);
          if (moodProblem) errors.push(moodProblem);
          const note = args.note?.trim() || null;
          if (note && note.length > MOOD_NOTE_MAX) {
            errors.push(`note must be at most ${MOOD_NOTE_MAX} characters`);
          }
          const tags = normalizeTags(args.tags ?? []);
          if ("error" in tags) errors.push(tags.error);
          let loggedAt = now;
          if (args.loggedAt != null) {
            const at = parseInstant(args.loggedAt);
            if (!at) errors.push("loggedAt must be an ISO 8601 date-time");
            else if (at.getTime() > now.getTime() + FUTURE_SKEW_MS) {
              errors.push("loggedAt must not be in the future");
            } else if (at.getTime() < now.getTime() - MOOD_WINDOW_DAYS * DAY_MS) {
              errors.push(`loggedAt must be within the last ${MOOD_WINDOW_DAYS} days`);
            } else loggedAt = at;
          }
          if (errors.length || "error" in tags) return { moodLog: null, badgesEarned: [], errors };
          return await sql.begin(async (tx) => {
            const moodLog = await insertMoodLog(tx, viewer.userId, {
              mood: args.mood,
              note,
              tags: tags.tags,
              loggedAt,
            });
            await deps.jobs.publish(tx, "mood.logged", {
              userId: viewer.userId,
              moodLogId: moodLog.publicId,
              mood: moodLog.mood,
            });
            const badgesEarned = await awardBadgesFor(tx, deps.jobs, viewer.userId, {
              type: "mood_logged",
            }, now);
            return { moodLog, badgesEarned, errors: [] };
          });
        },
      },
    },
  };
}
