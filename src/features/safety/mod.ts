/**
 * Safety: blocking users and reporting users or posts to the admins, whose queue is the admin
 * console's Reports page. Blocks are stored by the users feature (every feature respects them in
 * its own statements); reports are this feature's.
 */
import type { Feature } from "../feature.ts";
import { type SafetyDeps, safetyModule } from "./schema.ts";
import { safetyPersonalData } from "./personal-data.ts";

export type { SafetyDeps };

export function safetyFeature(deps: SafetyDeps): Feature {
  return {
    name: "safety",
    personalData: safetyPersonalData(deps.db.sql),
    graphql: safetyModule(deps),
    api: {},
  };
}
