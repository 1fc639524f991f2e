/**
 * GraphQL for teams: `createTeam`, `myTeam`, `teamHome`, `teamSettings`,
 * `teamInvitePreview` (public), invites, members and roles, team sub-communities, team
 * leaderboards with opt-out and the admins' opt-out stats. Decisions: docs/domain.md "Teams".
 */
import type { Database, Queryable } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { adminField, type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { isForeignKeyViolation } from "../../platform/db-errors.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
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
  ownerOnly,
  periodStart,
  pointsKey,
  removalAllowed,
  roleChangedNotice,
  roleChangeError,
  SUB_COMMUNITY_NAME_MAX,
  TEAM_NAME_MAX,
  type TeamRole,
  transferError,
} from "./rules.ts";
import * as store from "./store.ts";
import type { InviteRow, LeaderboardRow, MemberRow, SubCommunityRow, TeamRow } from "./store.ts";

export interface TeamsDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser" | "usersByIds">;
  notifications: NotificationsApi;
}

const typeDefs = /* GraphQL */ `
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

  type TeamPayload { team: Team errors: [UserError!]! }
  type CreateTeamInvitePayload {
    invite: TeamInvite
    "The invite token; shown only here, the service keeps only its hash."
    token: String
    errors: [UserError!]!
  }
  type TeamInvitePayload { invite: TeamInvite errors: [UserError!]! }
  type TeamMemberPayload { member: TeamMember errors: [UserError!]! }
  type SubCommunityPayload { subCommunity: SubCommunity errors: [UserError!]! }
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
    createTeam(name: String!): TeamPayload!
    "Team owners and admins. expiresInHours: 1..720, default 168; maxUses: 1..1000, default unlimited."
    createTeamInvite(teamId: String!, expiresInHours: Int, maxUses: Int): CreateTeamInvitePayload!
    revokeTeamInvite(inviteId: String!): TeamInvitePayload!
    "Joins the invite's team and its default sub-community."
    acceptTeamInvite(token: String!): TeamPayload!
    "Sets a member's role: owners any role, admins between member and admin."
    promoteTeamMember(teamId: String!, userId: String!, role: TeamRole!): TeamMemberPayload!
    "Removes a member (returned as they were); with one's own userId, leaves the team. The last owner cannot go."
    removeTeamMember(teamId: String!, userId: String!): TeamMemberPayload!
    "Team owners: renames the team (1..80 characters)."
    updateTeam(teamId: String!, name: String!): TeamPayload!
    "A team owner hands ownership to an admin or member and becomes an admin."
    transferTeamOwnership(teamId: String!, userId: String!): TeamPayload!
    "Team owners: deletes the team with its sub-communities and invites; its members belong to no team afterwards."
    deleteTeam(teamId: String!): DeleteTeamPayload!
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
    setLeaderboardVisibility(visible: Boolean!): TeamStandingPayload!
  }
`;

interface TeamAccess {
  team: TeamRow;
  role: TeamRole;
  userId: string;
}

type Args = Record<string, unknown>;

/** Why a mutation did nothing (caught into its payload), or why a lookup is null. */
class Refusal extends Error {
  constructor(readonly error: UserError) {
    super(error.message);
  }
}

function refuse(code: string, message: string, field: string | null = null): never {
  throw new Refusal(userError(code, message, field));
}

const NOT_ALLOWED = "team owner or admin required";
const OWNERS_ONLY = "team owner required";

/**
 * A mutation whose refusals become its payload: `nothing` is the payload's objects, all null,
 * with the refusal in `errors`. Top-level errors (UNAUTHENTICATED) pass through.
 */
function mutation<A>(
  nothing: Record<string, null>,
  run: (args: A, ctx: GraphQLContext) => Promise<Record<string, unknown>>,
) {
  return async (_: unknown, args: A, ctx: GraphQLContext) => {
    try {
      return await run(args, ctx);
    } catch (err) {
      if (err instanceof Refusal) return { ...nothing, errors: [err.error] };
      // A write that still referred to a team (or sub-community) deleted meanwhile.
      if (isForeignKeyViolation(err)) {
        return { ...nothing, errors: [userError("not_found", "no such team", "teamId")] };
      }
      throw err;
    }
  };
}

/** A query keyed by a record's id: null when the viewer may not see it. */
function lookup<A, R>(run: (args: A, ctx: GraphQLContext) => Promise<R>) {
  return async (_: unknown, args: A, ctx: GraphQLContext): Promise<R | null> => {
    try {
      return await run(args, ctx);
    } catch (err) {
      if (err instanceof Refusal) return null;
      throw err;
    }
  };
}

export function teamsModule(deps: TeamsDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();

  /** The viewer's team by public id; another team (or none) is not_found. */
  async function access(ctx: GraphQLContext, teamPublicId: string): Promise<TeamAccess> {
    const viewer = requireViewer(ctx);
    if (!looksLikePublicId(teamPublicId)) refuse("not_found", "no such team", "teamId");
    const found = await store.teamWithRole(sql, teamPublicId, viewer.userId);
    if (!found || !found.role) refuse("not_found", "no such team", "teamId");
    return { team: found.team, role: found.role, userId: viewer.userId };
  }

  async function adminAccess(ctx: GraphQLContext, teamPublicId: string): Promise<TeamAccess> {
    const a = await access(ctx, teamPublicId);
    if (!isAdminRole(a.role)) refuse("not_allowed", NOT_ALLOWED);
    return a;
  }

  /** The viewer's membership; none is `field` not_found (there is no team of theirs to act on). */
  async function ownMembership(ctx: GraphQLContext, field: string, what: string) {
    const viewer = requireViewer(ctx);
    const m = await store.membershipOf(sql, viewer.userId);
    if (!m) refuse("not_found", `no such ${what}`, field);
    return { ...m, userId: viewer.userId };
  }

  /** A sub-community of the viewer's team (another team's is not_found), optionally admin-only. */
  async function subCommunityAccess(ctx: GraphQLContext, scPublicId: string, admin: boolean) {
    const missing = () => refuse("not_found", "no such sub-community", "subCommunityId");
    const m = await ownMembership(ctx, "subCommunityId", "sub-community");
    if (!looksLikePublicId(scPublicId)) missing();
    const sc = await store.subCommunityOfTeam(sql, m.teamId, scPublicId);
    if (!sc) return missing();
    if (admin && !isAdminRole(m.role)) refuse("not_allowed", NOT_ALLOWED);
    return { m, sc };
  }

  /** A member of the team by public user id; anyone else (or a malformed id) is not_found. */
  async function teamMemberArg(teamId: string, userPublicId: unknown) {
    const target = typeof userPublicId === "string" && looksLikePublicId(userPublicId)
      ? await store.memberOfTeam(sql, teamId, userPublicId)
      : null;
    if (!target) refuse("not_found", "no such member of the team", "userId");
    return target;
  }

  /** The sub-community and the team member an owner or admin adds to it or removes from it. */
  async function subCommunityMemberArgs(ctx: GraphQLContext, args: Args) {
    const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
    const target = await teamMemberArg(m.teamId, args.userId);
    return { m, sc, userId: target.userId };
  }

  /** A guarded write's "forbidden": the actor lost their authority while the request ran. */
  const allowedNow = (result: store.GuardedResult) => {
    if (result === "forbidden") refuse("not_allowed", NOT_ALLOWED);
    return result;
  };

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

  /** Whether a sub-community is its team's default (the reason a leave or removal is refused). */
  const isDefault = async (sc: SubCommunityRow) =>
    (await store.teamsByIds(sql, [sc.teamId]))[0]?.defaultSubCommunityId === sc.id;

  /** The member's standing in their team, as this week's board shows it. */
  async function standing(teamId: string, userId: string, m: store.MembershipRow) {
    const entry = await store.standingOf(sql, teamId, userId, pointsKey("weekly", now()));
    return {
      role: m.role,
      leaderboardVisible: m.leaderboardVisible,
      weeklyRank: entry?.rank ?? null,
      weeklyScore: entry?.score ?? 0,
    };
  }

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
      (window) => store.leaderboardPage(sql, scope, pointsKey(period, at), window),
      (r) => [r.score, r.userPublicId],
      { totalCount: () => store.countLeaderboard(sql, scope) },
    );
    return Object.assign(connection, { period, periodStart: start });
  }

  return {
    typeDefs,
    publicFields: ["teamInvitePreview"],
    resolvers: {
      Team: {
        id: (t: TeamRow) => t.publicId,
        memberCount: (t: TeamRow, _: Args, ctx: GraphQLContext) => memberCount(ctx, t.id),
        viewerRole: async (t: TeamRow, _: Args, ctx: GraphQLContext) => {
          const m = await store.membershipOf(sql, requireViewer(ctx).userId);
          return m && m.teamId === t.id ? m.role : "member";
        },
        defaultSubCommunity: (t: TeamRow, _: Args, ctx: GraphQLContext) =>
          t.defaultSubCommunityId ? loadSubCommunity(ctx, t.defaultSubCommunityId) : null,
        members: (t: TeamRow, args: PageArgs, ctx: GraphQLContext) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.membersPage(sql, t.id, window),
            (r) => [r.cursorAt!, r.userPublicId],
            { totalCount: () => memberCount(ctx, t.id) },
          ),
      },
      TeamMember: {
        user: (m: MemberRow, _: Args, ctx: GraphQLContext) => deps.users.loadUser(ctx, m.userId),
      },
      SubCommunity: {
        id: (s: SubCommunityRow) => s.publicId,
        isDefault: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await loadTeam(ctx, s.teamId))?.defaultSubCommunityId === s.id,
        memberCount: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await scFigures(ctx, s.id))?.memberCount ?? 0,
        viewerIsMember: async (s: SubCommunityRow, _: Args, ctx: GraphQLContext) =>
          (await scFigures(ctx, s.id))?.viewerIsMember ?? false,
      },
      TeamActivity: {
        occurredAt: (a: store.ActivityRow) => a.at,
        user: (a: store.ActivityRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, a.userId),
        subCommunity: (a: store.ActivityRow, _: Args, ctx: GraphQLContext) =>
          a.subCommunityId ? loadSubCommunity(ctx, a.subCommunityId) : null,
      },
      TeamHome: {
        recentActivity: (h: { team: TeamRow }, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.activityPage(sql, h.team.id, window),
            (a) => [a.cursorAt, a.key],
            { totalCount: () => store.countActivity(sql, h.team.id) },
          ),
      },
      TeamSettings: {
        activeInvites: (s: { team: TeamRow; at: Date }, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.activeInvitesPage(sql, s.team.id, s.at, window),
            (i) => [i.cursorAt, i.publicId],
            { totalCount: () => store.countActiveInvites(sql, s.team.id, s.at) },
          ),
      },
      TeamInvite: {
        id: (i: InviteRow) => i.publicId,
        revoked: (i: InviteRow) => i.revokedAt !== null,
        createdBy: (i: InviteRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, i.createdBy),
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
        teamHome: lookup(async (args: { teamId: string }, ctx) => {
          const a = await access(ctx, args.teamId);
          const m = (await store.membershipOf(sql, a.userId))!;
          return {
            team: a.team,
            defaultSubCommunity: a.team.defaultSubCommunityId
              ? loadSubCommunity(ctx, a.team.defaultSubCommunityId)
              : null,
            subCommunities: store.subCommunitiesOfTeam(sql, a.team.id, false),
            standing: await standing(a.team.id, a.userId, { ...m, role: a.role }),
          };
        }),
        teamSettings: lookup(async (args: { teamId: string }, ctx) => {
          const a = await adminAccess(ctx, args.teamId);
          return {
            team: a.team,
            at: now(),
            subCommunities: store.subCommunitiesOfTeam(sql, a.team.id, true),
          };
        }),
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
            expiresAt: row.expiresAt,
          };
        },
        teamLeaderboard: lookup((args: Args, ctx) => leaderboard(ctx, args)),
        teamLeaderboardOptOutStats: adminField((_, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.optOutStatsPage(sql, window),
            (r) => [r.name, r.teamPublicId],
            { totalCount: () => store.countTeams(sql) },
          ).then((c) => {
            const nodes = c.nodes.map((r) => ({
              teamId: r.teamPublicId,
              teamName: r.name,
              optedOutCount: r.optedOut,
            }));
            return {
              ...c,
              nodes,
              edges: c.edges.map((e, i) => ({ cursor: e.cursor, node: nodes[i] })),
            };
          })
        ),
      },
      Mutation: {
        createTeam: mutation({ team: null }, async (args: { name: string }, ctx) => {
          const viewer = requireViewer(ctx);
          const problem = nameError("name", args.name, TEAM_NAME_MAX);
          if (problem) return { team: null, errors: [problem] };
          const team = await store.createTeam(deps.db.sql, viewer.userId, args.name.trim(), now());
          if (!team) refuse("already_in_team", "you already belong to a team");
          return { team, errors: [] };
        }),
        createTeamInvite: mutation(
          { invite: null, token: null },
          async (
            args: { teamId: string; expiresInHours?: number | null; maxUses?: number | null },
            ctx,
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
            if (!invite) refuse("not_allowed", NOT_ALLOWED);
            return { invite, token, errors: [] };
          },
        ),
        revokeTeamInvite: mutation({ invite: null }, async (args: { inviteId: string }, ctx) => {
          const missing = () => refuse("not_found", "no such invite", "inviteId");
          const m = await ownMembership(ctx, "inviteId", "invite");
          if (!looksLikePublicId(args.inviteId)) missing();
          const existing = await store.inviteOfTeam(sql, m.teamId, args.inviteId);
          if (!existing) missing();
          if (!isAdminRole(m.role)) refuse("not_allowed", NOT_ALLOWED);
          const { result, invite } = await store.revokeInvite(
            sql,
            m,
            m.teamId,
            args.inviteId,
            now(),
          );
          if (allowedNow(result) === "refused") {
            refuse("already_revoked", "invite is already revoked", "inviteId");
          }
          return { invite, errors: [] };
        }),
        acceptTeamInvite: mutation({ team: null }, async (args: { token: string }, ctx) => {
          const viewer = requireViewer(ctx);
          const unusable = () =>
            refuse("invite_unusable", "invite is invalid, expired, revoked or used up", "token");
          if (!looksLikeInviteToken(args.token)) return unusable();
          const name = (await deps.users.loadUser(ctx, viewer.userId))?.username ?? "Someone";
          const result = await store.acceptInvite(
            sql,
            await store.hashInviteToken(args.token),
            viewer.userId,
            now(),
            async (tx, teamId) => {
              const admins = await store.teamAdmins(tx, teamId);
              await deps.notifications.notifyMany(
                tx,
                "team.member_joined",
                admins.map((admin) => ({
                  userId: admin.userId,
                  content: `${name} joined your team ${admin.teamName}.`,
                })),
              );
            },
          );
          if (result === "refused") return unusable();
          if (result === "already_member") {
            refuse("already_in_team", "you already belong to a team");
          }
          return { team: await loadTeam(ctx, result.teamId), errors: [] };
        }),
        promoteTeamMember: mutation(
          { member: null },
          async (args: { teamId: string; userId: string; role: TeamRole }, ctx) => {
            const a = await access(ctx, args.teamId);
            if (!isAdminRole(a.role)) refuse("not_allowed", NOT_ALLOWED);
            const target = await teamMemberArg(a.team.id, args.userId);
            const problem = roleChangeError(a.role, target.role, args.role);
            if (problem === "forbidden") {
              refuse("not_allowed", "admins cannot change owners' roles");
            }
            if (problem === "unchanged") return { member: target, errors: [] };
            const result = await store.moveMember(
              sql,
              a,
              a.team.id,
              target.userId,
              target.role,
              args.role,
              (tx) => roleChanged(tx, target.userId, a.team.name, args.role),
            );
            moved(result, "a team needs at least one owner");
            return { member: { ...target, role: args.role }, errors: [] };
          },
        ),
        removeTeamMember: mutation(
          { member: null },
          async (args: { teamId: string; userId: string }, ctx) => {
            const a = await access(ctx, args.teamId);
            const target = await teamMemberArg(a.team.id, args.userId);
            const self = target.userId === a.userId;
            if (!removalAllowed(a.role, target.role, self)) {
              refuse("not_allowed", "not allowed to remove this member");
            }
            const result = await store.moveMember(
              sql,
              a,
              a.team.id,
              target.userId,
              target.role,
              null,
            );
            moved(result, "the last owner cannot be removed; make someone else owner first");
            return { member: target, errors: [] };
          },
        ),
        updateTeam: mutation(
          { team: null },
          async (args: { teamId: string; name: string }, ctx) => {
            const a = await access(ctx, args.teamId);
            if (!ownerOnly(a.role)) refuse("not_allowed", OWNERS_ONLY);
            const problem = nameError("name", args.name, TEAM_NAME_MAX);
            if (problem) return { team: null, errors: [problem] };
            const team = await store.renameTeam(sql, a.team.id, a.userId, args.name.trim(), now());
            if (!team) refuse("not_allowed", OWNERS_ONLY);
            return { team, errors: [] };
          },
        ),
        transferTeamOwnership: mutation(
          { team: null },
          async (args: { teamId: string; userId: string }, ctx) => {
            const a = await access(ctx, args.teamId);
            if (!ownerOnly(a.role)) refuse("not_allowed", OWNERS_ONLY);
            const target = await teamMemberArg(a.team.id, args.userId);
            if (transferError(a.role, target.role, target.userId === a.userId) === "invalid") {
              refuse("invalid", "the new owner must be an admin or member of the team", "userId");
            }
            const result = await store.transferOwnership(
              deps.db.sql,
              a.team.id,
              a.userId,
              target.userId,
              target.role,
              (tx) => roleChanged(tx, target.userId, a.team.name, "owner"),
            );
            moved(result, "");
            return { team: a.team, errors: [] };
          },
        ),
        deleteTeam: mutation({ deletedTeamId: null }, async (args: { teamId: string }, ctx) => {
          const a = await access(ctx, args.teamId);
          if (!ownerOnly(a.role)) refuse("not_allowed", OWNERS_ONLY);
          if (!(await store.deleteTeam(deps.db.sql, a.team.id, a.userId))) {
            refuse("not_allowed", OWNERS_ONLY);
          }
          return { deletedTeamId: a.team.publicId, errors: [] };
        }),
        createSubCommunity: mutation(
          { subCommunity: null },
          async (
            args: { teamId: string; name: string; description?: string | null; open: boolean },
            ctx,
          ) => {
            const a = await adminAccess(ctx, args.teamId);
            const errors = [
              nameError("name", args.name, SUB_COMMUNITY_NAME_MAX),
              descriptionError(args.description),
            ].filter((e): e is UserError => e !== null);
            if (errors.length) return { subCommunity: null, errors };
            const sc = await store.createSubCommunity(sql, a, {
              teamId: a.team.id,
              name: args.name.trim(),
              description: args.description?.trim() || null,
              open: args.open,
              at: now(),
            });
            if (!sc) refuse("not_allowed", NOT_ALLOWED);
            return { subCommunity: sc, errors: [] };
          },
        ),
        archiveSubCommunity: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.archiveSubCommunity(sql, m, m.teamId, sc.id, now());
          if (allowedNow(result) === "refused") {
            if (sc.archived) {
              refuse("already_archived", "sub-community is already archived", "subCommunityId");
            }
            refuse(
              "is_default",
              "the default sub-community cannot be archived",
              "subCommunityId",
            );
          }
          return {
            subCommunity: await store.subCommunityOfTeam(sql, m.teamId, sc.publicId),
            errors: [],
          };
        }),
        unarchiveSubCommunity: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.unarchiveSubCommunity(sql, m, m.teamId, sc.id);
          if (allowedNow(result) === "refused") {
            refuse("not_archived", "sub-community is not archived", "subCommunityId");
          }
          return { subCommunity: { ...sc, archived: false, archivedAt: null }, errors: [] };
        }),
        setDefaultSubCommunity: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, true);
          const result = await store.setDefaultSubCommunity(sql, m, m.teamId, sc.id);
          if (allowedNow(result) === "refused") {
            refuse(
              "archived",
              "an archived sub-community cannot be the default",
              "subCommunityId",
            );
          }
          return { subCommunity: sc, errors: [] };
        }),
        joinSubCommunity: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, false);
          if (!sc.open || sc.archived) {
            refuse(
              "closed",
              "only open, active sub-communities can be joined",
              "subCommunityId",
            );
          }
          await store.joinSubCommunity(sql, m.teamId, sc.id, m.userId, now());
          return { subCommunity: sc, errors: [] };
        }),
        leaveSubCommunity: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc } = await subCommunityAccess(ctx, args.subCommunityId as string, false);
          if (!sc.open || sc.archived) {
            refuse("closed", "only open, active sub-communities can be left", "subCommunityId");
          }
          if (!await store.leaveSubCommunity(sql, m.teamId, sc.id, m.userId)) {
            await notMemberOrDefault(sc, "you are not a member of this sub-community");
          }
          return { subCommunity: sc, errors: [] };
        }),
        addSubCommunityMember: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc, userId } = await subCommunityMemberArgs(ctx, args);
          const archived = () =>
            refuse("archived", "an archived sub-community takes no members", "subCommunityId");
          if (sc.archived) archived();
          allowedNow(await store.addSubCommunityMember(sql, m, m.teamId, sc.id, userId, now()));
          const fresh = await store.subCommunityOfTeam(sql, m.teamId, sc.publicId);
          if (!fresh || fresh.archived) archived();
          return { subCommunity: fresh, errors: [] };
        }),
        removeSubCommunityMember: mutation({ subCommunity: null }, async (args: Args, ctx) => {
          const { m, sc, userId } = await subCommunityMemberArgs(ctx, args);
          if (sc.archived) {
            refuse("archived", "an archived sub-community cannot change", "subCommunityId");
          }
          const result = await store.removeSubCommunityMember(sql, m, m.teamId, sc.id, userId);
          if (allowedNow(result) === "refused") {
            await notMemberOrDefault(sc, "not a member of this sub-community", "userId");
          }
          return { subCommunity: sc, errors: [] };
        }),
        setLeaderboardVisibility: mutation(
          { standing: null },
          async (args: { visible: boolean }, ctx) => {
            const viewer = requireViewer(ctx);
            const m = await store.setLeaderboardVisibility(sql, viewer.userId, args.visible);
            if (!m) refuse("not_in_team", "you do not belong to a team");
            return { standing: await standing(m.teamId, viewer.userId, m), errors: [] };
          },
        ),
      },
    },
  };

  /** Tells a member their role in the team changed (`team.role_changed`). */
  function roleChanged(tx: Queryable, userId: string, teamName: string, role: TeamRole) {
    return deps.notifications.notify(
      tx,
      userId,
      "team.role_changed",
      roleChangedNotice(teamName, role),
    );
  }

  /** The refusal of a leave or removal the store did not do. */
  async function notMemberOrDefault(
    sc: SubCommunityRow,
    message: string,
    field = "subCommunityId",
  ): Promise<never> {
    if (await isDefault(sc)) {
      refuse(
        "is_default",
        "everyone belongs to the team's default sub-community",
        "subCommunityId",
      );
    }
    refuse("not_a_member", message, field);
  }
}

/** A role change or removal the store did not do: the last owner, or a role that changed. */
function moved(result: "moved" | "stale" | "last_owner", lastOwner: string) {
  if (result === "last_owner") refuse("last_owner", lastOwner, "userId");
  if (result === "stale") {
    refuse("conflict", "the member's role or yours changed meanwhile; try again");
  }
}
