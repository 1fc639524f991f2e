/**
 * Allies and accountability partners: requests, answers and endings (the other user is notified
 * where the spec says so); active partners follow each other's check-ins in the feed.
 */
import type { Feature } from "../feature.ts";
import { type PartnersDeps, partnersModule } from "./schema.ts";

export type { PartnersDeps };

export function partnersFeature(deps: PartnersDeps): Feature {
  return { name: "partners", graphql: partnersModule(deps), api: {} };
}
