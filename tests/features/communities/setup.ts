/** A test app with an identity provider and named users (created on their first request). */
import { createTestApp, type TestApp } from "../../support/app.ts";
import { dataOf, gql, type GqlResult } from "../../support/graphql.ts";
import { startIdentityProvider } from "../../support/identity.ts";
import { ManualClock } from "../../../src/platform/clock.ts";

export interface SocialTest {
  t: TestApp;
  clock: ManualClock;
  /** A session token for the user named `name` (its subject). */
  token(name: string): Promise<string>;
  /** The user's public id (creates the user). */
  idOf(name: string): Promise<string>;
  run(name: string, query: string, variables?: Record<string, unknown>): Promise<GqlResult>;
  // deno-lint-ignore no-explicit-any
  data(name: string, query: string, variables?: Record<string, unknown>): Promise<any>;
  /** Number of SQL statements of the latest request. */
  lastStatements(): number;
  close(): Promise<void>;
}

export async function setup(
  start = "2026-03-02T12:00:00Z",
  env: Record<string, string> = {},
): Promise<SocialTest> {
  const clock = new ManualClock(start);
  const idp = await startIdentityProvider(clock);
  const t = await createTestApp({ clock, env: { ...idp.env, ...env } });
  const tokens = new Map<string, string>();
  const ids = new Map<string, string>();
  const token = async (name: string) => {
    if (!tokens.has(name)) {
      tokens.set(
        name,
        await idp.token({ sub: name, claims: { username: name }, expiresIn: 3600 * 24 * 400 }),
      );
    }
    return tokens.get(name)!;
  };
  const run = async (name: string, query: string, variables?: Record<string, unknown>) =>
    await gql(t, query, variables, { token: await token(name) });
  const data = async (name: string, query: string, variables?: Record<string, unknown>) =>
    dataOf(await run(name, query, variables));
  return {
    t,
    clock,
    token,
    run,
    data,
    async idOf(name) {
      if (!ids.has(name)) ids.set(name, (await data(name, `{ me { id } }`)).me.id);
      return ids.get(name)!;
    },
    lastStatements() {
      const entries = t.log.entries.filter((e) => e.msg === "request");
      return entries.at(-1)!.statements as number;
    },
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

export const COMMUNITY_FIELDS = `id name description visibility memberCount memberLimit
  owner { id username } viewerRole viewerInvited createdAt`;

export const CREATE_COMMUNITY = `mutation C($name: String!, $description: String,
  $visibility: CommunityVisibility, $memberLimit: Int) {
  createCommunity(name: $name, description: $description, visibility: $visibility,
    memberLimit: $memberLimit) { community { ${COMMUNITY_FIELDS} } errors } }`;

export const JOIN = `mutation J($id: String!) {
  joinCommunity(communityId: $id) { community { id memberCount viewerRole } errors } }`;
export const LEAVE = `mutation L($id: String!) {
  leaveCommunity(communityId: $id) { community { id memberCount viewerRole } errors } }`;
export const INVITE = `mutation I($id: String!, $userId: String!) {
  inviteToCommunity(communityId: $id, userId: $userId) { community { id } errors } }`;
export const POST = `mutation P($id: String!, $body: String!) {
  createCommunityPost(communityId: $id, body: $body) {
    post { id body author { id } community { id } createdAt } errors } }`;
export const FEED = `query F($id: String!, $first: Int, $after: String) {
  communityFeed(communityId: $id, first: $first, after: $after) {
    edges { cursor node { id body author { username } } }
    pageInfo { hasNextPage endCursor } } }`;
export const UNIFIED = `query U($first: Int, $after: String) {
  unifiedFeed(first: $first, after: $after) {
    edges { node { id kind actor { username }
      activity { __typename
        ... on CommunityPostActivity { post { id body } community { id name } }
        ... on CheckInActivity { goalTitle date goal { id } } } } }
    pageInfo { hasNextPage endCursor } } }`;

/** Creates a community as `name` and returns it (fails on errors). */
export async function createCommunity(
  s: SocialTest,
  name: string,
  vars: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = (await s.data(name, CREATE_COMMUNITY, vars)).createCommunity;
  if (res.errors.length) throw new Error(`createCommunity failed: ${res.errors.join("; ")}`);
  return res.community;
}

export const ADD_HABIT = `mutation A($title: String!) {
  addGoal(title: $title, kind: habit) { goal { id } errors } }`;
export const ADD_TARGET = `mutation A($title: String!) {
  addGoal(title: $title, kind: target, targetValue: 1000000) { goal { id } errors } }`;
export const CHECK_IN = `mutation C($goalId: String!, $date: String) {
  checkInHabit(goalId: $goalId, date: $date) { checkIn { id } errors } }`;
export const ADD_EVENT = `mutation E($goalId: String!, $value: Float!) {
  addGoalEvent(goalId: $goalId, value: $value) { event { id } errors } }`;
