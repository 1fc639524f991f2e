/** The SDL of community challenges, their leaderboards, and points. */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const challengesTypeDefs = /* GraphQL */ `
  "check_ins: one point of score per habit check-in. goal_event_value: the sum of progress event values on targets."
  enum ChallengeMetric { check_ins goal_event_value }
  "upcoming: before startsAt (joining is open); running; ended; cancelled: called off before it started."
  enum ChallengeStatus { upcoming running ended cancelled }

  type CommunityChallenge {
    id: ID!
    community: Community!
    creator: User!
    title: String!
    description: String
    metric: ChallengeMetric!
    startsAt: DateTime!
    endsAt: DateTime!
    "Points spent on joining (refunded on leaving before the end)."
    entryCost: Int!
    participantCount: Int!
    status: ChallengeStatus!
    "When it was cancelled (before its start); null otherwise."
    cancelledAt: DateTime
    "The viewer's participation, or null."
    viewerParticipation: ChallengeParticipation
    createdAt: DateTime!
  }

  type ChallengeParticipation {
    score: Float!
    "Standard competition rank (ties share a rank: 1, 2, 2, 4)."
    rank: Int!
    entryCostPaid: Int!
    joinedAt: DateTime!
  }

  type LeaderboardEntry {
    rank: Int!
    score: Float!
    user: User!
    joinedAt: DateTime!
  }

  type LeaderboardEdge {
    cursor: String!
    node: LeaderboardEntry!
  }

  "A challenge's leaderboard: a cursor connection of its entries, best first."
  type ChallengeLeaderboard {
    challenge: CommunityChallenge!
    edges: [LeaderboardEdge!]!
    nodes: [LeaderboardEntry!]!
    pageInfo: PageInfo!
    "Every participant, all pages together."
    totalCount: Int!
    "The viewer's own entry wherever it is, or null when not participating."
    viewerEntry: LeaderboardEntry
  }

  ${connectionTypeDefs("CommunityChallenge")}

  type CommunityChallengePayload {
    challenge: CommunityChallenge
    "joinCommunityChallenge: true when the viewer took part already (a retry); nothing was spent."
    alreadyJoined: Boolean!
    errors: [UserError!]!
  }

  type CancelCommunityChallengePayload {
    challenge: CommunityChallenge
    "Participants whose entry cost was refunded."
    refundedCount: Int!
    "True when the challenge was cancelled already (a retry); nothing changed and refundedCount is 0."
    alreadyCancelled: Boolean!
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
    communityChallenge(id: String!): CommunityChallenge
    "A community's challenges, latest start first; null when the viewer may not read the community."
    communityChallenges(
      communityId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityChallengeConnection
    "Ranked by score, best first; null when the viewer may not read the challenge."
    communityChallengeLeaderboard(
      challengeId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): ChallengeLeaderboard
  }

  extend type Mutation {
    "Members only; entryCost in points (default 0)."
    createCommunityChallenge(
      communityId: String!
      title: String!
      description: String
      metric: ChallengeMetric!
      startsAt: DateTime!
      endsAt: DateTime!
      entryCost: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CommunityChallengePayload!
    "Members only, before endsAt (scores count from startsAt); spends the entry cost. A participant joining again gets the challenge with alreadyJoined."
    joinCommunityChallenge(challengeId: String!): CommunityChallengePayload!
    "Before the end: refunds the entry cost and clears the participant's progress."
    leaveCommunityChallenge(challengeId: String!): CommunityChallengePayload!
    "Before the start, by its creator (a member) or the community's owner: every participant leaves with the entry cost refunded."
    cancelCommunityChallenge(challengeId: String!): CancelCommunityChallengePayload!
  }
`;
