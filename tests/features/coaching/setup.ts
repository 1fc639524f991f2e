/**
 * A test app wired to a fake LLM proxy, with an identity provider, two users (alice, bob) and an
 * admin. `env` overrides the environment (e.g. `AI_FLAGS`, or `LLM_BASE_URL: ""` for no LLM).
 */
import { createTestApp, type TestApp } from "../../support/app.ts";
import { dataOf, gql, type GqlResult } from "../../support/graphql.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import { type FakeLlm, startFakeLlm } from "../../support/fake-llm.ts";
import { ManualClock } from "../../../src/platform/clock.ts";
import type { KvStore } from "../../../src/platform/kv.ts";

export interface CoachingTest {
  t: TestApp;
  llm: FakeLlm;
  clock: ManualClock;
  alice: string;
  bob: string;
  admin: string;
  run(query: string, variables?: Record<string, unknown>, token?: string): Promise<GqlResult>;
  // deno-lint-ignore no-explicit-any
  data(query: string, variables?: Record<string, unknown>, token?: string): Promise<any>;
  /** Adds a goal as alice (or `token`) and returns its public id. */
  goal(vars: Record<string, unknown>, token?: string): Promise<string>;
  close(): Promise<void>;
}

export async function setup(
  options: { env?: Record<string, string>; kv?: (clock: ManualClock) => KvStore } = {},
): Promise<CoachingTest> {
  const clock = new ManualClock("2026-01-05T12:00:00Z");
  const idp = await startIdentityProvider(clock);
  const llm = startFakeLlm();
  const t = await createTestApp({
    clock,
    kv: options.kv?.(clock),
    env: {
      ...idp.env,
      LLM_BASE_URL: `${llm.url}/v1`,
      LLM_API_KEY: "sk-test",
      ADMIN_SUBJECTS: "root",
      ...options.env,
    },
  });
  const ttl = { expiresIn: 3600 * 24 * 30 };
  const alice = await idp.token({ sub: "alice", ...ttl });
  const bob = await idp.token({ sub: "bob", ...ttl });
  const admin = await idp.token({ sub: "root", ...ttl });
  const run = (query: string, variables?: Record<string, unknown>, token = alice) =>
    gql(t, query, variables, { token });
  const data = async (query: string, variables?: Record<string, unknown>, token?: string) =>
    dataOf(await run(query, variables, token));
  return {
    t,
    llm,
    clock,
    alice,
    bob,
    admin,
    run,
    data,
    async goal(vars, token) {
      const res = await data(
        `mutation($title: String!, $kind: GoalKind!, $targetValue: Float, $unit: String,
          $dueDate: String) {
          addGoal(title: $title, kind: $kind, targetValue: $targetValue, unit: $unit,
            dueDate: $dueDate) { goal { id } errors } }`,
        vars,
        token,
      );
      if (res.addGoal.errors.length) throw new Error(res.addGoal.errors.join("; "));
      return res.addGoal.goal.id;
    },
    async close() {
      try {
        await t.close();
      } finally {
        await llm.close();
        await idp.close();
      }
    },
  };
}

export function codeOf(result: GqlResult): string | undefined {
  return result.body?.errors?.[0]?.extensions?.code;
}

export const INSIGHT = `mutation($id: String!) {
  getInsight(goalId: $id) { goalId summary highlights generatedAt } }`;
export const ADVICE = `mutation($id: String!, $q: String!) {
  getAdvice(goalId: $id, question: $q) { goalId question answer steps } }`;
export const MILESTONES = `mutation($id: String!) {
  generateMilestones(goalId: $id) { suggestionId milestones { title targetValue dueDate } errors } }`;
export const ACCEPT = `mutation($id: String!, $indexes: [Int!]) {
  acceptMilestones(suggestionId: $id, indexes: $indexes) {
    goals { id title targetValue dueDate unit parent { id } } errors } }`;

export const insight = { summary: "Steady progress.", highlights: ["3 runs this week"] };
