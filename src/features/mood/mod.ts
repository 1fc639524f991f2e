/** Mood logs: `addMoodLog`, `moodLogs`, and the read AI coaching uses for context. */
import type { Feature } from "../feature.ts";
import { moodModule } from "./schema.ts";
import { moodNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { type MoodDeps, type MoodLogRow, recentMoodLogs } from "./service.ts";
import { moodPersonalData } from "./personal-data.ts";

export type { MoodDeps, MoodLogRow };

export interface MoodApi {
  /** The user's logs in [from, to), newest first, at most `limit`. */
  moodLogsBetween(userId: string, from: Date, to: Date, limit: number): Promise<MoodLogRow[]>;
}

export function moodFeature(deps: MoodDeps): Feature<MoodApi> {
  return {
    name: "mood",
    personalData: moodPersonalData(deps.db.sql),
    graphql: mergeModules(moodModule(deps), moodNodesModule(deps)),
    api: {
      moodLogsBetween: (userId, from, to, limit) => recentMoodLogs(deps, userId, from, to, limit),
    },
  };
}
