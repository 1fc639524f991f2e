import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN, codeOf, setup } from "../goals/setup.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";

const FEED = `query F($first: Int, $after: String) {
  unifiedFeed(first: $first, after: $after) {
    edges { cursor node { id kind occurredAt actor { id }
      activity {
        __typename
        ... on GoalEventActivity { goal { id } goalTitle value unit note }
        ... on CheckInActivity { goal { id } goalTitle date streak }
        ... on GoalCompletedActivity { goalTitle }
        ... on BadgeEarnedActivity { badgeCode badge { code name } }
      } } }
    pageInfo { hasNextPage endCursor } } }`;

Deno.test("feed: activity newest first, paged by stable cursors, private to its user", async () => {
  const g = await setup("2026-01-05T12:00:00Z");
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

    assert.deepEqual((await g.data(FEED, {}, g.bob)).unifiedFeed.edges, []);
    assert.equal(codeOf(await g.run(FEED, { after: "garbage" })), "BAD_USER_INPUT");
    assert.equal(codeOf(await g.run(FEED, { first: -1 })), "BAD_USER_INPUT");
    assert.equal((await g.data(FEED, { first: 1000 })).unifiedFeed.edges.length, 9);
  } finally {
    await g.close();
  }
});

Deno.test("events: goal actions publish domain events through the job system", async () => {
  const g = await setup("2026-01-05T12:00:00Z");
  try {
    const seen: [string, unknown][] = [];
    for (const event of ["goals.goal_created", "habits.checked_in", "badges.badge_earned"]) {
      g.t.app.jobs.subscribe(event, `test.${event}`, (payload) => {
        seen.push([event, payload]);
        return Promise.resolve();
      });
    }
    const habit = await addGoal(g, { title: "Walk", kind: "habit" });
    await g.data(CHECK_IN, { goalId: habit.id });
    await g.t.app.jobs.runUntilIdle();
    const names = seen.map(([e]) => e).sort();
    assert.deepEqual(names, [
      "badges.badge_earned",
      "badges.badge_earned",
      "goals.goal_created",
      "habits.checked_in",
    ]);
    const checked = seen.find(([e]) => e === "habits.checked_in")![1] as Record<string, unknown>;
    assert.equal(checked.goalId, habit.id);
    assert.equal(checked.date, "2026-01-05");
    assert.equal(checked.streak, 1);
  } finally {
    await g.close();
  }
});

const ADD_MOOD = `mutation M($mood: Int!, $note: String, $tags: [String!], $loggedAt: String) {
  addMoodLog(mood: $mood, note: $note, tags: $tags, loggedAt: $loggedAt) {
    moodLog { id mood note tags loggedAt } badgesEarned { code } errors } }`;
const MOODS = `query L($from: String, $to: String) { moodLogs(from: $from, to: $to) {
  id mood tags loggedAt } }`;

Deno.test("mood: logs are validated, listed by range and private", async () => {
  const g = await setup("2026-01-05T12:00:00Z");
  try {
    const first = (await g.data(ADD_MOOD, {
      mood: 4,
      note: " good day ",
      tags: ["Work", "sleep", "work"],
    })).addMoodLog;
    assert.deepEqual(first.errors, []);
    assert.equal(first.moodLog.note, "good day");
    assert.deepEqual(first.moodLog.tags, ["work", "sleep"]);
    assert.equal(first.moodLog.loggedAt, "2026-01-05T12:00:00.000Z");
    assert.deepEqual(first.badgesEarned.map((b: { code: string }) => b.code), ["first_mood_log"]);
    const older = (await g.data(ADD_MOOD, { mood: 2, loggedAt: "2026-01-01T08:00:00Z" }))
      .addMoodLog;
    assert.deepEqual(older.badgesEarned, []);

    for (
      const [vars, pattern] of [
        [{ mood: 0 }, /1 to 5/],
        [{ mood: 6 }, /1 to 5/],
        [{ mood: 3, note: "x".repeat(501) }, /note/],
        [{ mood: 3, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, /at most 10 tags/],
        [{ mood: 3, tags: [""] }, /each tag/],
        [{ mood: 3, tags: ["<script>"] }, /each tag/],
        [{ mood: 3, tags: ["t".repeat(31)] }, /each tag/],
        [{ mood: 3, loggedAt: "2026-01-06T12:00:00Z" }, /future/],
        [{ mood: 3, loggedAt: "2024-01-01T00:00:00Z" }, /within the last/],
        [{ mood: 3, loggedAt: "soon" }, /ISO 8601/],
      ] as [Record<string, unknown>, RegExp][]
    ) {
      const res = (await g.data(ADD_MOOD, vars)).addMoodLog;
      assert.equal(res.moodLog, null, JSON.stringify(vars));
      assert.match(res.errors.join(";"), pattern, JSON.stringify(vars));
    }
    assert.equal(codeOf(await g.run(ADD_MOOD, { mood: 2.5 })), "BAD_USER_INPUT");

    const recent = (await g.data(MOODS, {})).moodLogs;
    assert.deepEqual(recent.map((m: { mood: number }) => m.mood), [4, 2]);
    const ranged = (await g.data(MOODS, {
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-02T00:00:00Z",
    })).moodLogs;
    assert.deepEqual(ranged.map((m: { mood: number }) => m.mood), [2]);
    for (
      const vars of [
        { from: "yesterday" },
        { from: "2026-01-05T00:00:00Z", to: "2026-01-01T00:00:00Z" },
        { from: "2020-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
      ]
    ) {
      assert.equal(codeOf(await g.run(MOODS, vars)), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    assert.deepEqual((await g.data(MOODS, {}, g.bob)).moodLogs, []);
  } finally {
    await g.close();
  }
});

Deno.test("onboarding: completeOnboarding sets the time once", async () => {
  const g = await setup("2026-01-05T12:00:00Z");
  try {
    const COMPLETE = `mutation { completeOnboarding { user { onboardingCompletedAt } errors } }`;
    const first = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(first.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    g.clock.advance(3_600_000);
    const second = (await g.data(COMPLETE)).completeOnboarding;
    assert.equal(second.user.onboardingCompletedAt, "2026-01-05T12:00:00.000Z");
    const bob = (await g.data(`{ me { onboardingCompletedAt } }`, {}, g.bob)).me;
    assert.equal(bob.onboardingCompletedAt, null);
  } finally {
    await g.close();
  }
});

Deno.test("funnel: first goal, check-in, badge and onboarding reach the activation funnel", async () => {
  const g = await setup("2026-01-05T12:00:00Z", {
    WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET,
  });
  try {
    const habit = await addGoal(g, { title: "Walk", kind: "habit" });
    await g.data(CHECK_IN, { goalId: habit.id });
    await g.data(CHECK_IN, { goalId: habit.id, date: "2026-01-04" });
    await addGoal(g, { title: "Read", kind: "habit" });
    await g.data(`mutation { completeOnboarding { errors } }`);
    const res = await signedPost(g.t, "/integrations/activation-funnel", {});
    assert.equal(res.status, 200);
    // (signed_in follows users.created_at, set by the database clock, not the test clock.)
    const { signed_in: _, ...steps } = res.body.current;
    assert.deepEqual(steps, {
      wizard_completed: 1,
      first_goal: 1,
      first_check_in: 1,
      first_badge: 1,
    });
  } finally {
    await g.close();
  }
});
