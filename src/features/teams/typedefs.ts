/** The SDL of teams (the resolvers are in `schema.ts`). Decisions: docs/domain.md "Teams". */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const teamsTypeDefs = /* GraphQL */ `
  enum TeamRole { owner admin member }
  "Leaderboard periods; boundaries are UTC (weeks start Monday 00:00 UTC)."
  enum LeaderboardPeriod { weekly monthly all_time }
  enum TeamActivityKind { member_joined sub_community_created }

  type Team {
    id: ID!
    name: String!
    memberCount: Int!
    "The signed-in user's role in this team."
    viewerRole: TeamRole!
    defaultSubCommunity: SubCommunity
    "Members in join order."
    members(first: Int, after: String, last: Int, before: String): TeamMemberConnection!
    createdAt: DateTime!
  }

  type TeamMember {
    user: User!
    role: TeamRole!
    joinedAt: DateTime!
  }
  ${connectionTypeDefs("TeamMember")}

  "A space inside a team. Open ones can be joined and left by any member; closed ones cannot."
  type SubCommunity {
    id: ID!
    name: String!
    description: String
    open: Boolean!
    archived: Boolean!
    isDefault: Boolean!
    memberCount: Int!
    viewerIsMember: Boolean!
    archivedAt: DateTime
    createdAt: DateTime!
  }

  type TeamActivity {
    kind: TeamActivityKind!
    "When it happened."
    occurredAt: DateTime!
    user: User!
    subCommunity: SubCommunity
  }
  ${connectionTypeDefs("TeamActivity")}

  "The signed-in member's place in the team."
  type TeamStanding {
    role: TeamRole!
    leaderboardVisible: Boolean!
    "Rank on this week's team leaderboard; null when opted out."
    weeklyRank: Int
    weeklyScore: Int!
  }

  type TeamHome {
    team: Team!
    defaultSubCommunity: SubCommunity
    "Non-archived sub-communities."
    subCommunities: [SubCommunity!]!
    "Joins and new sub-communities, newest first."
    recentActivity(first: Int, after: String, last: Int, before: String): TeamActivityConnection!
    standing: TeamStanding!
  }

  type TeamInvite {
    id: ID!
    expiresAt: DateTime!
    maxUses: Int
    uses: Int!
    revoked: Boolean!
    createdBy: User!
    createdAt: DateTime!
  }
  ${connectionTypeDefs("TeamInvite")}

  type TeamSettings {
    team: Team!
    "Usable invites (not revoked, expired or used up), newest first."
    activeInvites(first: Int, after: String, last: Int, before: String): TeamInviteConnection!
    "Every sub-community, archived ones included."
    subCommunities: [SubCommunity!]!
  }

  "What an invite link shows before sign-in. Unknown, expired, revoked and used-up tokens all give valid: false and nulls."
  type TeamInvitePreview {
    valid: Boolean!
    teamName: String
    memberCount: Int
    inviterName: String
    expiresAt: DateTime
  }

  type TeamLeaderboardEntry {
    rank: Int!
    score: Int!
    user: User!
  }
  type TeamLeaderboardEdge { cursor: String! node: TeamLeaderboardEntry! }
  type TeamLeaderboardConnection {
    edges: [TeamLeaderboardEdge!]!
    nodes: [TeamLeaderboardEntry!]!
    pageInfo: PageInfo!
    "Every listed (opted-in) member, all pages together."
    totalCount: Int!
    period: LeaderboardPeriod!
    "Start of the period; null for all_time."
    periodStart: DateTime
  }

  type TeamLeaderboardOptOutStat {
    teamId: ID!
    teamName: String!
    optedOutCount: Int!
  }
  ${connectionTypeDefs("TeamLeaderboardOptOutStat")}

  type TeamPayload {
    team: Team
    "acceptTeamInvite: true when the viewer was a member of the invite's team already (a retry); nothing changed."
    alreadyMember: Boolean!
    "transferTeamOwnership: true when the user owned the team already (a retry); nothing changed."
    alreadyOwner: Boolean!
    errors: [UserError!]!
  }
  type CreateTeamInvitePayload {
    invite: TeamInvite
    "The invite token; shown only here, the service keeps only its hash."
    token: String
    errors: [UserError!]!
  }
  type TeamInvitePayload {
    invite: TeamInvite
    "revokeTeamInvite: true when the invite was revoked already (a retry); nothing changed."
    alreadyRevoked: Boolean!
    errors: [UserError!]!
  }
  type TeamMemberPayload { member: TeamMember errors: [UserError!]! }
  type SubCommunityPayload {
    subCommunity: SubCommunity
    "archiveSubCommunity: true when it was archived already (a retry); nothing changed."
    alreadyArchived: Boolean!
    errors: [UserError!]!
  }
  type TeamStandingPayload { standing: TeamStanding errors: [UserError!]! }
  type DeleteTeamPayload {
    "The deleted team's id; null when nothing was deleted."
    deletedTeamId: ID
    errors: [UserError!]!
  }

  extend type Query {
    "The signed-in user's team, or null."
    myTeam: Team
    "Null unless the signed-in user is a member of the team."
    teamHome(teamId: String!): TeamHome
    "Null unless the signed-in user is an owner or admin of the team."
    teamSettings(teamId: String!): TeamSettings
    "Public: no session token needed."
    teamInvitePreview(token: String!): TeamInvitePreview!
    "Exactly one of teamId and subCommunityId; null unless it is the viewer's team. Opted-out members are not listed."
    teamLeaderboard(
      teamId: String
      subCommunityId: String
      period: LeaderboardPeriod!
      first: Int
      after: String
      last: Int
      before: String
    ): TeamLeaderboardConnection
    "Service admins only: raw opt-out counts per team, by team name."
    teamLeaderboardOptOutStats(
      first: Int
      after: String
      last: Int
      before: String
    ): TeamLeaderboardOptOutStatConnection!
  }

  extend type Mutation {
    "Creates a team owned by the signed-in user (one team per user)."
    createTeam(
      name: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): TeamPayload!
    "Team owners and admins. expiresInHours: 1..720, default 168; maxUses: 1..1000, default unlimited. A retry with the idempotency key answers the same invite and token."
    createTeamInvite(
      teamId: String!
      expiresInHours: Int
      maxUses: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateTeamInvitePayload!
    "Team owners and admins; revoking a revoked invite answers it with alreadyRevoked."
    revokeTeamInvite(inviteId: String!): TeamInvitePayload!
    "Joins the invite's team and its default sub-community. A member of the invite's team gets the team with alreadyMember."
    acceptTeamInvite(token: String!): TeamPayload!
    "Sets a member's role: owners any role, admins between member and admin."
    promoteTeamMember(teamId: String!, userId: String!, role: TeamRole!): TeamMemberPayload!
    "Removes a member (returned as they were); with one's own userId, leaves the team. The last owner cannot go."
    removeTeamMember(teamId: String!, userId: String!): TeamMemberPayload!
    "Team owners: renames the team (1..80 characters)."
    updateTeam(teamId: String!, name: String!): TeamPayload!
    "A team owner hands ownership to an admin or member and becomes an admin. Naming the team's owner answers the team with alreadyOwner."
    transferTeamOwnership(teamId: String!, userId: String!): TeamPayload!
    "Team owners: deletes the team with its sub-communities and invites; its members belong to no team afterwards."
    deleteTeam(teamId: String!): DeleteTeamPayload!
    createSubCommunity(
      teamId: String!
      name: String!
      description: String
      open: Boolean!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): SubCommunityPayload!
    "Team owners and admins; archiving an archived sub-community answers it with alreadyArchived."
    archiveSubCommunity(subCommunityId: String!): SubCommunityPayload!
    unarchiveSubCommunity(subCommunityId: String!): SubCommunityPayload!
    setDefaultSubCommunity(subCommunityId: String!): SubCommunityPayload!
    joinSubCommunity(subCommunityId: String!): SubCommunityPayload!
    leaveSubCommunity(subCommunityId: String!): SubCommunityPayload!
    "Team owners and admins: adds a team member to a sub-community, open or closed (idempotent)."
    addSubCommunityMember(subCommunityId: String!, userId: String!): SubCommunityPayload!
    "Team owners and admins: removes someone from a sub-community other than the default."
    removeSubCommunityMember(subCommunityId: String!, userId: String!): SubCommunityPayload!
    "Opts the signed-in member out of (false) or back into (true) every team leaderboard."
    setLeaderboardVisibility(visible: Boolean!): TeamStandingPayload!
  }
`;
