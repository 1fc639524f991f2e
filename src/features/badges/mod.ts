/**
 * Badges: the catalogue, `me.badges`, and the seam goals and mood call to award the badges an
 * action earns (each at most once per user).
 */
import type { Queryable } from "../../platform/db.ts";
import type { Feature } from "../feature.ts";
import type { BadgeEvent, BadgeFacts } from "./rules.ts";
import { badgesModule } from "./schema.ts";
import { badgeNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import * as service from "./service.ts";
import type { BadgeRow, BadgesDeps } from "./service.ts";
import { badgesPersonalData } from "./personal-data.ts";

export type { BadgeEvent, BadgeFacts, BadgeRow, BadgesDeps };

export interface BadgesApi {
  /**
   * Applies the badge rules to what the user just did, inside the caller's transaction: awards
   * what it earns (each new badge in the feed, `badges.badge_earned` published, the funnel's
   * `first_badge` step) and returns the badges awarded now.
   */
  awardFor(tx: Queryable, userId: string, event: BadgeEvent, at: Date): Promise<BadgeRow[]>;
  /**
   * After an undo or a deletion, inside its transaction: takes back the badges the user's rows
   * no longer justify (with their feed items) and returns them.
   */
  revokeUnjustified(tx: Queryable, userId: string, facts: BadgeFacts): Promise<BadgeRow[]>;
}

export function badgesFeature(deps: BadgesDeps): Feature<BadgesApi> {
  return {
    name: "badges",
    personalData: badgesPersonalData(deps.db.sql),
    graphql: mergeModules(badgesModule(deps), badgeNodesModule()),
    api: {
      awardFor: (tx, userId, event, at) => service.awardFor(deps, tx, userId, event, at),
      revokeUnjustified: (tx, userId, facts) => service.revokeUnjustified(deps, tx, userId, facts),
    },
  };
}
