/**
 * GraphQL for teams: `createTeam`, `myTeam`, `teamHome`, `teamSettings`,
 * `teamInvitePreview` (public), invites, members and roles, team sub-communities, team
 * leaderboards with opt-out and the admins' opt-out stats. The SDL is `typedefs.ts`; resolvers
 * adapt arguments to the use cases of `service.ts` and load rows by id through DataLoaders.
 * Decisions: docs/domain.md "Teams".
 */
import {
  adminField,
  type GraphQLContext,
  requireViewer,
  viewerField,
} from "../../graphql/context.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { badUserInput } from "../../graphql/errors.ts";
import type {
  MutationResolvers,
  QueryResolvers,
  SubCommunityResolvers,
  TeamActivityResolvers,
  TeamHomeResolvers,
  TeamInviteResolvers,
  TeamLeaderboardEntryResolvers,
  TeamMemberResolvers,
  TeamResolvers,
  TeamSettingsResolvers,
} from "../../graphql/resolvers.gen.ts";
import * as service from "./service.ts";
import type {
  ActivityRow,
  InviteRow,
  LeaderboardRow,
  MemberRow,
  SubCommunityRow,
  TeamHome,
  TeamRow,
  TeamsDeps,
  TeamSettings,
} from "./service.ts";
import { teamsTypeDefs } from "./typedefs.ts";

export type { TeamsDeps };

/** The codes each teams mutation may answer in its payload's `errors`. */
const errorCodes = {
  createTeam: ["invalid", "already_in_team", "idempotency_key_reused"],
  createTeamInvite: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
  revokeTeamInvite: ["not_found", "not_allowed"],
  acceptTeamInvite: ["invite_unusable", "already_in_team"],
  promoteTeamMember: ["not_found", "not_allowed", "last_owner", "conflict"],
  removeTeamMember: ["not_found", "not_allowed", "last_owner", "conflict"],
  updateTeam: ["not_found", "not_allowed", "invalid"],
  transferTeamOwnership: ["not_found", "not_allowed", "invalid", "conflict"],
  deleteTeam: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
  createSubCommunity: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
  archiveSubCommunity: ["not_found", "not_allowed", "is_default"],
  unarchiveSubCommunity: ["not_found", "not_allowed"],
  setDefaultSubCommunity: ["not_found", "not_allowed", "archived"],
  joinSubCommunity: ["not_found", "closed"],
  leaveSubCommunity: ["not_found", "closed", "is_default"],
  addSubCommunityMember: ["not_found", "not_allowed", "archived"],
  removeSubCommunityMember: ["not_found", "not_allowed", "archived", "is_default"],
  setLeaderboardVisibility: ["not_in_team"],
} satisfies Record<string, readonly service.TeamsErrorCode[]>;

export function teamsModule(deps: TeamsDeps): GraphQLModule {
  const loadTeam = (ctx: GraphQLContext, id: string) =>
    loadByKey(ctx, "teamById", (ids) => service.teamsByIds(deps, ids), (r) => r.id, id);

  const loadSubCommunity = (ctx: GraphQLContext, id: string) =>
    loadByKey(
      ctx,
      "teamSubCommunityById",
      (ids) => service.subCommunitiesByIds(deps, ids),
      (r) => r.id,
      id,
    );

  const scFigures = (ctx: GraphQLContext, id: string) => {
    const viewer = requireViewer(ctx);
    return loadByKey(
      ctx,
      "teamSubCommunityFigures",
      (ids) => service.subCommunityFigures(deps, viewer, ids),
      (r) => r.id,
      id,
    );
  };

  const memberCount = (ctx: GraphQLContext, teamId: string) =>
    ctx.loader<string, number>("teamMemberCount", (ids) => service.memberCounts(deps, ids))
      .load(teamId);

  const Team: TeamResolvers = {
    id: (t: TeamRow) => t.publicId,
    memberCount: (t: TeamRow, _, ctx) => memberCount(ctx, t.id),
    viewerRole: (t: TeamRow, _, ctx) => service.viewerRole(deps, requireViewer(ctx), t),
    defaultSubCommunity: (t: TeamRow, _, ctx) =>
      t.defaultSubCommunityId ? loadSubCommunity(ctx, t.defaultSubCommunityId) : null,
    members: (t: TeamRow, args, ctx) =>
      service.members(deps, t.id, args, () => memberCount(ctx, t.id)),
  };

  const TeamMember: TeamMemberResolvers = {
    user: (m: MemberRow, _, ctx) => deps.users.loadUser(ctx, m.userId),
  };

  const SubCommunity: SubCommunityResolvers = {
    id: (s: SubCommunityRow) => s.publicId,
    isDefault: async (s: SubCommunityRow, _, ctx) =>
      (await loadTeam(ctx, s.teamId))?.defaultSubCommunityId === s.id,
    memberCount: async (s: SubCommunityRow, _, ctx) =>
      (await scFigures(ctx, s.id))?.memberCount ?? 0,
    viewerIsMember: async (s: SubCommunityRow, _, ctx) =>
      (await scFigures(ctx, s.id))?.viewerIsMember ?? false,
  };

  const TeamActivity: TeamActivityResolvers = {
    occurredAt: (a: ActivityRow) => a.at,
    user: (a: ActivityRow, _, ctx) => deps.users.loadUser(ctx, a.userId),
    subCommunity: (a: ActivityRow, _, ctx) =>
      a.subCommunityId ? loadSubCommunity(ctx, a.subCommunityId) : null,
  };

  const TeamHome: TeamHomeResolvers = {
    defaultSubCommunity: (h: TeamHome, _, ctx) =>
      h.team.defaultSubCommunityId ? loadSubCommunity(ctx, h.team.defaultSubCommunityId) : null,
    recentActivity: (h: TeamHome, args) => service.recentActivity(deps, h.team, args),
  };

  const TeamSettings: TeamSettingsResolvers = {
    activeInvites: (s: TeamSettings, args) => service.activeInvites(deps, s, args),
  };

  const TeamInvite: TeamInviteResolvers = {
    id: (i: InviteRow) => i.publicId,
    revoked: (i: InviteRow) => i.revokedAt !== null,
    createdBy: (i: InviteRow, _, ctx) => deps.users.loadUser(ctx, i.createdBy),
  };

  const TeamLeaderboardEntry: TeamLeaderboardEntryResolvers = {
    user: (r: LeaderboardRow, _, ctx) => deps.users.loadUser(ctx, r.userId),
  };

  const Query: QueryResolvers = {
    myTeam: viewerField(async (viewer, _, ctx) => {
      const teamId = await service.myTeamId(deps, viewer);
      return teamId ? await loadTeam(ctx, teamId) : null;
    }),
    teamHome: viewerField((viewer, args) => service.teamHome(deps, viewer, args)),
    teamSettings: viewerField((viewer, args) => service.teamSettings(deps, viewer, args)),
    teamInvitePreview: (_, args) => service.teamInvitePreview(deps, args),
    teamLeaderboard: viewerField((viewer, args) => {
      const { teamId, subCommunityId, period, ...page } = args;
      if ((teamId ? 1 : 0) + (subCommunityId ? 1 : 0) !== 1) {
        throw badUserInput("give exactly one of teamId and subCommunityId");
      }
      const scope = teamId ? { teamId } : { subCommunityId: subCommunityId! };
      return service.teamLeaderboard(deps, viewer, { scope, period, page });
    }),
    teamLeaderboardOptOutStats: adminField((_, args) => service.optOutStats(deps, args)),
  };

  const Mutation: MutationResolvers = {
    createTeam: viewerField((viewer, args) => service.createTeam(deps, viewer, args)),
    createTeamInvite: viewerField((viewer, args) => service.createTeamInvite(deps, viewer, args)),
    revokeTeamInvite: viewerField((viewer, args) => service.revokeTeamInvite(deps, viewer, args)),
    acceptTeamInvite: viewerField((viewer, args) => service.acceptTeamInvite(deps, viewer, args)),
    promoteTeamMember: viewerField((viewer, args) => service.promoteTeamMember(deps, viewer, args)),
    removeTeamMember: viewerField((viewer, args) => service.removeTeamMember(deps, viewer, args)),
    updateTeam: viewerField((viewer, args) => service.updateTeam(deps, viewer, args)),
    transferTeamOwnership: viewerField((viewer, args) =>
      service.transferTeamOwnership(deps, viewer, args)
    ),
    deleteTeam: viewerField((viewer, args) => service.deleteTeam(deps, viewer, args)),
    createSubCommunity: viewerField((viewer, args) =>
      service.createSubCommunity(deps, viewer, args)
    ),
    archiveSubCommunity: viewerField((viewer, args) =>
      service.archiveSubCommunity(deps, viewer, args)
    ),
    unarchiveSubCommunity: viewerField((viewer, args) =>
      service.unarchiveSubCommunity(deps, viewer, args)
    ),
    setDefaultSubCommunity: viewerField((viewer, args) =>
      service.setDefaultSubCommunity(deps, viewer, args)
    ),
    joinSubCommunity: viewerField((viewer, args) => service.joinSubCommunity(deps, viewer, args)),
    leaveSubCommunity: viewerField((viewer, args) => service.leaveSubCommunity(deps, viewer, args)),
    addSubCommunityMember: viewerField((viewer, args) =>
      service.addSubCommunityMember(deps, viewer, args)
    ),
    removeSubCommunityMember: viewerField((viewer, args) =>
      service.removeSubCommunityMember(deps, viewer, args)
    ),
    setLeaderboardVisibility: viewerField((viewer, args) =>
      service.setLeaderboardVisibility(deps, viewer, args)
    ),
  };

  return {
    typeDefs: teamsTypeDefs,
    publicFields: ["teamInvitePreview"],
    errorCodes,
    // Only the viewer's own team can be fetched by id (as myTeam shows it).
    lookups: {
      Team: async (id, ctx) => {
        const teamId = await service.myTeamId(deps, requireViewer(ctx));
        const team = teamId ? await loadTeam(ctx, teamId) : null;
        return team?.publicId === id ? team : null;
      },
    },
    resolvers: {
      Team,
      TeamMember,
      SubCommunity,
      TeamActivity,
      TeamHome,
      TeamSettings,
      TeamInvite,
      TeamLeaderboardEntry,
      TeamPayload: payloadFlags("alreadyMember", "alreadyOwner"),
      TeamInvitePayload: payloadFlags("alreadyRevoked"),
      TeamMemberPayload: payloadFlags("alreadyRemoved"),
      SubCommunityPayload: payloadFlags(
        "alreadyArchived",
        "alreadyUnarchived",
        "alreadyLeft",
        "alreadyRemoved",
      ),
      Query,
      Mutation,
    },
  };
}
