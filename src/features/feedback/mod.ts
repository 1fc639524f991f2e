/**
 * The feedback board: posts, votes, comments and admin triage (moderated through AI coaching's
 * hook), and the signed export of posts for the product team (spec 4.5).
 */
import type { Feature } from "../feature.ts";
import { type FeedbackExportDeps, feedbackExportHandler } from "./export.ts";
import { feedbackModule, type FeedbackSchemaDeps } from "./schema.ts";
import { feedbackNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { feedbackPersonalData } from "./personal-data.ts";

export type FeedbackDeps = FeedbackSchemaDeps & FeedbackExportDeps;

export function feedbackFeature(deps: FeedbackDeps): Feature {
  return {
    name: "feedback",
    personalData: feedbackPersonalData(deps.db.sql),
    graphql: mergeModules(feedbackModule(deps), feedbackNodesModule()),
    routes: [{
      method: "POST",
      path: "/integrations/feedback/export",
      handler: feedbackExportHandler(deps),
    }],
    api: {},
  };
}
