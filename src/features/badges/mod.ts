/**
 * Badges: the catalogue, `me.badges`, and the seam goals and mood call to award the badges an
 * action earns (each at most once per user).
 */
import type { Database, Queryable } from "../../platform/db.ts";
import type { EventPublisher } from "../events.ts";
import type { Feature } from "../feature.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { FunnelApi } from "../funnel/mod.ts";
import {
  badgeDefinition,
  type BadgeEvent,
  type BadgeFacts,
  badgesFor,
  unjustifiedBadges,
} from "./rules.ts";
import { badgesModule } from "./schema.ts";
import { awardBadges, type BadgeRow, revokeBadges } from "./store.ts";
import { badgesPersonalData } from "./personal-data.ts";

export type { BadgeEvent, BadgeFacts, BadgeRow };

export interface BadgesDeps {
  db: Database;
  events: EventPublisher;
  feed: Pick<FeedApi, "record" | "remove">;
  funnel: Pick<FunnelApi, "recordStep">;
}

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
  async function awardFor(tx: Queryable, userId: string, event: BadgeEvent, at: Date) {
    const awarded = await awardBadges(tx, userId, badgesFor(event), at);
    for (const badge of awarded) {
      await deps.feed.record(tx, {
        userId,
        kind: "badge_earned",
        occurredAt: badge.earnedAt,
        data: { code: badge.code },
      });
    }
    if (awarded.length) await deps.funnel.recordStep(tx, userId, "first_badge", at);
    for (const badge of awarded) {
      await deps.events.publish(tx, "badges.badge_earned", {
        userId,
        code: badge.code,
        badgeId: badge.publicId,
        name: badgeDefinition(badge.code)?.name,
      });
    }
    return awarded;
  }
  async function revokeUnjustified(tx: Queryable, userId: string, facts: BadgeFacts) {
    const revoked = await revokeBadges(tx, userId, unjustifiedBadges(facts));
    if (revoked.length) {
      await deps.feed.remove(tx, {
        userId,
        kind: "badge_earned",
        data: revoked.map((b) => ({ code: b.code })),
      });
    }
    return revoked;
  }
  return {
    name: "badges",
    personalData: badgesPersonalData(deps.db.sql),
    graphql: badgesModule(deps),
    api: { awardFor, revokeUnjustified },
  };
}
