/** The SDL of teams (the resolvers are in `schema.ts`). Decisions: docs/domain.md "Teams". */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const teamsTypeDefs = /* GraphQL */ `
  "A member's role in a team."
  enum TeamRole {
    "Everything an admin may do, and renames, transfers or deletes the team and sets any role; a team always has at least one."
    owner
    "Manages invites and sub-communities, removes members, and moves people between member and admin; cannot touch owners."
    admin
    "Takes part; manages nothing."
    member
  }

  "Leaderboard periods; boundaries are UTC (weeks start Monday 00:00 UTC)."
  enum LeaderboardPeriod {
    "The current week, from Monday 00:00 UTC."
    weekly
    "The current month, from the 1st 00:00 UTC."
    monthly
    "Everything, without a start."
    all_time
  }

  "What happened in a team."
  enum TeamActivityKind {
    "A member joined the team (user is the member)."
    member_joined
    "A sub-community was created (user is its creator, subCommunity the new one)."
    sub_community_created
  }

  "A team: members with roles, sub-communities and leaderboards. A user belongs to at most one team."
  type Team {
    "The team's public id."
    id: ID!
    "1 to 80 characters."
    name: String!
    "How many members it has."
    memberCount: Int!
    "The signed-in user's role in this team."
    viewerRole: TeamRole!
    "The sub-community every member belongs to: new members join it and nobody leaves it (General at first)."
    defaultSubCommunity: SubCommunity
    "Members in join order."
    members(
      "Paging forward: how many members, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the members after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many members, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the members before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): TeamMemberConnection!
    "When it was created."
    createdAt: DateTime!
  }

  "A user's membership of a team."
  type TeamMember {
    "The member."
    user: User!
    "Their role."
    role: TeamRole!
    "When they joined."
    joinedAt: DateTime!
  }
  ${connectionTypeDefs("TeamMember")}

  "A space inside a team. Open ones can be joined and left by any member; closed ones cannot."
  type SubCommunity {
    "The sub-community's public id."
    id: ID!
    "1 to 80 characters."
    name: String!
    "At most 500 characters; null when none was given."
    description: String
    "True: any member joins and leaves it. False (closed): only owners and admins add and remove members."
    open: Boolean!
    "Archived: hidden from teamHome, kept in teamSettings with its members until unarchived."
    archived: Boolean!
    "Whether it is the team's default sub-community."
    isDefault: Boolean!
    "How many members it has."
    memberCount: Int!
    "Whether the signed-in user is a member of it."
    viewerIsMember: Boolean!
    "When it was archived; null unless archived."
    archivedAt: DateTime
    "When it was created."
    createdAt: DateTime!
  }

  "One event of a team's recent activity."
  type TeamActivity {
    "What happened."
    kind: TeamActivityKind!
    "When it happened."
    occurredAt: DateTime!
    "Who joined (member_joined) or created the sub-community (sub_community_created)."
    user: User!
    "The sub-community created; null for member_joined."
    subCommunity: SubCommunity
  }
  ${connectionTypeDefs("TeamActivity")}

  "The signed-in member's place in the team."
  type TeamStanding {
    "The member's role."
    role: TeamRole!
    "False when the member opted out of the leaderboards (setLeaderboardVisibility)."
    leaderboardVisible: Boolean!
    "Rank on this week's team leaderboard; null when opted out."
    weeklyRank: Int
    "This week's score (check-ins plus progress events, one each); 0 when opted out."
    weeklyScore: Int!
  }

  "What a member sees on the team's home screen."
  type TeamHome {
    "The team."
    team: Team!
    "The team's default sub-community."
    defaultSubCommunity: SubCommunity
    "Non-archived sub-communities."
    subCommunities: [SubCommunity!]!
    "Joins and new sub-communities, newest first."
    recentActivity(
      "Paging forward: how many events, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the events after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many events, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the events before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): TeamActivityConnection!
    "The signed-in member's place in the team."
    standing: TeamStanding!
  }

  "An invite link to a team (its token is shown only when it is created)."
  type TeamInvite {
    "The invite's public id (the inviteId of revokeTeamInvite); not the token."
    id: ID!
    "After this it cannot be used."
    expiresAt: DateTime!
    "How many times it may be used, 1 to 1000; null: unlimited."
    maxUses: Int
    "How many users joined with it."
    uses: Int!
    "True once revoked; it cannot be used after."
    revoked: Boolean!
    "The owner or admin who created it."
    createdBy: User!
    "When it was created."
    createdAt: DateTime!
  }
  ${connectionTypeDefs("TeamInvite")}

  "What a team's owners and admins manage."
  type TeamSettings {
    "The team."
    team: Team!
    "Usable invites (not revoked, expired or used up), newest first."
    activeInvites(
      "Paging forward: how many invites, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the invites after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many invites, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the invites before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): TeamInviteConnection!
    "Every sub-community, archived ones included."
    subCommunities: [SubCommunity!]!
  }

  "What an invite link shows before sign-in. Unknown, expired, revoked and used-up tokens all give valid: false and nulls."
  type TeamInvitePreview {
    "True when the token can be accepted now."
    valid: Boolean!
    "The team's name; null when not valid."
    teamName: String
    "How many members the team has; null when not valid."
    memberCount: Int
    "The inviter's first and last name, else their username; null when not valid."
    inviterName: String
    "When the invite expires; null when not valid."
    expiresAt: DateTime
  }

  "One member on a team leaderboard."
  type TeamLeaderboardEntry {
    "Ties share a rank (1, 1, 3)."
    rank: Int!
    "Check-ins plus progress events in the period, one each; 0 with no activity."
    score: Int!
    "The member."
    user: User!
  }

  "A leaderboard entry with its cursor."
  type TeamLeaderboardEdge {
    "Pass it as after or before to page from this entry."
    cursor: String!
    "The entry."
    node: TeamLeaderboardEntry!
  }

  "A team or sub-community leaderboard: opted-in members, best first."
  type TeamLeaderboardConnection {
    "This page's entries with their cursors, best first."
    edges: [TeamLeaderboardEdge!]!
    "This page's entries, best first (edges without cursors)."
    nodes: [TeamLeaderboardEntry!]!
    "Where this page sits in the whole list."
    pageInfo: PageInfo!
    "Every listed (opted-in) member, all pages together."
    totalCount: Int!
    "The period it ranks."
    period: LeaderboardPeriod!
    "Start of the period; null for all_time."
    periodStart: DateTime
  }

  "How many members of one team opted out of the leaderboards."
  type TeamLeaderboardOptOutStat {
    "The team's public id."
    teamId: ID!
    "The team's name."
    teamName: String!
    "How many of its members are opted out now."
    optedOutCount: Int!
  }
  ${connectionTypeDefs("TeamLeaderboardOptOutStat")}

  "The answer of the mutations that change a team."
  type TeamPayload {
    "The team as it is now; null when refused."
    team: Team
    "acceptTeamInvite: true when the viewer was a member of the invite's team already (a retry); nothing changed."
    alreadyMember: Boolean!
    "transferTeamOwnership: true when the user owned the team already (a retry); nothing changed."
    alreadyOwner: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of createTeamInvite."
  type CreateTeamInvitePayload {
    "The new invite; null when refused."
    invite: TeamInvite
    "The invite token; shown only here, the service keeps only its hash."
    token: String
    "Why no invite was created; empty on success."
    errors: [UserError!]!
  }

  "The answer of revokeTeamInvite."
  type TeamInvitePayload {
    "The invite, now revoked; null when refused."
    invite: TeamInvite
    "revokeTeamInvite: true when the invite was revoked already (a retry); nothing changed."
    alreadyRevoked: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of promoteTeamMember and removeTeamMember."
  type TeamMemberPayload {
    "The membership with its new role (promoteTeamMember) or as it was (removeTeamMember); null when refused."
    member: TeamMember
    "removeTeamMember: true when the member had left or been removed already (a retry); member is the membership as it ended and nothing changed."
    alreadyRemoved: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of the sub-community mutations."
  type SubCommunityPayload {
    "The sub-community as it is now; null when refused."
    subCommunity: SubCommunity
    "archiveSubCommunity: true when it was archived already (a retry); nothing changed."
    alreadyArchived: Boolean!
    "unarchiveSubCommunity: true when it was not archived (unarchived already, e.g. a retry); nothing changed."
    alreadyUnarchived: Boolean!
    "leaveSubCommunity: true when the viewer was not a member (left already, e.g. a retry); nothing changed."
    alreadyLeft: Boolean!
    "removeSubCommunityMember: true when the user was not a member (removed already, e.g. a retry); nothing changed."
    alreadyRemoved: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of setLeaderboardVisibility."
  type TeamStandingPayload {
    "The signed-in member's standing after the change; null when refused."
    standing: TeamStanding
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of deleteTeam."
  type DeleteTeamPayload {
    "The deleted team's id; null when nothing was deleted."
    deletedTeamId: ID
    "Why nothing was deleted; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "The signed-in user's team, or null."
    myTeam: Team
    "Null unless the signed-in user is a member of the team."
    teamHome(
      "The team's public id."
      teamId: String!
    ): TeamHome
    "Null unless the signed-in user is an owner or admin of the team."
    teamSettings(
      "The team's public id."
      teamId: String!
    ): TeamSettings
    "Public: no session token needed."
    teamInvitePreview(
      "The invite token from the link, as createTeamInvite answered it."
      token: String!
    ): TeamInvitePreview!
    "Exactly one of teamId and subCommunityId; null unless it is the viewer's team. Opted-out members are not listed."
    teamLeaderboard(
      "The public id of the viewer's team: its board lists every opted-in member."
      teamId: String
      "The public id of a sub-community of the viewer's team: its board lists that sub-community's opted-in members."
      subCommunityId: String
      "The period whose activity counts."
      period: LeaderboardPeriod!
      "Paging forward: how many entries, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the entries after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many entries, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the entries before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): TeamLeaderboardConnection
    "Service admins only: raw opt-out counts per team, by team name."
    teamLeaderboardOptOutStats(
      "Paging forward: how many teams, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the teams after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many teams, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the teams before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): TeamLeaderboardOptOutStatConnection!
  }

  extend type Mutation {
    "Creates a team owned by the signed-in user (one team per user)."
    createTeam(
      "1 to 80 characters after trimming."
      name: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): TeamPayload!
    "Team owners and admins. expiresInHours: 1..720, default 168; maxUses: 1..1000, default unlimited. A retry with the idempotency key answers the same invite and token."
    createTeamInvite(
      "The public id of the viewer's team."
      teamId: String!
      "Hours until it expires, 1 to 720; default 168 (a week)."
      expiresInHours: Int
      "How many users may join with it, 1 to 1000; default unlimited."
      maxUses: Int
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateTeamInvitePayload!
    "Team owners and admins; revoking a revoked invite answers it with alreadyRevoked."
    revokeTeamInvite(
      "The invite's public id (TeamInvite.id, not the token)."
      inviteId: String!
    ): TeamInvitePayload!
    "Joins the invite's team and its default sub-community. A member of the invite's team gets the team with alreadyMember."
    acceptTeamInvite(
      "The invite token; an unknown, expired, revoked or used-up one is invite_unusable. A user in another team is already_in_team."
      token: String!
    ): TeamPayload!
    "Sets a member's role: owners any role, admins between member and admin."
    promoteTeamMember(
      "The public id of the viewer's team."
      teamId: String!
      "The public id of a member of the team."
      userId: String!
      "The role to give; demoting the last owner is last_owner."
      role: TeamRole!
    ): TeamMemberPayload!
    "Removes a member (returned as they were); with one's own userId, leaves the team. The last owner cannot go. A member who left or was removed already is answered as the membership ended, with alreadyRemoved (to the user who left, and to owners and admins who may remove them)."
    removeTeamMember(
      "The public id of the viewer's team."
      teamId: String!
      "The public id of the member to remove (owners remove anyone, admins members only), or the viewer's own to leave."
      userId: String!
    ): TeamMemberPayload!
    "Team owners: renames the team (1..80 characters)."
    updateTeam(
      "The public id of the viewer's team."
      teamId: String!
      "The new name, 1 to 80 characters after trimming."
      name: String!
    ): TeamPayload!
    "A team owner hands ownership to an admin or member and becomes an admin. Naming the team's owner answers the team with alreadyOwner."
    transferTeamOwnership(
      "The public id of the viewer's team."
      teamId: String!
      "The public id of another member, the new owner."
      userId: String!
    ): TeamPayload!
    "Team owners: deletes the team with its sub-communities and invites; its members belong to no team afterwards. Without the idempotency key a repeat answers not_found."
    deleteTeam(
      "The public id of the viewer's team."
      teamId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): DeleteTeamPayload!
    "Team owners and admins: creates a sub-community; the creator is its first member."
    createSubCommunity(
      "The public id of the viewer's team."
      teamId: String!
      "1 to 80 characters after trimming."
      name: String!
      "At most 500 characters after trimming."
      description: String
      "True: any member may join and leave it; false: closed, owners and admins add members."
      open: Boolean!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): SubCommunityPayload!
    "Team owners and admins; archiving an archived sub-community answers it with alreadyArchived."
    archiveSubCommunity(
      "The public id of a sub-community of the viewer's team other than the default (is_default)."
      subCommunityId: String!
    ): SubCommunityPayload!
    "Team owners and admins: restores an archived sub-community with its members; one not archived is answered as it is with alreadyUnarchived."
    unarchiveSubCommunity(
      "The public id of a sub-community of the viewer's team."
      subCommunityId: String!
    ): SubCommunityPayload!
    "Team owners and admins: makes a sub-community the team's default, the one new members join."
    setDefaultSubCommunity(
      "The public id of a sub-community of the viewer's team that is not archived (else archived)."
      subCommunityId: String!
    ): SubCommunityPayload!
    "Any team member joins an open, non-archived sub-community of their team (closed otherwise); joining again changes nothing."
    joinSubCommunity(
      "The public id of a sub-community of the viewer's team."
      subCommunityId: String!
    ): SubCommunityPayload!
    "Leaves an open, non-archived sub-community (closed otherwise), never the default (is_default). A non-member leaving gets it with alreadyLeft."
    leaveSubCommunity(
      "The public id of a sub-community of the viewer's team."
      subCommunityId: String!
    ): SubCommunityPayload!
    "Team owners and admins: adds a team member to a sub-community, open or closed (idempotent)."
    addSubCommunityMember(
      "The public id of a sub-community of the viewer's team that is not archived."
      subCommunityId: String!
      "The public id of a member of the team."
      userId: String!
    ): SubCommunityPayload!
    "Team owners and admins: removes someone from a sub-community other than the default; a team member not in it is answered with alreadyRemoved."
    removeSubCommunityMember(
      "The public id of a sub-community of the viewer's team that is not archived."
      subCommunityId: String!
      "The public id of a member of the team."
      userId: String!
    ): SubCommunityPayload!
    "Opts the signed-in member out of (false) or back into (true) every team leaderboard."
    setLeaderboardVisibility(
      "False hides the member from every team and sub-community board; true shows them again. Their activity is kept either way."
      visible: Boolean!
    ): TeamStandingPayload!
  }
`;
