/** Pure rules of the activity feed: audiences and the GraphQL type of an item's activity. */

/** The default audience of a user's items of one kind (e.g. a partner follows `check_in`). */
export const audienceOf = (kind: string, userId: string) => `${kind}:${userId}`;

/** The `FeedActivity` member of an item kind: `goal_event` → `GoalEventActivity`. */
export const activityTypeName = (kind: string) =>
  kind.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("") + "Activity";
