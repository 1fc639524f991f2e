/**
 * Allies and accountability partners: requests, answers and endings (the other user is notified
 * where the spec says so); active partners follow each other's check-ins in the feed.
 */
import type { Queryable } from "../../platform/db.ts";
import type { Feature } from "../feature.ts";
import { type PartnersDeps, unlinkUsers } from "./service.ts";
import { partnersModule } from "./schema.ts";
import { partnerNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { partnersPersonalData } from "./personal-data.ts";

export type { PartnersDeps };

export interface PartnersApi {
  /**
   * Ends everything that links two users (a block), inside the caller's transaction: their ally
   * link and pending ally and partner requests either way, and their active partnership.
   */
  unlink(tx: Queryable, a: string, b: string, at: Date): Promise<void>;
}

export function partnersFeature(deps: PartnersDeps): Feature<PartnersApi> {
  return {
    name: "partners",
    personalData: partnersPersonalData(deps.db.sql),
    graphql: mergeModules(partnersModule(deps), partnerNodesModule(deps)),
    api: { unlink: (tx, a, b, at) => unlinkUsers(deps, tx, a, b, at) },
  };
}
