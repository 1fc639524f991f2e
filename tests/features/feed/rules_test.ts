/** Pure rules of the feed: audiences and activity types. */
import assert from "node:assert/strict";
import { activityTypeName, audienceOf } from "../../../src/features/feed/rules.ts";

Deno.test("rules: an item kind names its FeedActivity member and its default audience", () => {
  assert.equal(activityTypeName("goal_event"), "GoalEventActivity");
  assert.equal(activityTypeName("badge_earned"), "BadgeEarnedActivity");
  assert.equal(activityTypeName("community_post"), "CommunityPostActivity");
  assert.equal(audienceOf("check_in", "42"), "check_in:42");
});
