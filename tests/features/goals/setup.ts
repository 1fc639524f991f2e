/** A test app with an identity provider and two users (a viewer and a stranger). */
import { createTestApp, type TestApp } from "../../support/app.ts";
import { dataOf, gql, type GqlResult } from "../../support/graphql.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import { ManualClock } from "../../../src/platform/clock.ts";

export interface GoalsTest {
  t: TestApp;
  clock: ManualClock;
  alice: string;
  bob: string;
  /** Runs an operation as `token` (default alice). */
  run(query: string, variables?: Record<string, unknown>, token?: string): Promise<GqlResult>;
  /** Runs as `token` and returns `data`, failing on any top-level error. */
  data(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
    // deno-lint-ignore no-explicit-any
  ): Promise<any>;
  close(): Promise<void>;
}

export async function setup(
  start = "2026-01-05T12:00:00Z",
  env: Record<string, string> = {},
): Promise<GoalsTest> {
  const clock = new ManualClock(start);
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({ clock, env: { ...idp.env, ...env } });
  const alice = await idp.token({ sub: "alice", expiresIn: 3600 * 24 * 400 });
  const bob = await idp.token({ sub: "bob", expiresIn: 3600 * 24 * 400 });
  const run = (query: string, variables?: Record<string, unknown>, token = alice) =>
    gql(t, query, variables, { token });
  return {
    t,
    clock,
    alice,
    bob,
    run,
    data: async (query, variables, token) => dataOf(await run(query, variables, token)),
    async close() {
      try {
        await t.close();
      } finally {
        await idp.close();
      }
    },
  };
}

/** The top-level error code of a result. */
export function codeOf(result: GqlResult): string | undefined {
  return result.body?.errors?.[0]?.extensions?.code;
}

export const GOAL_FIELDS = `id title description kind status visibility unit startValue
  targetValue dueDate cadence timesPerWeek currentValue percentComplete currentStreak
  longestStreak checkedInToday completedAt createdAt updatedAt`;

export const ADD_GOAL = `mutation Add($title: String!, $kind: GoalKind!, $description: String,
  $unit: String, $startValue: Float, $targetValue: Float, $dueDate: String,
  $cadence: HabitCadence, $timesPerWeek: Int, $visibility: GoalVisibility,
  $parentGoalId: String) {
  addGoal(title: $title, kind: $kind, description: $description, unit: $unit,
    startValue: $startValue, targetValue: $targetValue, dueDate: $dueDate, cadence: $cadence,
    timesPerWeek: $timesPerWeek, visibility: $visibility, parentGoalId: $parentGoalId) {
    goal { ${GOAL_FIELDS} }
    badgesEarned { code }
    errors
  }
}`;

export const CHECK_IN = `mutation C($goalId: String!, $date: String) {
  checkInHabit(goalId: $goalId, date: $date) {
    checkIn { id date } goal { id currentStreak longestStreak checkedInToday }
    alreadyCheckedIn freezeEarned badgesEarned { code } errors
  }
}`;

export const ADD_EVENT = `mutation E($goalId: String!, $value: Float!, $note: String,
  $occurredAt: String) {
  addGoalEvent(goalId: $goalId, value: $value, note: $note, occurredAt: $occurredAt) {
    event { id value note occurredAt } goal { id status currentValue percentComplete }
    goalCompleted badgesEarned { code } errors
  }
}`;

/** Adds a goal as `token` and returns it (fails on errors). */
export async function addGoal(
  g: GoalsTest,
  vars: Record<string, unknown>,
  token?: string,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = (await g.data(ADD_GOAL, vars, token)).addGoal;
  if (res.errors.length) throw new Error(`addGoal failed: ${res.errors.join("; ")}`);
  return res.goal;
}

export const DAY_MS = 86_400_000;
