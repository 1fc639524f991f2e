/**
 * The operations `bench:scale` times at every size: one named case per row of issue 45's table
 * (several rows of the issue are split into one case per operation), then the flat controls the
 * issue names. A case is a request as a client sends it (GraphQL as the viewer or the admin, or a
 * plain HTTP route) and an optional check of its answer against the rows (`SizeContext.expected`,
 * counted straight from the tables), so a fast answer that is wrong shows up in the table.
 *
 * To add an operation, add a case here (its query is validated against schema.graphql before
 * anything is seeded); what it reads must be grown by grow.ts.
 */

/** Ids and ground truth of one size, read from the tables after growing. */
export interface SizeContext {
  size: number;
  communityId: string;
  challengeId: string;
  goalId: string;
  /** Cursors 90% deep into the community's feed, the viewer's notifications, the leaderboard. */
  cursors: { feed: string; notifications: string; leaderboard: string };
  expected: {
    /** Posts of the community the viewer sees (none of the authors a block separates). */
    visiblePosts: number;
    deadJobs: number;
    notifications: number;
    unreadNotifications: number;
    feedbackPosts: number;
    pendingArtifacts: number;
    employees: number;
    participants: number;
    /** The rank of the first entry after the leaderboard's deep cursor. */
    deepRank: number;
  };
}

export type Who = "viewer" | "admin";

export type Request =
  | { kind: "graphql"; as: Who; query: string; variables?: Record<string, unknown> }
  | {
    kind: "http";
    method: "GET" | "POST";
    path: string;
    body?: string;
    /** Sign the body with the workforce secret (`X-Workforce-Signature`). */
    signed?: boolean;
  };

/** A GraphQL answer's `data`, or an HTTP answer's status and JSON body. */
// deno-lint-ignore no-explicit-any
export type Answer = any;

export interface Case {
  /** The row's name in results/scale.json and the README. */
  name: string;
  /** The row of issue 45's table the case belongs to; "control" for the flat ones. */
  issueRow: string;
  request(ctx: SizeContext): Request;
  /** Null when the answer is right for the size; otherwise what is wrong. */
  check?(answer: Answer, ctx: SizeContext): string | null;
}

/** Within 1% (counts a change may estimate) and a few rows written by the write case. */
const near = (got: unknown, want: number, what: string) =>
  typeof got === "number" && Math.abs(got - want) <= Math.max(25, want * 0.01)
    ? null
    : `${what}: ${JSON.stringify(got)}, the rows hold ${want}`;

const gql = (as: Who, query: string, variables?: Record<string, unknown>): Request => ({
  kind: "graphql",
  as,
  query,
  variables,
});

const FEED = `query Feed($id: String!, $after: String) {
  communityFeed(communityId: $id, first: 20, after: $after) {
    edges { cursor node { id body createdAt author { id username } } }
    pageInfo { hasNextPage endCursor } } }`;
const FEED_COUNT = `query FeedCount($id: String!) {
  communityFeed(communityId: $id, first: 20) {
    totalCount edges { cursor node { id body createdAt author { id username } } } } }`;
const NOTIFICATIONS = `query Notifications($after: String) {
  notifications(first: 20, after: $after) {
    edges { cursor node { id type content acknowledged createdAt } } pageInfo { hasNextPage } } }`;
const BOARD = `query Board($id: String!, $after: String) {
  communityChallengeLeaderboard(challengeId: $id, first: 20, after: $after) {
    edges { cursor node { rank score user { id username } } } pageInfo { hasNextPage } } }`;

export const CASES: Case[] = [
  {
    name: "communityFeed { totalCount }",
    issueRow: "communityFeed { totalCount }",
    request: (c) => gql("viewer", FEED_COUNT, { id: c.communityId }),
    check: (a, c) => near(a.communityFeed?.totalCount, c.expected.visiblePosts, "totalCount"),
  },
  {
    name: "GET /health",
    issueRow: "GET /health, deadJobs.totalCount, jobsOverview",
    request: () => ({ kind: "http", method: "GET", path: "/health" }),
    check: (a) =>
      a.status === 200 || a.status === 503
        ? (a.body?.checks?.sidekiq ? null : "no sidekiq check")
        : `status ${a.status}`,
  },
  {
    name: "deadJobs { totalCount }",
    issueRow: "GET /health, deadJobs.totalCount, jobsOverview",
    request: () =>
      gql(
        "admin",
        `{ deadJobs(first: 20) { totalCount nodes { id name failedAt lastError attempts } } }`,
      ),
    check: (a, c) => near(a.deadJobs.totalCount, c.expected.deadJobs, "totalCount"),
  },
  {
    name: "jobsOverview",
    issueRow: "GET /health, deadJobs.totalCount, jobsOverview",
    request: () =>
      gql(
        "admin",
        `{ jobsOverview { dead enqueued processed failed retrying deadKinds { name count }
          retryingKinds { name count } queues { name size latencySeconds }
          schedules { name cron lastRunAt nextRunAt } } }`,
      ),
    check: (a, c) => near(a.jobsOverview.dead, c.expected.deadJobs, "dead"),
  },
  {
    name: "goalProgressData (30 day buckets)",
    issueRow: "goalProgressData (30 day buckets)",
    request: (c) =>
      gql(
        "viewer",
        `query Progress($id: String!) { goalProgressData(goalId: $id, groupBy: day) {
          from to buckets { periodStart sum count cumulativeValue } pace { onTrack } } }`,
        { id: c.goalId },
      ),
    check: (a) => {
      const buckets = a.goalProgressData?.buckets ?? [];
      if (buckets.length < 30) return `${buckets.length} buckets`;
      return buckets.at(-1).cumulativeValue > 0 ? null : "no cumulative value";
    },
  },
  {
    name: "activation funnel",
    issueRow: "activation funnel",
    request: () => ({
      kind: "http",
      method: "POST",
      path: "/integrations/activation-funnel",
      body: "{}",
      signed: true,
    }),
    check: (a) =>
      a.status !== 200
        ? `status ${a.status}`
        : a.body.current.signed_in > 0
        ? null
        : "no sign-ups in the current window",
  },
  {
    name: "aiEmployees",
    issueRow: "admin aiEmployees",
    request: () =>
      gql(
        "admin",
        `{ aiEmployees { id name role active monthSpendUsd
          promotionCriteria { approvalRate weeksActive recentRejections promotable missing }
          approvalRate { approved rejected autoRejected approvalRate } } }`,
      ),
    check: (a, c) =>
      a.aiEmployees.length === c.expected.employees
        ? null
        : `${a.aiEmployees.length} employees, the rows hold ${c.expected.employees}`,
  },
  {
    name: "pendingArtifacts",
    issueRow: "admin pendingArtifacts (unpaged)",
    request: () =>
      gql(
        "admin",
        `{ pendingArtifacts { id kind title payload approvalStatus createdAt
          employee { id name } } pendingArtifactsConnection(first: 1) { totalCount } }`,
      ),
    // The list answers the oldest 100 (PENDING_LIST_LIMIT); the connection counts them all.
    check: (a, c) =>
      near(a.pendingArtifacts.length, Math.min(100, c.expected.pendingArtifacts), "listed") ??
        near(a.pendingArtifactsConnection.totalCount, c.expected.pendingArtifacts, "pending"),
  },
  {
    name: "unreadNotificationCount",
    issueRow: "unreadNotificationCount, notifications.totalCount, feedbackPosts.totalCount",
    request: () => gql("viewer", `{ unreadNotificationCount }`),
    check: (a, c) =>
      near(a.unreadNotificationCount, c.expected.unreadNotifications, "unreadNotificationCount"),
  },
  {
    name: "notifications { totalCount }",
    issueRow: "unreadNotificationCount, notifications.totalCount, feedbackPosts.totalCount",
    request: () =>
      gql(
        "viewer",
        `{ notifications(first: 20) { totalCount nodes { id type content acknowledged createdAt } } }`,
      ),
    check: (a, c) => near(a.notifications.totalCount, c.expected.notifications, "totalCount"),
  },
  {
    name: "feedbackPosts { totalCount }",
    issueRow: "unreadNotificationCount, notifications.totalCount, feedbackPosts.totalCount",
    request: () =>
      gql(
        "viewer",
        `{ feedbackPosts(first: 20) { totalCount nodes { id title category status voteCount
          createdAt } } }`,
      ),
    check: (a, c) => near(a.feedbackPosts.totalCount, c.expected.feedbackPosts, "totalCount"),
  },
  {
    name: "challenge viewerEntry",
    issueRow: "challenge viewerEntry, deep leaderboard pages",
    request: (c) =>
      gql(
        "viewer",
        `query Viewer($id: String!) { communityChallengeLeaderboard(challengeId: $id, first: 0) {
          viewerEntry { rank score user { id username } } } }`,
        { id: c.challengeId },
      ),
    check: (a) => a.communityChallengeLeaderboard?.viewerEntry?.rank > 0 ? null : "no viewer entry",
  },
  {
    name: "leaderboard page at 90% depth",
    issueRow: "challenge viewerEntry, deep leaderboard pages",
    request: (c) => gql("viewer", BOARD, { id: c.challengeId, after: c.cursors.leaderboard }),
    check: (a, c) => {
      const edges = a.communityChallengeLeaderboard?.edges ?? [];
      if (edges.length === 0) return "an empty page";
      return near(edges[0].node.rank, c.expected.deepRank, "first rank");
    },
  },
  // The flat controls the issue names: keyset pages deep in each list, a first page, a write;
  // and the smallest signed-in request, the machine's pace at each size.
  {
    name: "{ me { id } } (reference)",
    issueRow: "control",
    request: () => gql("viewer", `{ me { id } }`),
  },
  {
    name: "communityFeed page at 90% depth",
    issueRow: "control",
    request: (c) => gql("viewer", FEED, { id: c.communityId, after: c.cursors.feed }),
    check: (a) => a.communityFeed?.edges?.length > 0 ? null : "an empty page",
  },
  {
    name: "notifications page at 90% depth",
    issueRow: "control",
    request: (c) => gql("viewer", NOTIFICATIONS, { after: c.cursors.notifications }),
    check: (a) => a.notifications.edges.length > 0 ? null : "an empty page",
  },
  {
    name: "leaderboard first page",
    issueRow: "control",
    request: (c) => gql("viewer", BOARD, { id: c.challengeId }),
    check: (a) =>
      a.communityChallengeLeaderboard?.edges?.[0]?.node.rank === 1 ? null : "no first rank",
  },
  // Last: it adds rows the counts above would see.
  {
    name: "createCommunityPost (write)",
    issueRow: "control",
    request: (c) =>
      gql(
        "viewer",
        `mutation Post($id: String!) { createCommunityPost(communityId: $id,
          body: "Another steady day.") { post { id } errors { code message } } }`,
        { id: c.communityId },
      ),
    check: (a) => a.createCommunityPost.post ? null : JSON.stringify(a.createCommunityPost.errors),
  },
];
