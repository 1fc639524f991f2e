/**
 * GraphQL for blocking and reporting: `blockUser`, `unblockUser`, `blockedUsers`, `reportUser`,
 * `reportPost`, and the admins' `reports` queue with `resolveReport` (docs/domain.md, "Blocking"
 * and "Reports"). A block ends what links the two users (partners' `unlink`) in its own
 * transaction; what it hides afterwards is checked by each feature's statements.
 */
import { adminField, type GraphQLContext, viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import { paginate } from "../../graphql/pagination.ts";
import type {
  BlockedUserResolvers,
  MutationResolvers,
  QueryResolvers,
  ReportResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { BlockRow } from "../users/mod.ts";
import type { SAFETY_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { ReportRow, SafetyDeps } from "./service.ts";

export type { SafetyDeps };

const typeDefs = /* GraphQL */ `
  "A user the viewer blocks."
  type BlockedUser {
    user: User!
    blockedAt: DateTime!
  }

  ${connectionTypeDefs("BlockedUser")}

  type BlockPayload {
    "The user blocked or unblocked; null when nothing was done."
    user: User
    "blockUser: true when the viewer blocked the user already (a retry); nothing changed."
    alreadyBlocked: Boolean!
    errors: [UserError!]!
  }

  enum ReportReason { spam harassment hate self_harm inappropriate other }
  "open: waiting for an admin. actioned: an admin acted on it. dismissed: no action needed."
  enum ReportStatus { open actioned dismissed }
  enum ReportResolution { actioned dismissed }
  enum ReportSubject { user post }

  "A report of a user or of a community post to the admins."
  type Report {
    id: ID!
    subject: ReportSubject!
    reason: ReportReason!
    details: String
    status: ReportStatus!
    reporter: User!
    "The reported user, or the author of the reported post."
    reportedUser: User!
    "The reported post as it is now; null for a report of a user or once the post is removed."
    post: CommunityPost
    "The post's body when it was reported (null for a report of a user)."
    reportedBody: String
    createdAt: DateTime!
    resolvedAt: DateTime
    resolvedBy: User
    resolutionNote: String
  }

  ${connectionTypeDefs("Report")}

  type ReportPayload {
    report: Report
    "reportUser, reportPost: true when the viewer's open report about it was there already (a retry); report is that one and nothing new was filed."
    alreadyReported: Boolean!
    errors: [UserError!]!
  }

  extend type Query {
    "The users the viewer blocks, most recently blocked first."
    blockedUsers(first: Int, after: String, last: Int, before: String): BlockedUserConnection!
    "Admin: the reports of one status, oldest first (the moderation queue)."
    reports(
      status: ReportStatus = open
      first: Int
      after: String
      last: Int
      before: String
    ): ReportConnection!
  }

  extend type Mutation {
    """
    Blocks a user: neither of you can send the other requests, see the other's posts or find the
    other by name, and your ally link, requests and partnership end. The user is not told.
    """
    blockUser(userId: String!): BlockPayload!
    "Lifts a block (what it ended stays ended)."
    unblockUser(userId: String!): BlockPayload!
    "Reports a user to the admins (one open report per user and reporter: reporting again answers it with alreadyReported)."
    reportUser(userId: String!, reason: ReportReason!, details: String): ReportPayload!
    "Reports a community post the viewer can read to the admins (reporting it again while the report is open answers it with alreadyReported)."
    reportPost(postId: String!, reason: ReportReason!, details: String): ReportPayload!
    "Admin: closes an open report as actioned or dismissed."
    resolveReport(id: String!, resolution: ReportResolution!, note: String): ReportPayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof SAFETY_ERROR_CODES[number][]> = {
  blockUser: ["not_found", "invalid"],
  unblockUser: ["not_found", "not_blocked"],
  reportUser: ["invalid", "not_found"],
  reportPost: ["invalid", "not_found"],
  resolveReport: ["invalid", "not_found", "not_open"],
};

export function safetyModule(deps: SafetyDeps): GraphQLModule {
  const user = (ctx: GraphQLContext, id: string | null) =>
    id === null ? null : deps.users.loadUser(ctx, id);
  const iso = (d: Date | null) => d?.toISOString() ?? null;

  const BlockedUser: BlockedUserResolvers = {
    blockedAt: (b: BlockRow) => b.blockedAt.toISOString(),
  };

  const Report: ReportResolvers = {
    id: (r: ReportRow) => r.publicId,
    subject: (r: ReportRow) => r.postId === null ? "user" : "post",
    reporter: (r: ReportRow, _, ctx) => user(ctx, r.reporterId),
    reportedUser: (r: ReportRow, _, ctx) => user(ctx, r.reportedUserId),
    post: (r: ReportRow, _, ctx) =>
      r.postId === null ? null : deps.communities.loadPost(ctx, r.postId),
    reportedBody: (r: ReportRow) => r.postBody,
    createdAt: (r: ReportRow) => r.createdAt.toISOString(),
    resolvedAt: (r: ReportRow) => iso(r.resolvedAt),
    resolvedBy: (r: ReportRow, _, ctx) => user(ctx, r.resolvedBy),
  };

  const Query: QueryResolvers = {
    blockedUsers: viewerField((viewer, args) =>
      paginate(
        args,
        ["string", "string"],
        (window) => service.blockPage(deps, viewer, window),
        (b) => [b.blockedAt.toISOString(), b.user.publicId],
        { totalCount: () => service.blockCount(deps, viewer) },
      )
    ),
    reports: adminField((_, args) =>
      paginate(
        args,
        ["string", "string"],
        (window) => service.reportPage(deps, args.status, window),
        (r) => [r.createdAt.toISOString(), r.publicId],
        { totalCount: () => service.reportCount(deps, args.status) },
      )
    ),
  };

  const Mutation: MutationResolvers = {
    blockUser: viewerField((viewer, args) => service.blockUser(deps, viewer, args)),
    unblockUser: viewerField((viewer, args) => service.unblockUser(deps, viewer, args)),
    reportUser: viewerField((viewer, args) => service.reportUser(deps, viewer, args)),
    reportPost: viewerField((viewer, args, ctx) =>
      service.reportPost(
        deps,
        { userId: viewer.userId, isAdmin: viewer.isAdmin, loader: ctx.loader },
        args,
      )
    ),
    resolveReport: adminField((admin, args) => service.resolveReport(deps, admin, args)),
  };

  return {
    typeDefs,
    errorCodes,
    resolvers: {
      BlockedUser,
      Report,
      BlockPayload: payloadFlags("alreadyBlocked"),
      ReportPayload: payloadFlags("alreadyReported"),
      Query,
      Mutation,
    },
  };
}
