/**
 * GraphQL for teams (issue 13): `createTeam`, `myTeam`, `teamHome`, `teamSettings`,
 * `teamInvitePreview` (public), invites, members and roles, team sub-communities, team
 * leaderboards with opt-out and the admins' opt-out stats. Decisions: docs/domain.md "Teams".
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import {
  adminField,
  type GraphQLContext,
  requireViewer,
  viewerField,
} from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { badUserInput, forbidden, notFound } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  descriptionError,
  displayName,
  INVITE_DEFAULT_HOURS,
  inviteInputErrors,
  isAdminRole,
  type LeaderboardPeriod,
  looksLikeInviteToken,
  nameError,
  periodStart,
  pointsKey,
  removalAllowed,
  roleChangeError,
  SUB_COMMUNITY_NAME_MAX,
  TEAM_NAME_MAX,
  type TeamRole,
} from "./rules.ts";
import * as store from "./store.ts";
import type { InviteRow, LeaderboardRow, MemberRow, SubCommunityRow, TeamRow } from "./store.ts";

export interface TeamsDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "usersByIds">;
}

const typeDefs = /* GraphQL */ `
  enum TeamRole { owner admin member }
  "Leaderboard periods; boundaries are UTC (weeks start Monday 00:00 UTC)."
  enum LeaderboardPeriod { WEEKLY MONTHLY ALL_TIME }
  enum TeamActivityKind { MEMBER_JOINED SUB_COMMUNITY_CREATED }

  type Team {
    id: ID!
    name: String!
    memberCount: Int!
    "The signed-in user's role in this team."
    viewerRole: TeamRole!
    defaultSubCommunity: SubCommunity
    "Members in join order (first: up to 100)."
    members(first: Int, after: String): TeamMemberConnection!
    createdAt: String!
  }

  type TeamMember {
    user: User!
    role: TeamRole!
    joinedAt: String!
  }
  type TeamMemberEdge { cursor: String! node: TeamMember! }
  type TeamMemberConnection { edges: [TeamMemberEdge!]! pageInfo: PageInfo! }

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
    archivedAt: String
    createdAt: String!
  }

  type TeamActivity {
    kind: TeamActivityKind!
    at: String!
    user: User!
    subCommunity: SubCommunity
  }

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
    "Latest joins and new sub-communities, newest first (up to 20)."
    recentActivity: [TeamActivity!]!
    standing: TeamStanding!
  }

  type TeamInvite {
    id: ID!
    expiresAt: String!
    maxUses: Int
    uses: Int!
    revoked: Boolean!
    createdBy: User!
    createdAt: String!
  }

  type TeamSettings {
    team: Team!
    "Usable invites (not revoked, expired or used up), newest first."
    activeInvites: [TeamInvite!]!
    "Every sub-community, archived ones included."
    subCommunities: [SubCommunity!]!
  }

  "What an invite link shows before sign-in. Unknown, expired, revoked and used-up tokens all give valid: false and nulls."
  type TeamInvitePreview {
    valid: Boolean!
    teamName: String
    memberCount: Int
    inviterName: String
    expiresAt: String
  }

  type TeamLeaderboardEntry {
    rank: Int!
    score: Int!
    user: User!
  }
  type TeamLeaderboardEdge { cursor: String! node: TeamLeaderboardEntry! }
  type TeamLeaderboardConnection {
    edges: [TeamLeaderboardEdge!]!
    pageInfo: PageInfo!
    period: LeaderboardPeriod!
    "Start of the period (UTC); null for ALL_TIME."
    periodStart: String
  }

  type TeamLeaderboardOptOutStat {
    teamId: ID!
    teamName: String!
    optedOutCount: Int!
  }

  type TeamPayload { team: Team errors: [String!]! }
  type CreateTeamInvitePayload {
    invite: TeamInvite
    "The invite token; shown only here, the service keeps only its hash."
    token: String
    errors: [String!]!
  }
  type TeamInvitePayload { invite: TeamInvite errors: [String!]! }
  type TeamMemberPayload { member: TeamMember errors: [String!]! }
  type RemoveTeamMemberPayload { removed: Boolean! errors: [String!]! }
  type SubCommunityPayload { subCommunity: SubCommunity errors: [String!]! }
  type LeaderboardVisibilityPayload { visible: Boolean errors: [String!]! }

  extend type Query {
    "The signed-in user's team, or null."
    myTeam: Team
    teamHome(teamId: String!): TeamHome!
    "Team owners and admins only."
    teamSettings(teamId: String!): TeamSettings!
    "Public: no session token needed."
    teamInvitePreview(token: String!): TeamInvitePreview!
    "Exactly one of teamId and subCommunityId. Opted-out members are not listed."
    teamLeaderboard(
      teamId: String
      subCommunityId: String
      period: LeaderboardPeriod!
      first: Int
      after: String
    ): TeamLeaderboardConnection!
    "Service admins only: raw opt-out counts per team."
    teamLeaderboardOptOutStats: [TeamLeaderboardOptOutStat!]!
  }

  extend type Mutation {
    "Creates a team owned by the signed-in user (one team per user)."
    createTeam(name: String!): TeamPayload!
    "Team owners and admins. expiresInHours: 1..720, default 168; maxUses: 1..1000, default unlimited."
    createTeamInvite(teamId: String!, expiresInHours: Int, maxUses: Int): CreateTeamInvitePayload!
    revokeTeamInvite(inviteId: String!): TeamInvitePayload!
    "Joins the invite's team and its default sub-community."
    acceptTeamInvite(token: String!): TeamPayload!
    "Sets a member's role: owners any role, admins between member and admin."
    promoteTeamMember(teamId: String!, userId: String!, role: TeamRole!): TeamMemberPayload!
    "Removes a member; with one's own userId, leaves the team. The last owner cannot go."
    removeTeamMember(teamId: String!, userId: String!): RemoveTeamMemberPayload!
    createSubCommunity(teamId: String!, name: String!, description: String, open: Boolean!): SubCommunityPayload!
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
    setLeaderboardVisibility(visible: Boolean!): LeaderboardVisibilityPayload!
  }
`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

interface TeamAccess {
  team: TeamRow;
  role: TeamRole;
  userId: string;
}

type Args = Record<string, unknown>;

export function teamsModule(deps: TeamsDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();

  /** The viewer's team by public id; another team (or none) is NOT_FOUND. */
  async function access(ctx: GraphQLContext, teamPublicId: string): Promise<TeamAccess> {
    const viewer = requireViewer(ctx);
    if (!looksLikePublicId(teamPublicId)) throw notFound("team");
    const found = await store.teamWithRole(sql, teamPublicId, viewer.userId);
    if (!found || !found.role) throw notFound("team");
    return { team: found.team, role: found.role, userId: viewer.userId };
  }

  async function adminAccess(ctx: GraphQLContext, teamPublicId: string): Promise<TeamAccess> {
    const a = await access(ctx, teamPublicId);
    if (!isAdminRole(a.role)) throw forbidden("team owner or admin required");
    return a;
  }

  /** The viewer's membership; none is NOT_FOUND (there is no team of theirs to act on). */
  async function ownMembership(ctx: GraphQLContext) {
    const viewer = requireViewer(ctx);
    const m = await store.membershipOf(sql, viewer.userId);
    if (!m) throw notFound("team");
    return { ...m, userId: viewer.userId };
  }

  /** A sub-community of the viewer's team (another team's is NOT_FOUND), optionally admin-only. */
  async function subCommunityAccess(ctx: GraphQLContext, scPublicId: string, admin: boolean) {
    const m = await ownMembership(ctx);
    if (!looksLikePublicId(scPublicId)) throw notFound("sub-community");
    const sc = await store.subCommunityOfTeam(sql, m.teamId, scPublicId);
    if (!sc) throw notFound("sub-community");
    if (admin && !isAdminRole(m.role)) throw forbidden("team owner or admin required");
    return { m, sc };
  }

  /** A member of the team by public user id; anyone else (or a malformed id) is NOT_FOUND. */
  async function teamMemberArg(teamId: string, userPublicId: unknown) {
    const target = typeof userPublicId === "string" && looksLikePublicId(userPublicId)
      ? await store.memberOfTeam(sql, teamId, userPublicId)
      : null;
    if (!target) throw notFound("member");
    return target;
  }

  /** The sub-community and the team member an owner or admin adds to it or removes from it. */
  async function subCommunityMemberArgs(ctx: GraphQLContext, args: Args) {
    const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
    const target = await teamMemberArg(m.teamId, args.userId);
    return { m, sc, userId: target.userId };
  }

  const loadTeam = (ctx: GraphQLContext, id: string) =>
    loadByKey(ctx, "teamById", (ids) => store.teamsByIds(sql, ids), (r) => r.id, id);

  const loadSubCommunity = (ctx: GraphQLContext, id: string) =>
    loadByKey(
      ctx,
      "teamSubCommunityById",
      (ids) => store.subCommunitiesByIds(sql, ids),
      (r) => r.id,
      id,
    );

  const scFigures = (ctx: GraphQLContext, id: string) => {
    const viewer = requireViewer(ctx);
    return loadByKey(
      ctx,
      "teamSubCommunityFigures",
      (ids) => store.subCommunityFigures(sql, ids, viewer.userId),
      (r) => r.id,
      id,
    );
  };

  const memberCount = (ctx: GraphQLContext, teamId: string) =>
    ctx.loader<string, number>(
      "teamMemberCount",
      async (ids) => {
        const rows = await store.memberCounts(sql, ids);
        return ids.map((id) => rows.find((r) => r.teamId === id)?.count ?? 0);
      },
    ).load(teamId);

  /** Mutation payload of a sub-community transition. */
  const scPayload = (sc: SubCommunityRow | null, error?: string) =>
    sc ? { subCommunity: sc, errors: [] } : { subCommunity: null, errors: [error!] };

  async function leaderboard(ctx: GraphQLContext, args: Args) {
    requireViewer(ctx);
    const teamId = args.teamId as string | null | undefined;
    const scId = args.subCommunityId as string | null | undefined;
    if ((teamId ? 1 : 0) + (scId ? 1 : 0) !== 1) {
      throw badUserInput("give exactly one of teamId and subCommunityId");
    }
    let scope: { teamId: string; scId: string | null };
    if (teamId) {
      scope = { teamId: (await access(ctx, teamId)).team.id, scId: null };
    } else {
      const { sc } = await subCommunityAccess(ctx, scId!, false);
      scope = { teamId: sc.teamId, scId: sc.id };
    }
    const period = args.period as LeaderboardPeriod;
    const at = now();
    const start = periodStart(period, at);
    const connection = await paginate(
      args as PageArgs,
      ["number", "string"],
      ({ limit, after }) => store.leaderboardPage(sql, scope, pointsKey(period, at), after, limit),
      (r) => [r.score, r.userPublicId],
    );
    return { ...connection, period, periodStart: iso(start) };
  }

  return {
    typeDefs,
    publicFields: ["teamInvitePreview"],
    resolvers: {
      Team: {
        id: (t: TeamRow) => t.publicId,
        createdAt: (t: TeamRow) => t.createdAt.toISOString(),
        memberCount: (t: TeamRow, _: Args, ctx: GraphQLContext) => memberCount(ctx, t.id),
        viewerRole: async (t: TeamRow, _: Args, ctx: GraphQLContext) => {
          const m = await store.membershipOf(sql, requireViewer(ctx).userId);
          return m && m.teamId === t.id ? m.role : "member";
        },
        defaultSubCommunity: (t: TeamRow, _: Args, ctx: GraphQLContext) =>
          t.defaultSubCommunityId ? loadSubCommunity(ctx, t.defaultSubCommunityId) : null,
        members: (t: TeamRow, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            ({ limit, after }) => store.membersPage(sql, t.id, after, limit),
            (r) => [r.joinedAt.toISOString(), r.userPublicId],
          ),
      },
      TeamMember: {
        user: (m: MemberRow, _: Args, ctx: GraphQLContext) => deps.users.loadUser(ctx, m.userId),
        joinedAt: (m: MemberRow) => m.joinedAt.toISOString(),
      },
      SubCommunity: {
        id: (s: SubCommunityRow) => s.publicId,
        isDefault: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await loadTeam(ctx, s.teamId))?.defaultSubCommunityId === s.id,
        memberCount: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await scFigures(ctx, s.id))?.memberCount ?? 0,
        viewerIsMember: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await scFigures(ctx, s.id))?.viewerIsMember ?? false,
        archivedAt: (s: SubCommunityRow) => iso(s.archivedAt),
        createdAt: (s: SubCommunityRow) => s.createdAt.toISOString(),
      },
      TeamActivity: {
        at: (a: store.ActivityRow) => a.at.toISOString(),
        user: (a: store.ActivityRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, a.userId),
        subCommunity: (a: store.ActivityRow, _: Args, ctx: GraphQLContext) =>
          a.subCommunityId ? loadSubCommunity(ctx, a.subCommunityId) : null,
      },
      TeamInvite: {
        id: (i: InviteRow) => i.publicId,
        expiresAt: (i: InviteRow) => i.expiresAt.toISOString(),
        revoked: (i: InviteRow) => i.revokedAt !== null,
        createdBy: (i: InviteRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, i.createdBy),
        createdAt: (i: InviteRow) => i.createdAt.toISOString(),
      },
      TeamLeaderboardEntry: {
        user: (r: LeaderboardRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, r.userId),
      },
      Query: {
        myTeam: async (_: unknown, __: Args, ctx: GraphQLContext) => {
          const m = await store.membershipOf(sql, requireViewer(ctx).userId);
          return m ? await loadTeam(ctx, m.teamId) : null;
        },
        teamHome: async (_: unknown, args: { teamId: string }, ctx: GraphQLContext) => {
          const a = await access(ctx, args.teamId);
          const m = (await store.membershipOf(sql, a.userId))!;
          const standing = await store.standingOf(
            sql,
            a.team.id,
            a.userId,
            pointsKey("WEEKLY", now()),
          );
          return {
            team: a.team,
            defaultSubCommunity: a.team.defaultSubCommunityId
              ? loadSubCommunity(ctx, a.team.defaultSubCommunityId)
              : null,
            subCommunities: store.subCommunitiesOfTeam(sql, a.team.id, false),
            recentActivity: store.recentActivity(sql, a.team.id),
            standing: {
              role: a.role,
              leaderboardVisible: m.leaderboardVisible,
              weeklyRank: standing?.rank ?? null,
              weeklyScore: standing?.score ?? 0,
            },
          };
        },
        teamSettings: async (_: unknown, args: { teamId: string }, ctx: GraphQLContext) => {
          const a = await adminAccess(ctx, args.teamId);
          return {
            team: a.team,
            activeInvites: store.activeInvites(sql, a.team.id, now()),
            subCommunities: store.subCommunitiesOfTeam(sql, a.team.id, true),
          };
        },
        teamInvitePreview: async (_: unknown, args: { token: string }) => {
          const invalid = {
            valid: false,
            teamName: null,
            memberCount: null,
            inviterName: null,
            expiresAt: null,
          };
          if (!looksLikeInviteToken(args.token)) return invalid;
          const row = await store.invitePreview(
            sql,
            await store.hashInviteToken(args.token),
            now(),
          );
          if (!row) return invalid;
          const [inviter] = await deps.users.usersByIds([row.inviterId]);
          return {
            valid: true,
            teamName: row.teamName,
            memberCount: row.memberCount,
            inviterName: inviter ? displayName(inviter) : null,
            expiresAt: row.expiresAt.toISOString(),
          };
        },
        teamLeaderboard: (_: unknown, args: Args, ctx: GraphQLContext) => leaderboard(ctx, args),
        teamLeaderboardOptOutStats: adminField(async () => {
          const rows = await store.optOutStats(sql);
          return rows.map((r) => ({
            teamId: r.teamPublicId,
            teamName: r.name,
            optedOutCount: r.optedOut,
          }));
        }),
      },
      Mutation: {
        createTeam: viewerField(async (viewer, args: { name: string }) => {
          const problem = nameError("name", args.name, TEAM_NAME_MAX);
          if (problem) return { team: null, errors: [problem] };
          const team = await store.createTeam(deps.db.sql, viewer.userId, args.name.trim(), now());
          return team
            ? { team, errors: [] }
            : { team: null, errors: ["you already belong to a team"] };
        }),
        createTeamInvite: async (
          _: unknown,
          args: { teamId: string; expiresInHours?: number | null; maxUses?: number | null },
          ctx: GraphQLContext,
        ) => {
          const a = await adminAccess(ctx, args.teamId);
          const errors = inviteInputErrors(args.expiresInHours, args.maxUses);
          if (errors.length) return { invite: null, token: null, errors };
          const at = now();
          const hours = args.expiresInHours ?? INVITE_DEFAULT_HOURS;
          const { token, hash } = await store.newInviteToken();
          const invite = await store.insertInvite(sql, a, {
            teamId: a.team.id,
            hash,
            expiresAt: new Date(at.getTime() + hours * 3_600_000),
            maxUses: args.maxUses ?? null,
            at,
          });
          if (!invite) throw forbidden("team owner or admin required");
          return { invite, token, errors: [] };
        },
        revokeTeamInvite: async (_: unknown, args: { inviteId: string }, ctx: GraphQLContext) => {
          const m = await ownMembership(ctx);
          if (!looksLikePublicId(args.inviteId)) throw notFound("invite");
          const existing = await store.inviteOfTeam(sql, m.teamId, args.inviteId);
          if (!existing) throw notFound("invite");
          if (!isAdminRole(m.role)) throw forbidden("team owner or admin required");
          const { result, invite } = await store.revokeInvite(
            sql,
            m,
            m.teamId,
            args.inviteId,
            now(),
          );
          if (result === "forbidden") throw forbidden("team owner or admin required");
          return result === "done"
            ? { invite, errors: [] }
            : { invite: null, errors: ["invite is already revoked"] };
        },
        acceptTeamInvite: viewerField(async (viewer, args: { token: string }, ctx) => {
          const refused = {
            team: null,
            errors: ["invite is invalid, expired, revoked or used up"],
          };
          if (!looksLikeInviteToken(args.token)) return refused;
          const result = await store.acceptInvite(
            sql,
            await store.hashInviteToken(args.token),
            viewer.userId,
            now(),
          );
          if (result === "refused") return refused;
          if (result === "already_member") {
            return { team: null, errors: ["you already belong to a team"] };
          }
          return { team: await loadTeam(ctx, result.teamId), errors: [] };
        }),
        promoteTeamMember: async (
          _: unknown,
          args: { teamId: string; userId: string; role: TeamRole },
          ctx: GraphQLContext,
        ) => {
          const a = await access(ctx, args.teamId);
          if (!isAdminRole(a.role)) throw forbidden("team owner or admin required");
          if (!looksLikePublicId(args.userId)) throw notFound("member");
          const target = await store.memberOfTeam(sql, a.team.id, args.userId);
          if (!target) throw notFound("member");
          const problem = roleChangeError(a.role, target.role, args.role);
          if (problem === "forbidden") throw forbidden("admins cannot change owners' roles");
          if (problem === "unchanged") return { member: target, errors: [] };
          const result = await store.moveMember(
            sql,
            a,
            a.team.id,
            target.userId,
            target.role,
            args.role,
          );
          if (result === "last_owner") {
            return { member: null, errors: ["a team needs at least one owner"] };
          }
          if (result === "stale") {
            return {
              member: null,
              errors: ["the member's role or yours changed meanwhile; try again"],
            };
          }
          return { member: { ...target, role: args.role }, errors: [] };
        },
        removeTeamMember: async (
          _: unknown,
          args: { teamId: string; userId: string },
          ctx: GraphQLContext,
        ) => {
          const a = await access(ctx, args.teamId);
          if (!looksLikePublicId(args.userId)) throw notFound("member");
          const target = await store.memberOfTeam(sql, a.team.id, args.userId);
          if (!target) throw notFound("member");
          const self = target.userId === a.userId;
          if (!removalAllowed(a.role, target.role, self)) {
            throw forbidden("not allowed to remove this member");
          }
          const result = await store.moveMember(
            sql,
            a,
            a.team.id,
            target.userId,
            target.role,
            null,
          );
          if (result === "last_owner") {
            return {
              removed: false,
              errors: ["the last owner cannot be removed; make someone else owner first"],
            };
          }
          if (result === "stale") {
            return {
              removed: false,
              errors: ["the member's role or yours changed meanwhile; try again"],
            };
          }
          return { removed: true, errors: [] };
        },
        createSubCommunity: async (
          _: unknown,
          args: { teamId: string; name: string; description?: string | null; open: boolean },
          ctx: GraphQLContext,
        ) => {
          const a = await adminAccess(ctx, args.teamId);
          const errors = [
            nameError("name", args.name, SUB_COMMUNITY_NAME_MAX),
            descriptionError(args.description),
          ].filter((e): e is string => e !== null);
          if (errors.length) return { subCommunity: null, errors };
          const sc = await store.createSubCommunity(sql, a, {
            teamId: a.team.id,
            name: args.name.trim(),
            description: args.description?.trim() || null,
            open: args.open,
            at: now(),
          });
          if (!sc) throw forbidden("team owner or admin required");
          return { subCommunity: sc, errors: [] };
        },
        archiveSubCommunity: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.archiveSubCommunity(sql, m, m.teamId, sc.id, now());
          if (result === "forbidden") throw forbidden("team owner or admin required");
          return result === "done"
            ? scPayload(await store.subCommunityOfTeam(sql, m.teamId, sc.publicId))
            : scPayload(
              null,
              sc.archived
                ? "sub-community is already archived"
                : "the default sub-community cannot be archived",
            );
        },
        unarchiveSubCommunity: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.unarchiveSubCommunity(sql, m, m.teamId, sc.id);
          if (result === "forbidden") throw forbidden("team owner or admin required");
          return result === "done"
            ? scPayload({ ...sc, archived: false, archivedAt: null })
            : scPayload(null, "sub-community is not archived");
        },
        setDefaultSubCommunity: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.setDefaultSubCommunity(sql, m, m.teamId, sc.id);
          if (result === "forbidden") throw forbidden("team owner or admin required");
          return result === "done"
            ? scPayload(sc)
            : scPayload(null, "an archived sub-community cannot be the default");
        },
        joinSubCommunity: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, false);
          if (!sc.open || sc.archived) {
            return scPayload(null, "only open, active sub-communities can be joined");
          }
          await store.joinSubCommunity(sql, m.teamId, sc.id, m.userId, now());
          return scPayload(sc);
        },
        leaveSubCommunity: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, false);
          if (!sc.open || sc.archived) {
            return scPayload(null, "only open, active sub-communities can be left");
          }
          const ok = await store.leaveSubCommunity(sql, m.teamId, sc.id, m.userId);
          return ok ? scPayload(sc) : scPayload(
            null,
            "you are not a member, or it is the team's default sub-community",
          );
        },
        addSubCommunityMember: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc, userId } = await subCommunityMemberArgs(ctx, args);
          if (sc.archived) return scPayload(null, "an archived sub-community takes no members");
          const result = await store.addSubCommunityMember(sql, m, m.teamId, sc.id, userId, now());
          if (result === "forbidden") throw forbidden("team owner or admin required");
          const fresh = await store.subCommunityOfTeam(sql, m.teamId, sc.publicId);
          return fresh && !fresh.archived
            ? scPayload(fresh)
            : scPayload(null, "an archived sub-community takes no members");
        },
        removeSubCommunityMember: async (_: unknown, args: Args, ctx: GraphQLContext) => {
          const { m, sc, userId } = await subCommunityMemberArgs(ctx, args);
          if (sc.archived) return scPayload(null, "an archived sub-community cannot change");
          const result = await store.removeSubCommunityMember(sql, m, m.teamId, sc.id, userId);
          if (result === "forbidden") throw forbidden("team owner or admin required");
          return result === "done" ? scPayload(sc) : scPayload(
            null,
            "not a member of this sub-community, or it is the team's default",
          );
        },
        setLeaderboardVisibility: viewerField(async (viewer, args: { visible: boolean }) => {
          const ok = await store.setLeaderboardVisibility(sql, viewer.userId, args.visible);
          return ok
            ? { visible: args.visible, errors: [] }
            : { visible: null, errors: ["you do not belong to a team"] };
        }),
      },
    },
  };
}
