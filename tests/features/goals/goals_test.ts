import assert from "node:assert/strict";
import { ADD_GOAL, addGoal, GOAL_FIELDS } from "../../support/goals.ts";
import { codeOf } from "../../support/graphql.ts";
import { setup } from "../../support/setup.ts";

Deno.test("goals: addGoal creates targets and habits; goals lists them with figures", async () => {
  const g = await setup();
  try {
    const first = await g.data(ADD_GOAL, {
      title: "  Run 100 km ",
      kind: "target",
      unit: "km",
      targetValue: 100,
      dueDate: "2026-03-31",
    });
    assert.deepEqual(first.addGoal.errors, []);
    assert.deepEqual(first.addGoal.badgesEarned.map((b: { code: string }) => b.code), [
      "first_goal",
    ]);
    const run = first.addGoal.goal;
    assert.equal(run.title, "Run 100 km");
    assert.equal(run.kind, "target");
    assert.equal(run.status, "active");
    assert.equal(run.visibility, "private");
    assert.equal(run.startValue, 0);
    assert.equal(run.currentValue, 0);
    assert.equal(run.percentComplete, 0);
    assert.equal(run.cadence, null);
    assert.equal(run.createdAt, "2026-01-05T12:00:00.000Z");

    const habit = await addGoal(g, { title: "Meditate", kind: "habit" });
    assert.equal(habit.cadence, "daily");
    assert.equal(habit.timesPerWeek, null);
    assert.equal(habit.currentStreak, 0);
    const weekly = await addGoal(g, {
      title: "Gym",
      kind: "habit",
      cadence: "weekly",
      timesPerWeek: 3,
    });
    assert.equal(weekly.timesPerWeek, 3);
    // A second goal earns no badge again.
    const again = await g.data(ADD_GOAL, { title: "Read", kind: "habit" });
    assert.deepEqual(again.addGoal.badgesEarned, []);

    const list = await g.data(`{ goals { id title subGoals { id } } }`);
    assert.deepEqual(list.goals.map((x: { title: string }) => x.title), [
      "Read",
      "Gym",
      "Meditate",
      "Run 100 km",
    ]);
    const me = await g.data(`{ me { badges { code name description earnedAt } } }`);
    assert.equal(me.me.badges.length, 1);
    assert.equal(me.me.badges[0].code, "first_goal");
  } finally {
    await g.close();
  }
});

Deno.test("goals: bad input is refused with errors and creates nothing", async () => {
  const g = await setup();
  try {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ title: "", kind: "habit" }, /title must not be empty/],
      [{ title: "x".repeat(121), kind: "habit" }, /at most 120/],
      [{ title: "A", kind: "habit", description: "d".repeat(2001) }, /description/],
      [{ title: "A", kind: "target" }, /targetValue is required/],
      [{ title: "A", kind: "target", targetValue: 0 }, /differ from startValue/],
      [{ title: "A", kind: "target", targetValue: 1e12 }, /targetValue must be a number/],
      [{ title: "A", kind: "target", targetValue: 5, unit: "u".repeat(21) }, /unit/],
      [{ title: "A", kind: "target", targetValue: 5, dueDate: "2026-02-30" }, /dueDate/],
      [{ title: "A", kind: "target", targetValue: 5, dueDate: "2025-12-31" }, /past/],
      [{ title: "A", kind: "target", targetValue: 5, cadence: "daily" }, /habits only/],
      [{ title: "A", kind: "habit", targetValue: 5 }, /targets only/],
      [{ title: "A", kind: "habit", cadence: "weekly" }, /timesPerWeek is required/],
      [{ title: "A", kind: "habit", cadence: "weekly", timesPerWeek: 8 }, /between 1 and 7/],
      [{ title: "A", kind: "habit", timesPerWeek: 2 }, /weekly habits only/],
      [{ title: "A", kind: "habit", parentGoalId: "nope" }, /parentGoalId/],
    ];
    for (const [vars, pattern] of cases) {
      const res = (await g.data(ADD_GOAL, vars)).addGoal;
      assert.equal(res.goal, null, JSON.stringify(vars));
      assert.match(res.errors.join("; "), pattern, JSON.stringify(vars));
    }
    // Wrong types and unknown enum values are refused by the schema.
    for (
      const vars of [
        { title: "A", kind: "plan" },
        { title: 5, kind: "habit" },
        { title: "A", kind: "target", targetValue: "ten" },
      ]
    ) {
      const res = await g.run(ADD_GOAL, vars);
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    assert.deepEqual((await g.data(`{ goals { id } }`)).goals, []);
    assert.deepEqual((await g.data(`{ me { badges { code } } }`)).me.badges, []);
  } finally {
    await g.close();
  }
});

Deno.test("goals: another user's goal is not found everywhere; unauthenticated is refused", async () => {
  const g = await setup();
  try {
    const goal = await addGoal(g, { title: "Secret", kind: "target", targetValue: 10 });
    const habit = await addGoal(g, { title: "Floss", kind: "habit" });
    const asBob = (q: string, v: Record<string, unknown>) => g.run(q, v, "bob");
    const notFound = [
      await asBob(`query($id: String!) { goal(id: $id) { id } }`, { id: goal.id }),
      await asBob(
        `mutation($id: String!) { updateGoal(goalId: $id, title: "Mine") { errors } }`,
        { id: goal.id },
      ),
      await asBob(
        `mutation($id: String!) { addGoalEvent(goalId: $id, value: 5) { errors } }`,
        { id: goal.id },
      ),
      await asBob(
        `mutation($id: String!) { checkInHabit(goalId: $id) { errors } }`,
        { id: habit.id },
      ),
      await asBob(
        `mutation($id: String!) { useStreakFreeze(goalId: $id, date: "2026-01-04") { errors } }`,
        { id: habit.id },
      ),
      await asBob(
        `query($id: String!) { goalProgressData(goalId: $id, groupBy: DAY) { currentStreak } }`,
        { id: goal.id },
      ),
      await asBob(
        `mutation($id: String!) { generateMilestones(goalId: $id) { errors { code field } } }`,
        { id: goal.id },
      ),
      await asBob(
        `mutation { addGoal(title: "S", kind: habit, parentGoalId: "${goal.id}") {
        errors } }`,
        {},
      ),
      await g.run(`query($id: String!) { goal(id: $id) { id } }`, { id: "1" }),
      await g.run(`query($id: String!) { goal(id: $id) { id } }`, { id: "x".repeat(5000) }),
    ];
    for (const [i, res] of notFound.entries()) {
      if (i === 6) {
        assert.deepEqual(res.body.data.generateMilestones.errors, [
          { code: "not_found", field: "goalId" },
        ]);
        continue;
      }
      if (i === 7) {
        assert.match(res.body.data.addGoal.errors[0], /parentGoalId/);
        continue;
      }
      assert.equal(codeOf(res), "NOT_FOUND", `case ${i}: ${JSON.stringify(res.body)}`);
    }
    // Bob's list is empty and Alice's goal is untouched.
    assert.deepEqual((await g.data(`{ goals { id } }`, {}, "bob")).goals, []);
    const mine = await g.data(`query($id: String!) { goal(id: $id) { title currentValue } }`, {
      id: goal.id,
    });
    assert.deepEqual(mine.goal, { title: "Secret", currentValue: 0 });
    const anon = await g.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ goals { id } }` }),
    });
    assert.equal(anon.status, 401);
  } finally {
    await g.close();
  }
});

Deno.test("goals: updateGoal edits fields and moves status by the allowed transitions", async () => {
  const g = await setup();
  try {
    const goal = await addGoal(g, { title: "Save", kind: "target", unit: "EUR", targetValue: 500 });
    const UPDATE = `mutation U($goalId: String!, $title: String, $description: String,
      $status: GoalStatus, $visibility: GoalVisibility, $targetValue: Float, $dueDate: String,
      $timesPerWeek: Int, $startValue: Float) {
      updateGoal(goalId: $goalId, title: $title, description: $description, status: $status,
        visibility: $visibility, targetValue: $targetValue, dueDate: $dueDate,
        timesPerWeek: $timesPerWeek, startValue: $startValue) {
        goal { ${GOAL_FIELDS} } badgesEarned { code } errors } }`;
    const up = async (vars: Record<string, unknown>) =>
      (await g.data(UPDATE, { goalId: goal.id, ...vars })).updateGoal;

    g.clock.advance(60_000);
    const renamed = await up({ title: "Save more", description: "for a bike", targetValue: 800 });
    assert.deepEqual(renamed.errors, []);
    assert.equal(renamed.goal.title, "Save more");
    assert.equal(renamed.goal.description, "for a bike");
    assert.equal(renamed.goal.targetValue, 800);
    assert.equal(renamed.goal.unit, "EUR");
    assert.equal(renamed.goal.updatedAt, "2026-01-05T12:01:00.000Z");

    for (
      const [vars, pattern] of [
        [{ title: "" }, /title/],
        [{ targetValue: 0 }, /differ/],
        [{ dueDate: "yesterday" }, /dueDate/],
        [{ timesPerWeek: 2 }, /weekly habits only/],
        [{ status: "archived", title: "x".repeat(200) }, /title/],
      ] as const
    ) {
      const res = await up(vars);
      assert.equal(res.goal, null);
      assert.match(res.errors.join(";"), pattern);
    }

    const done = await up({ status: "completed" });
    assert.equal(done.goal.status, "completed");
    assert.equal(done.goal.completedAt, "2026-01-05T12:01:00.000Z");
    assert.deepEqual(done.badgesEarned.map((b: { code: string }) => b.code), ["goal_completed"]);
    const archived = await up({ status: "archived" });
    assert.equal(archived.goal.status, "archived");
    assert.equal(archived.goal.completedAt, null);
    const refused = await up({ status: "completed" });
    assert.match(refused.errors[0], /cannot go from archived to completed/);
    assert.deepEqual((await g.data(`{ goals { id } }`)).goals, []);
    assert.equal((await g.data(`{ goals(status: archived) { id } }`)).goals[0].id, goal.id);
    const back = await up({ status: "active", visibility: "public" });
    assert.equal(back.goal.status, "active");
    assert.equal(back.goal.visibility, "public");
    const cleared = await up({ description: null, dueDate: null });
    assert.equal(cleared.goal.description, null);
    assert.equal(cleared.goal.title, "Save more");
  } finally {
    await g.close();
  }
});

Deno.test("goals: sub-goals, publicGoal without a session, and no N+1 in goals", async () => {
  const g = await setup();
  try {
    const parent = await addGoal(g, {
      title: "Marathon",
      kind: "target",
      unit: "km",
      targetValue: 42,
      visibility: "public",
    });
    const sub = await addGoal(g, {
      title: "Run daily",
      kind: "habit",
      parentGoalId: parent.id,
    });
    const nested = await g.data(ADD_GOAL, { title: "Deep", kind: "habit", parentGoalId: sub.id });
    assert.match(nested.addGoal.errors[0], /sub-goal cannot have sub-goals/);
    const list = await g.data(`{ goals { id subGoals { id title parent { id } } } }`);
    assert.equal(list.goals.length, 1);
    assert.equal(list.goals[0].subGoals[0].title, "Run daily");
    assert.equal(list.goals[0].subGoals[0].parent.id, parent.id);

    const PUBLIC = `query($id: String!) { publicGoal(id: $id) {
      id title kind currentValue percentComplete currentStreak owner { id username } } }`;
    const anon = await g.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: PUBLIC, variables: { id: parent.id } }),
    });
    assert.equal(anon.status, 200);
    const body = await anon.json();
    assert.equal(body.data.publicGoal.title, "Marathon");
    assert.equal(body.data.publicGoal.owner.username.length > 0, true);
    // Private fields are not on the type at all.
    const leak = await g.run(`query($id: String!) { publicGoal(id: $id) { subGoals { id } } }`, {
      id: parent.id,
    });
    assert.equal(codeOf(leak), "BAD_USER_INPUT");
    // A private goal is not found, for anyone.
    const priv = await g.run(PUBLIC, { id: sub.id }, "bob");
    assert.equal(codeOf(priv), "NOT_FOUND");

    // Statements per `goals` request do not grow with the number of goals.
    const statementsFor = async () => {
      await g.data(`{ goals { id currentValue percentComplete currentStreak longestStreak
        checkedInToday subGoals { id currentValue currentStreak } recentEvents { id } } }`);
      const entries = g.t.log.entries.filter((e) => e.msg === "request");
      return entries.at(-1)!.statements as number;
    };
    const few = await statementsFor();
    for (let i = 0; i < 12; i++) {
      const p = await addGoal(g, { title: `T${i}`, kind: "target", targetValue: 10 });
      await addGoal(g, { title: `H${i}`, kind: "habit", parentGoalId: p.id });
    }
    const many = await statementsFor();
    assert.equal(many, few);
    assert.ok(many <= 10, `statements: ${many}`);
  } finally {
    await g.close();
  }
});
