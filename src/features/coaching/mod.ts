/**
 * AI coaching (spec 7): insights, advice and milestones on a goal, the AI feature flags, and the
 * moderation hook other features pass user posts through.
 */
import type { Feature } from "../feature.ts";
import { type AiDeps, type AiFlags, createAi, type Moderation } from "./ai.ts";
import { createRateLimiter } from "../../platform/rate-limit.ts";
import { coachingModule } from "./schema.ts";
import type { CoachingServiceDeps } from "./service.ts";
import { coachingPersonalData } from "./personal-data.ts";

export type { AiFlags, Moderation };

export type CoachingDeps = AiDeps & Omit<CoachingServiceDeps, "ai" | "limiter">;

export interface CoachingApi {
  flags: AiFlags;
  /** Every user post passes through it; it applies the `moderation` flag itself. */
  moderation: Moderation;
}

export function coachingFeature(deps: CoachingDeps): Feature<CoachingApi> {
  const { moderation, ...ai } = createAi(deps);
  return {
    name: "coaching",
    personalData: coachingPersonalData(deps.db.sql),
    graphql: coachingModule({
      ...deps,
      ai,
      limiter: createRateLimiter({ kv: deps.kv, clock: deps.clock }),
    }),
    api: { flags: ai.flags, moderation },
  };
}
