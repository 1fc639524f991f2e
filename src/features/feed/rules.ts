/** Pure rules of the activity feed: audiences and the GraphQL type of an item's activity. */

/** The default audience of a user's items of one kind (e.g. a partner follows `check_in`). */
export const audienceOf = (kind: string, userId: string) => `${kind}:${userId}`;

/** The `FeedActivity` member of an item kind: `goal_event` → `GoalEventActivity`. */
const ACTIVITY_TYPES = {
  goal_event: "GoalEventActivity",
  check_in: "CheckInActivity",
  goal_completed: "GoalCompletedActivity",
  badge_earned: "BadgeEarnedActivity",
  community_post: "CommunityPostActivity",
} as const;

export type ActivityTypeName = (typeof ACTIVITY_TYPES)[keyof typeof ACTIVITY_TYPES];

/** The FeedActivity member of a feed item's kind; null for a kind the schema does not know. */
export const activityTypeName = (kind: string): ActivityTypeName | null =>
  Object.hasOwn(ACTIVITY_TYPES, kind) ? ACTIVITY_TYPES[kind as keyof typeof ACTIVITY_TYPES] : null;
