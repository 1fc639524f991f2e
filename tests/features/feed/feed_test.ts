import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN } from "../../support/goals.ts";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

const FEED = `query F($first: Int, $after: String, $last: Int, $before: String) {
  unifiedFeed(first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id kind occurredAt actor { id }
      activity {
        __typename
        ... on GoalEventActivity { goal { id } goalTitle value unit note }
        ... on CheckInActivity { goal { id } goalTitle date streak }
        ... on GoalCompletedActivity { goalTitle }
        ... on BadgeEarnedActivity { badgeCode badge { code name } }
      } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

Deno.test("feed: activity newest first, paged by stable cursors, private to its user", async () => {
  const g = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const target = await addGoal(g, { title: "Run", kind: "target", unit: "km", targetValue: 3 });
    g.clock.advance(1000);
    await g.data(ADD_EVENT, { goalId: target.id, value: 1, note: "warm-up" });
    const habit = await addGoal(g, { title: "Stretch", kind: "habit" });
    g.clock.advance(1000);
    await g.data(CHECK_IN, { goalId: habit.id });
    g.clock.advance(1000);
    await g.data(ADD_EVENT, { goalId: target.id, value: 2 });

    const all = (await g.data(FEED, { first: 50 })).unifiedFeed;
    const kinds = all.edges.map((e: { node: { kind: string } }) => e.node.kind);
    // Newest first; within one moment, the later-recorded item first.
    assert.deepEqual(kinds, [
      "badge_earned",
      "goal_completed",
      "goal_event",
      "badge_earned",
      "check_in",
      "badge_earned",
      "goal_event",
      "badge_earned",
    ]);
    const [, completed, last] = all.edges.map((e: { node: unknown }) => e.node);
    assert.equal(last.activity.__typename, "GoalEventActivity");
    assert.equal(last.activity.goal.id, target.id);
    assert.equal(last.activity.value, 2);
    assert.equal(last.activity.unit, "km");
    assert.equal(completed.activity.goalTitle, "Run");
    const checkIn = all.edges[4].node.activity;
    assert.deepEqual(checkIn, {
      __typename: "CheckInActivity",
      goal: { id: habit.id },
      goalTitle: "Stretch",
      date: "2026-01-05",
      streak: 1,
    });
    const badges = all.edges.filter((e: { node: { kind: string } }) =>
      e.node.kind === "badge_earned"
    ).map((e: { node: { activity: { badgeCode: string } } }) => e.node.activity.badgeCode);
    assert.deepEqual(badges, ["goal_completed", "first_check_in", "first_progress", "first_goal"]);

    // Pages of 3 walk the same list; an item added meanwhile does not shift later pages.
    const p1 = (await g.data(FEED, { first: 3 })).unifiedFeed;
    assert.equal(p1.pageInfo.hasNextPage, true);
    g.clock.advance(1000);
    await g.data(CHECK_IN, { goalId: habit.id, date: "2026-01-04" });
    const p2 = (await g.data(FEED, { first: 3, after: p1.pageInfo.endCursor })).unifiedFeed;
    const p3 = (await g.data(FEED, { first: 3, after: p2.pageInfo.endCursor })).unifiedFeed;
    assert.equal(p3.pageInfo.hasNextPage, false);
    const ids = [...p1.edges, ...p2.edges, ...p3.edges].map((e: { node: { id: string } }) =>
      e.node.id
    );
    assert.deepEqual(ids, all.edges.map((e: { node: { id: string } }) => e.node.id));

    assert.deepEqual((await g.data(FEED, {}, "bob")).unifiedFeed.edges, []);
    assert.equal(codeOf(await g.run(FEED, { after: "garbage" })), "BAD_USER_INPUT");
    assert.equal(codeOf(await g.run(FEED, { first: -1 })), "BAD_USER_INPUT");
    assert.equal(codeOf(await g.run(FEED, { first: 1_000_000_000 })), "BAD_USER_INPUT");
    const everything = (await g.data(FEED, { first: 100 })).unifiedFeed.edges;
    assert.equal(everything.length, 9);

    // Backward: the oldest three, then the three before them, in the same newest-first order.
    const idsOf = (c: { edges: { node: { id: string } }[] }) => c.edges.map((e) => e.node.id);
    const allIds = idsOf({ edges: everything });
    const tail = (await g.data(FEED, { last: 3 })).unifiedFeed;
    assert.deepEqual(idsOf(tail), allIds.slice(6));
    assert.equal(tail.pageInfo.hasPreviousPage, true);
    assert.equal(tail.pageInfo.hasNextPage, false);
    const middle = (await g.data(FEED, { last: 3, before: tail.pageInfo.startCursor })).unifiedFeed;
    assert.deepEqual(idsOf(middle), allIds.slice(3, 6));
    assert.equal(middle.pageInfo.hasNextPage, true);
    const head = (await g.data(FEED, { last: 5, before: middle.pageInfo.startCursor }))
      .unifiedFeed;
    assert.deepEqual(idsOf(head), allIds.slice(0, 3));
    assert.equal(head.pageInfo.hasPreviousPage, false);
    assert.equal(everything[0].node.kind, "check_in");
    assert.match(everything[0].node.occurredAt, /^2026-01-05T12:00:04\.000Z$/);
  } finally {
    await g.close();
  }
});
