/**
 * Operations and fixtures of the social features (communities, partners, challenges). Their tests
 * run the shared setup with {@link SOCIAL}: users are named after their subject (a `username`
 * claim) and the clock starts on Monday 2026-03-02.
 */
import type { SetupOptions, TestSetup } from "./setup.ts";
import { USER_ERRORS } from "./graphql.ts";

export const SOCIAL: SetupOptions = { start: "2026-03-02T12:00:00Z", usernames: true };

export const COMMUNITY_FIELDS = `id name description visibility memberCount memberLimit
  owner { id username } viewerRole viewerInvited createdAt`;

export const CREATE_COMMUNITY = `mutation C($name: String!, $description: String,
  $visibility: CommunityVisibility, $memberLimit: Int) {
  createCommunity(name: $name, description: $description, visibility: $visibility,
    memberLimit: $memberLimit) { community { ${COMMUNITY_FIELDS} } ${USER_ERRORS} } }`;

export const JOIN = `mutation J($id: String!) {
  joinCommunity(communityId: $id) { community { id memberCount viewerRole } ${USER_ERRORS} } }`;
export const LEAVE = `mutation L($id: String!) {
  leaveCommunity(communityId: $id) { community { id memberCount viewerRole } ${USER_ERRORS} } }`;
export const INVITE = `mutation I($id: String!, $userId: String!) {
  inviteToCommunity(communityId: $id, userId: $userId) { community { id } ${USER_ERRORS} } }`;
export const POST = `mutation P($id: String!, $body: String!) {
  createCommunityPost(communityId: $id, body: $body) {
    post { id body author { id } community { id } createdAt } ${USER_ERRORS} } }`;
export const FEED = `query F($id: String!, $first: Int, $after: String, $last: Int,
  $before: String) {
  communityFeed(communityId: $id, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id body author { username } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`;
export const UNIFIED = `query U($first: Int, $after: String) {
  unifiedFeed(first: $first, after: $after) {
    edges { node { id kind actor { username }
      activity { __typename
        ... on CommunityPostActivity { post { id body } community { id name } }
        ... on CheckInActivity { goalTitle date goal { id } } } } }
    pageInfo { hasNextPage endCursor } } }`;

/** Creates a community as `name` and returns it (fails on errors). */
export async function createCommunity(
  s: TestSetup,
  name: string,
  vars: Record<string, unknown>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = (await s.data(CREATE_COMMUNITY, vars, name)).createCommunity;
  if (res.errors.length) throw new Error(`createCommunity failed: ${JSON.stringify(res.errors)}`);
  return res.community;
}

export const ADD_HABIT = `mutation A($title: String!) {
  addGoal(title: $title, kind: habit) { goal { id } errors { code message field } } }`;
export const ADD_TARGET = `mutation A($title: String!) {
  addGoal(title: $title, kind: target, targetValue: 1000000) {
    goal { id } errors { code message field } } }`;
export const CHECK_IN = `mutation C($goalId: String!, $date: Date) {
  checkInHabit(goalId: $goalId, date: $date) { checkIn { id } errors { code message field } } }`;
export const ADD_EVENT = `mutation E($goalId: String!, $value: Float!) {
  addGoalEvent(goalId: $goalId, value: $value) { event { id } errors { code message field } } }`;
