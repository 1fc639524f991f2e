/** The SDL of community challenges, their leaderboards, and points. */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const challengesTypeDefs = /* GraphQL */ `
  "check_ins: one point of score per habit check-in. goal_event_value: the sum of progress event values on targets."
  enum ChallengeMetric {
    "The score is the number of habit check-ins, one each."
    check_ins
    "The score is the sum of the values of progress events on target goals."
    goal_event_value
  }

  "upcoming: before startsAt (joining is open); running; ended; cancelled: called off before it started."
  enum ChallengeStatus {
    "Before startsAt: participants may join, leave, and the challenge may be cancelled."
    upcoming
    "Between startsAt and endsAt: activity counts, and participants may still join and leave."
    running
    "After endsAt: scores are final; nobody may join or leave."
    ended
    "Called off before it started; every entry cost was refunded."
    cancelled
  }

  "A competition inside a community over a time window, scored by one metric."
  type CommunityChallenge {
    "The challenge's public id."
    id: ID!
    "The community it belongs to; only those who may read the community see it."
    community: Community!
    "The member who created it."
    creator: User!
    "1 to 120 characters."
    title: String!
    "At most 1000 characters; null when none was given."
    description: String
    "What scores count."
    metric: ChallengeMetric!
    "When activity starts to count."
    startsAt: DateTime!
    "When it ends (activity at or after it does not count); at most 366 days after startsAt."
    endsAt: DateTime!
    "Points spent on joining (refunded on leaving before the end)."
    entryCost: Int!
    "How many users take part now."
    participantCount: Int!
    "Where it stands now."
    status: ChallengeStatus!
    "When it was cancelled (before its start); null otherwise."
    cancelledAt: DateTime
    "The viewer's participation, or null."
    viewerParticipation: ChallengeParticipation
    "When it was created."
    createdAt: DateTime!
  }

  "The viewer's part in a challenge."
  type ChallengeParticipation {
    "What the viewer's activity since joining, within the challenge's window, adds up to under its metric."
    score: Float!
    "Standard competition rank (ties share a rank: 1, 2, 2, 4)."
    rank: Int!
    "The points the viewer paid to join (the entry cost at the time); refunded on leaving or cancellation."
    entryCostPaid: Int!
    "When the viewer joined; activity before it does not count."
    joinedAt: DateTime!
  }

  "One participant on a challenge's leaderboard."
  type LeaderboardEntry {
    "Standard competition rank (ties share a rank: 1, 2, 2, 4)."
    rank: Int!
    "The participant's score under the challenge's metric."
    score: Float!
    "The participant."
    user: User!
    "When they joined."
    joinedAt: DateTime!
  }

  "An entry of a challenge's leaderboard with its cursor."
  type LeaderboardEdge {
    "Pass it as after or before to page from this entry."
    cursor: String!
    "The entry."
    node: LeaderboardEntry!
  }

  "A challenge's leaderboard: a cursor connection of its entries, best first."
  type ChallengeLeaderboard {
    "The challenge it ranks."
    challenge: CommunityChallenge!
    "This page's entries with their cursors, best first."
    edges: [LeaderboardEdge!]!
    "This page's entries, best first (edges without cursors)."
    nodes: [LeaderboardEntry!]!
    "Where this page sits in the whole list."
    pageInfo: PageInfo!
    "Every participant, all pages together."
    totalCount: Int!
    "The viewer's own entry wherever it is, or null when not participating."
    viewerEntry: LeaderboardEntry
  }

  ${connectionTypeDefs("CommunityChallenge")}

  "The answer of createCommunityChallenge, joinCommunityChallenge and leaveCommunityChallenge."
  type CommunityChallengePayload {
    "The challenge as it is now (viewerParticipation shows the join or its absence); null when refused."
    challenge: CommunityChallenge
    "joinCommunityChallenge: true when the viewer took part already (a retry); nothing was spent."
    alreadyJoined: Boolean!
    "leaveCommunityChallenge: true when the viewer was not taking part (left already, e.g. a retry); nothing was refunded."
    alreadyLeft: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of cancelCommunityChallenge."
  type CancelCommunityChallengePayload {
    "The challenge, now cancelled; null when refused."
    challenge: CommunityChallenge
    "Participants whose entry cost was refunded."
    refundedCount: Int!
    "True when the challenge was cancelled already (a retry); nothing changed and refundedCount is 0."
    alreadyCancelled: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  extend type CurrentUser {
    "Points: earned by check-ins (10) and progress events (5), spent on challenge entry costs; credited by the mutation itself, so current as soon as it answers."
    points: Int!
  }

  extend type CheckInHabitPayload {
    "The current user's points when the mutation answered, the check-in's included (the same value me.points answers now)."
    points: Int!
    "The challenges this check-in counts in (none when refused); each one's viewerParticipation holds the new score and rank."
    challenges: [CommunityChallenge!]!
  }

  extend type AddGoalEventPayload {
    "The current user's points when the mutation answered, the event's included (the same value me.points answers now)."
    points: Int!
    "The challenges this event counts in (none when refused); each one's viewerParticipation holds the new score and rank."
    challenges: [CommunityChallenge!]!
  }

  extend type GoalEventPayload {
    "The current user's points when the mutation answered (a deleted event's points taken back)."
    points: Int!
    "The challenges the event counts in as it is now (an ended challenge keeps what it counted); each one's viewerParticipation holds the score and rank."
    challenges: [CommunityChallenge!]!
  }

  extend type UndoCheckInPayload {
    "The current user's points when the mutation answered, the check-in's taken back."
    points: Int!
  }

  extend type DeleteGoalPayload {
    "The current user's points when the mutation answered, the deleted goals' activity taken back."
    points: Int!
  }

  extend type CommunityChallengePayload {
    "The current user's points when the mutation answered: after the entry cost of a join or the refund of a leave."
    points: Int!
  }

  extend type CancelCommunityChallengePayload {
    "The current user's points when the mutation answered (their own entry cost refunded if they had joined)."
    points: Int!
  }

  extend type Query {
    "Null when there is no such challenge or the viewer may not read its community."
    communityChallenge(
      "The challenge's public id."
      id: String!
    ): CommunityChallenge
    "A community's challenges, latest start first; null when the viewer may not read the community."
    communityChallenges(
      "The community's public id."
      communityId: String!
      "Paging forward: how many challenges, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the challenges after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many challenges, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the challenges before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): CommunityChallengeConnection
    "Ranked by score, best first; null when the viewer may not read the challenge."
    communityChallengeLeaderboard(
      "The challenge's public id."
      challengeId: String!
      "Paging forward: how many entries, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the entries after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many entries, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the entries before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): ChallengeLeaderboard
  }

  extend type Mutation {
    "Members only; entryCost in points (default 0)."
    createCommunityChallenge(
      "The public id of a community the viewer is a member of."
      communityId: String!
      "1 to 120 characters after trimming."
      title: String!
      "At most 1000 characters; blank counts as none."
      description: String
      "What scores count."
      metric: ChallengeMetric!
      "When activity starts to count: at most 24 hours in the past and within the next 366 days."
      startsAt: DateTime!
      "After startsAt, at most 366 days after it."
      endsAt: DateTime!
      "Points each participant pays to join, 0 to 100000; default 0."
      entryCost: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CommunityChallengePayload!
    "Members only, before endsAt (scores count from startsAt); spends the entry cost. A participant joining again gets the challenge with alreadyJoined."
    joinCommunityChallenge(
      "The challenge's public id; the viewer needs at least its entry cost in points (else insufficient_points)."
      challengeId: String!
    ): CommunityChallengePayload!
    "Before the end: refunds the entry cost and clears the participant's progress. A viewer not taking part gets the challenge with alreadyLeft (after the end too)."
    leaveCommunityChallenge(
      "The public id of a challenge the viewer can read or takes part in."
      challengeId: String!
    ): CommunityChallengePayload!
    "Before the start, by its creator (a member) or the community's owner: every participant leaves with the entry cost refunded."
    cancelCommunityChallenge(
      "The public id of an upcoming challenge (one that has started is already_started)."
      challengeId: String!
    ): CancelCommunityChallengePayload!
  }
`;
