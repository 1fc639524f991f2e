/** What follows a goal's completion, however it came: feed item, domain event, badges. */
import type { Queryable } from "../../../platform/db.ts";
import type { BadgeRow, BadgesApi } from "../../badges/mod.ts";
import type { EventPublisher } from "../../events.ts";
import type { FeedApi } from "../../feed/mod.ts";
import type { GoalRow } from "../store.ts";

export async function recordCompletion(
  deps: {
    feed: Pick<FeedApi, "record">;
    events: EventPublisher;
    badges: Pick<BadgesApi, "awardFor">;
  },
  tx: Queryable,
  goal: GoalRow,
  at: Date,
): Promise<BadgeRow[]> {
  await deps.feed.record(tx, {
    userId: goal.userId,
    kind: "goal_completed",
    occurredAt: goal.completedAt ?? at,
    data: { goalId: goal.id, goalTitle: goal.title },
  });
  await deps.events.publish(tx, "goals.goal_completed", {
    userId: goal.userId,
    goalId: goal.publicId,
  });
  return await deps.badges.awardFor(tx, goal.userId, { type: "goal_completed" }, at);
}
