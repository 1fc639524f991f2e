/**
 * The badges use cases: awarding what an action earns and taking back what rows no longer
 * justify (inside the caller's transaction, for goals and mood), and reading users' badges. The
 * only badges code that publishes events and calls the feed and funnel features.
 */
import type { Database, Queryable } from "../../platform/db.ts";
import type { EventPublisher } from "../events.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { FunnelApi } from "../funnel/mod.ts";
import {
  badgeDefinition,
  type BadgeEvent,
  type BadgeFacts,
  badgesFor,
  unjustifiedBadges,
} from "./rules.ts";
import * as store from "./store.ts";
import type { BadgeRow } from "./store.ts";

export type { BadgeRow };

export interface BadgesDeps {
  db: Database;
  events: EventPublisher;
  feed: Pick<FeedApi, "record" | "remove">;
  funnel: Pick<FunnelApi, "recordStep">;
}

/** Badges of several users, oldest first. */
export const badgesOfUsers = (deps: Pick<BadgesDeps, "db">, userIds: readonly string[]) =>
  store.badgesOfUsers(deps.db.sql, userIds);

/**
 * Applies the badge rules to what the user just did, inside `tx`: awards what it earns (each new
 * badge in the feed, `badges.badge_earned` published, the funnel's `first_badge` step) and
 * returns the badges awarded now.
 */
export async function awardFor(
  deps: BadgesDeps,
  tx: Queryable,
  userId: string,
  event: BadgeEvent,
  at: Date,
): Promise<BadgeRow[]> {
  const awarded = await store.awardBadges(tx, userId, badgesFor(event), at);
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

/**
 * After an undo or a deletion, inside its transaction: takes back the badges the user's rows no
 * longer justify (with their feed items) and returns them.
 */
export async function revokeUnjustified(
  deps: BadgesDeps,
  tx: Queryable,
  userId: string,
  facts: BadgeFacts,
): Promise<BadgeRow[]> {
  const revoked = await store.revokeBadges(tx, userId, unjustifiedBadges(facts));
  if (revoked.length) {
    await deps.feed.remove(tx, {
      userId,
      kind: "badge_earned",
      data: revoked.map((b) => ({ code: b.code })),
    });
  }
  return revoked;
}
