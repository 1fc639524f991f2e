/**
 * Teams: invites, members and roles, team sub-communities and leaderboards. Every
 * admin write carries the caller's authority in its own statement (`store.ts`).
 */
import type { Feature } from "../feature.ts";
import { type TeamsDeps, teamsModule } from "./schema.ts";
import { teamNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { teamsPersonalData } from "./personal-data.ts";

export type { TeamsDeps };

export function teamsFeature(deps: TeamsDeps): Feature {
  return {
    name: "teams",
    personalData: teamsPersonalData(deps.db.sql),
    graphql: mergeModules(teamsModule(deps), teamNodesModule()),
    api: {},
  };
}
