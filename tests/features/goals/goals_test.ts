import assert from "node:assert/strict";
import {
  ADD_EVENT,
  ADD_GOAL,
  addGoal,
  CHECK_IN,
  GOAL_FIELDS,
  messagesOf,
} from "../../support/goals.ts";
import { codeOf, dataOf, USER_ERRORS } from "../../support/graphql.ts";
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

    g.clock.advance(1000);
    const habit = await addGoal(g, { title: "Meditate", kind: "habit" });
    assert.equal(habit.cadence, "daily");
    assert.equal(habit.timesPerWeek, null);
    assert.equal(habit.currentStreak, 0);
    g.clock.advance(1000);
    const weekly = await addGoal(g, {
      title: "Gym",
      kind: "habit",
      cadence: "weekly",
      timesPerWeek: 3,
    });
    assert.equal(weekly.timesPerWeek, 3);
    // A second goal earns no badge again.
    g.clock.advance(1000);
    const again = await g.data(ADD_GOAL, { title: "Read", kind: "habit" });
    assert.deepEqual(again.addGoal.badgesEarned, []);

    const list = await g.data(`{ goals { totalCount nodes { id title subGoals { id } } } }`);
    assert.equal(list.goals.totalCount, 4);
    assert.deepEqual(list.goals.nodes.map((x: { title: string }) => x.title), [
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
    const cases: [Record<string, unknown>, RegExp, string, string?][] = [
      [{ title: "", kind: "habit" }, /title must not be empty/, "title"],
      [{ title: "x".repeat(121), kind: "habit" }, /at most 120/, "title"],
      [{ title: "A", kind: "habit", description: "d".repeat(2001) }, /description/, "description"],
      [{ title: "A", kind: "target" }, /targetValue is required/, "targetValue"],
      [{ title: "A", kind: "target", targetValue: 0 }, /differ from startValue/, "targetValue"],
      [{ title: "A", kind: "target", targetValue: 1e12 }, /must be a number/, "targetValue"],
      [{ title: "A", kind: "target", targetValue: 5, unit: "u".repeat(21) }, /unit/, "unit"],
      [{ title: "A", kind: "target", targetValue: 5, dueDate: "2025-12-31" }, /past/, "dueDate"],
      [{ title: "A", kind: "target", targetValue: 5, cadence: "daily" }, /habits only/, "cadence"],
      [{ title: "A", kind: "habit", targetValue: 5 }, /targets only/, "targetValue"],
      [{ title: "A", kind: "habit", cadence: "weekly" }, /is required/, "timesPerWeek"],
      [
        { title: "A", kind: "habit", cadence: "weekly", timesPerWeek: 8 },
        /between 1 and 7/,
        "timesPerWeek",
      ],
      [{ title: "A", kind: "habit", timesPerWeek: 2 }, /weekly habits only/, "timesPerWeek"],
      [
        { title: "A", kind: "habit", parentGoalId: "nope" },
        /parentGoalId/,
        "parentGoalId",
        "not_found",
      ],
    ];
    for (const [vars, pattern, field, code = "invalid"] of cases) {
      const res = (await g.data(ADD_GOAL, vars)).addGoal;
      assert.equal(res.goal, null, JSON.stringify(vars));
      assert.match(messagesOf(res), pattern, JSON.stringify(vars));
      assert.deepEqual(
        res.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
        [[code, field]],
        JSON.stringify(vars),
      );
    }
    // Wrong types, unknown enum values and malformed dates are refused by the schema.
    for (
      const vars of [
        { title: "A", kind: "plan" },
        { title: 5, kind: "habit" },
        { title: "A", kind: "target", targetValue: "ten" },
        { title: "A", kind: "target", targetValue: 5, dueDate: "2026-02-30" },
        { title: "A", kind: "target", targetValue: 5, dueDate: "31.03.2026" },
      ]
    ) {
      const res = await g.run(ADD_GOAL, vars);
      assert.equal(res.status, 200);
      assert.equal(codeOf(res), "BAD_USER_INPUT", JSON.stringify(vars));
    }
    const literal = await g.run(
      `mutation { addGoal(title: "A", kind: target, targetValue: 5, dueDate: "soon") { goal { id } } }`,
    );
    assert.equal(codeOf(literal), "GRAPHQL_VALIDATION_FAILED");
    assert.match(literal.body.errors[0].message, /dueDate/);
    assert.deepEqual((await g.data(`{ goals { nodes { id } } }`)).goals.nodes, []);
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
    // Lookups answer null, without an error.
    const lookups = [
      await asBob(`query($id: String!) { goal(id: $id) { id } }`, { id: goal.id }),
      await asBob(
        `query($id: String!) { goalProgressData(goalId: $id, groupBy: day) { currentStreak } }`,
        { id: goal.id },
      ),
      await asBob(`query($id: String!) { publicGoal(id: $id) { id } }`, { id: goal.id }),
      await g.run(`query($id: String!) { goal(id: $id) { id } }`, { id: "1" }),
      await g.run(`query($id: String!) { goal(id: $id) { id } }`, { id: "x".repeat(5000) }),
    ];
    for (const [i, res] of lookups.entries()) {
      assert.equal(res.body.errors, undefined, `lookup ${i}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.values(res.body.data), [null], `lookup ${i}`);
    }
    // Mutations answer not_found on goalId (parentGoalId for addGoal) and change nothing.
    const mutations: [string, Record<string, unknown>, string][] = [
      [
        `mutation($id: String!) { updateGoal(goalId: $id, title: "Mine") { goal { id } ${USER_ERRORS} } }`,
        { id: goal.id },
        "goalId",
      ],
      [
        `mutation($id: String!) { addGoalEvent(goalId: $id, value: 5) { goal { id } ${USER_ERRORS} } }`,
        { id: goal.id },
        "goalId",
      ],
      [
        `mutation($id: String!) { checkInHabit(goalId: $id) { goal { id } ${USER_ERRORS} } }`,
        { id: habit.id },
        "goalId",
      ],
      [
        `mutation($id: String!) { useStreakFreeze(goalId: $id, date: "2026-01-04") {
          goal { id } ${USER_ERRORS} } }`,
        { id: habit.id },
        "goalId",
      ],
      [
        `mutation($id: String!) { addGoal(title: "S", kind: habit, parentGoalId: $id) {
          goal { id } ${USER_ERRORS} } }`,
        { id: goal.id },
        "parentGoalId",
      ],
    ];
    for (const [query, vars, field] of mutations) {
      const payload = Object.values(dataOf(await asBob(query, vars)))[0] as {
        goal: unknown;
        errors: { code: string; field: string }[];
      };
      assert.equal(payload.goal, null, query);
      assert.deepEqual(payload.errors.map((e) => [e.code, e.field]), [["not_found", field]], query);
    }
    const milestones = dataOf(
      await asBob(
        `mutation($id: String!) { generateMilestones(goalId: $id) { errors { code field } } }`,
        { id: goal.id },
      ),
    ).generateMilestones;
    assert.deepEqual(milestones.errors, [{ code: "not_found", field: "goalId" }]);
    // Bob's list is empty and Alice's goals are untouched.
    assert.deepEqual((await g.data(`{ goals { nodes { id } } }`, {}, "bob")).goals.nodes, []);
    const mine = await g.data(`query($id: String!) { goal(id: $id) { title currentValue } }`, {
      id: goal.id,
    });
    assert.deepEqual(mine.goal, { title: "Secret", currentValue: 0 });
    const alices = await g.data(`{ goals { totalCount nodes { subGoals { id } } } }`);
    assert.equal(alices.goals.totalCount, 2);
    assert.deepEqual(alices.goals.nodes.flatMap((n: { subGoals: unknown[] }) => n.subGoals), []);
    const anon = await g.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ goals { nodes { id } } }` }),
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
      $status: GoalStatus, $visibility: GoalVisibility, $targetValue: Float, $dueDate: Date,
      $timesPerWeek: Int, $startValue: Float) {
      updateGoal(goalId: $goalId, title: $title, description: $description, status: $status,
        visibility: $visibility, targetValue: $targetValue, dueDate: $dueDate,
        timesPerWeek: $timesPerWeek, startValue: $startValue) {
        goal { ${GOAL_FIELDS} } badgesEarned { code } ${USER_ERRORS} } }`;
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
      const [vars, pattern, field] of [
        [{ title: "" }, /title/, "title"],
        [{ targetValue: 0 }, /differ/, "targetValue"],
        [{ dueDate: "2026-01-04" }, /past/, "dueDate"],
        [{ timesPerWeek: 2 }, /weekly habits only/, "timesPerWeek"],
        [{ status: "archived", title: "x".repeat(200) }, /title/, "title"],
      ] as const
    ) {
      const res = await up(vars);
      assert.equal(res.goal, null);
      assert.match(messagesOf(res), pattern);
      assert.deepEqual(res.errors.map((e: { field: string }) => e.field), [field]);
      assert.equal(res.errors[0].code, "invalid");
    }
    // Nothing of the refused updates was applied.
    const unchanged = await g.data(
      `query($id: String!) { goal(id: $id) { title status targetValue } }`,
      { id: goal.id },
    );
    assert.deepEqual(unchanged.goal, { title: "Save more", status: "active", targetValue: 800 });
    assert.equal(
      codeOf(await g.run(UPDATE, { goalId: goal.id, dueDate: "yesterday" })),
      "BAD_USER_INPUT",
    );

    const done = await up({ status: "completed" });
    assert.equal(done.goal.status, "completed");
    assert.equal(done.goal.completedAt, "2026-01-05T12:01:00.000Z");
    assert.deepEqual(done.badgesEarned.map((b: { code: string }) => b.code), ["goal_completed"]);
    const archived = await up({ status: "archived" });
    assert.equal(archived.goal.status, "archived");
    assert.equal(archived.goal.completedAt, null);
    const refused = await up({ status: "completed" });
    assert.match(refused.errors[0].message, /cannot go from archived to completed/);
    assert.equal(refused.errors[0].field, "status");
    assert.deepEqual((await g.data(`{ goals { nodes { id } } }`)).goals.nodes, []);
    assert.equal(
      (await g.data(`{ goals(status: archived) { nodes { id } } }`)).goals.nodes[0].id,
      goal.id,
    );
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
    assert.match(nested.addGoal.errors[0].message, /sub-goal cannot have sub-goals/);
    assert.equal(nested.addGoal.errors[0].field, "parentGoalId");
    const list = await g.data(`{ goals { nodes { id subGoals { id title parent { id } } } } }`);
    assert.equal(list.goals.nodes.length, 1);
    assert.equal(list.goals.nodes[0].subGoals[0].title, "Run daily");
    assert.equal(list.goals.nodes[0].subGoals[0].parent.id, parent.id);

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
    assert.equal(codeOf(leak), "GRAPHQL_VALIDATION_FAILED");
    // A private goal is null, for anyone.
    const priv = await g.run(PUBLIC, { id: sub.id }, "bob");
    assert.deepEqual(priv.body, { data: { publicGoal: null } });

    // Statements per `goals` request do not grow with the number of goals.
    const statementsFor = async () => {
      await g.data(`{ goals { nodes { id currentValue currentStreak
        checkedInToday subGoals { id currentStreak }
        events(first: 3) { totalCount nodes { id } } } } }`);
      const entries = g.t.log.entries.filter((e) => e.msg === "request");
      return entries.at(-1)!.statements as number;
    };
    const few = await statementsFor();
    for (let i = 0; i < 12; i++) {
      const p = await addGoal(g, { title: `T${i}`, kind: "target", targetValue: 10 });
      await addGoal(g, { title: `H${i}`, kind: "habit", parentGoalId: p.id });
      for (let e = 0; e <= i % 5; e++) await g.data(ADD_EVENT, { goalId: p.id, value: 1 });
    }
    const many = await statementsFor();
    assert.equal(many, few);
    assert.ok(many <= 10, `statements: ${many}`);
  } finally {
    await g.close();
  }
});

Deno.test("goals: the list answers each goal's figures, sub-goals and events as goal(id:) does, whatever the selection's shape", async () => {
  const g = await setup();
  try {
    const target = await addGoal(g, { title: "Save", kind: "target", targetValue: 10 });
    for (const value of [2, 3, 1]) {
      g.clock.advance(60_000);
      await g.data(ADD_EVENT, { goalId: target.id, value });
    }
    g.clock.advance(1000);
    const habit = await addGoal(g, { title: "Stretch", kind: "habit" });
    await g.data(CHECK_IN, { goalId: habit.id });
    g.clock.advance(1000);
    const sub = await addGoal(g, { title: "Part", kind: "habit", parentGoalId: target.id });
    await g.data(CHECK_IN, { goalId: sub.id });

    const FIGURES = `id currentValue percentComplete currentStreak longestStreak checkedInToday
      subGoals { id currentStreak checkedInToday }`;
    const one = async (id: string) =>
      (await g.data(
        `query($id: String!) { goal(id: $id) { ${FIGURES}
          recent: events(first: 2) { nodes { id value } pageInfo { hasNextPage endCursor } }
          all: events(last: 5) { totalCount nodes { id } } } }`,
        { id },
      )).goal;
    const expected = [await one(habit.id), await one(target.id)];

    // Plain nodes, one events page read ahead with the list.
    const plain = await g.data(
      `query($n: Int) { goals { nodes { ${FIGURES}
      recent: events(first: $n) { nodes { id value } pageInfo { hasNextPage endCursor } } } } }`,
      {
        n: 2,
      },
    );
    assert.deepEqual(
      plain.goals.nodes,
      expected.map(({ all: _, ...rest }) => rest),
    );
    // Edges through a fragment, and two pages of events with different arguments.
    const edges = await g.data(`{ goals { edges { node { ...F } } } }
      fragment F on Goal { ${FIGURES}
        recent: events(first: 2) { nodes { id value } pageInfo { hasNextPage endCursor } }
        all: events(last: 5) { totalCount nodes { id } } }`);
    assert.deepEqual(edges.goals.edges.map((e: { node: unknown }) => e.node), expected);
    assert.deepEqual(expected[1].recent.nodes.map((e: { value: number }) => e.value), [1, 3]);
    assert.equal(expected[1].currentValue, 6);
    assert.equal(expected[0].checkedInToday, true);
    assert.equal(expected[1].subGoals[0].checkedInToday, true);
  } finally {
    await g.close();
  }
});
