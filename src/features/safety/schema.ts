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
    "The blocked user."
    user: User!
    "When the viewer blocked them."
    blockedAt: DateTime!
  }

  ${connectionTypeDefs("BlockedUser")}

  "The answer of blockUser and unblockUser."
  type BlockPayload {
    "The user blocked or unblocked; null when nothing was done."
    user: User
    "blockUser: true when the viewer blocked the user already (a retry); nothing changed."
    alreadyBlocked: Boolean!
    "unblockUser: true when the viewer did not block the user (unblocked already, e.g. a retry); nothing changed."
    alreadyUnblocked: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "Why a user or post is reported."
  enum ReportReason {
    "Unwanted advertising or repeated, unsolicited messages."
    spam
    "Bullying, threats or targeted abuse."
    harassment
    "Attacks on people for who they are."
    hate
    "Encouraging or showing self-harm."
    self_harm
    "Sexual, violent or otherwise unsuitable content."
    inappropriate
    "Anything else; details are required."
    other
  }

  "open: waiting for an admin. actioned: an admin acted on it. dismissed: no action needed."
  enum ReportStatus {
    "Waiting for an admin."
    open
    "An admin acted on it."
    actioned
    "An admin found no action needed."
    dismissed
  }

  "How an admin closes a report."
  enum ReportResolution {
    "Action was taken (e.g. the post was removed)."
    actioned
    "No action was needed."
    dismissed
  }

  "What a report is about."
  enum ReportSubject {
    "A user (reportUser)."
    user
    "A community post (reportPost); post and reportedBody are set."
    post
  }

  "A report of a user or of a community post to the admins."
  type Report {
    "The report's public id (the id of resolveReport)."
    id: ID!
    "Whether a user or a post is reported."
    subject: ReportSubject!
    "Why it was reported."
    reason: ReportReason!
    "The reporter's words, trimmed, at most 1000 characters; null when none (always set for reason other)."
    details: String
    "Where the report stands."
    status: ReportStatus!
    "Who filed it."
    reporter: User!
    "The reported user, or the author of the reported post."
    reportedUser: User!
    "The reported post as it is now; null for a report of a user or once the post is removed."
    post: CommunityPost
    "The post's body when it was reported (null for a report of a user)."
    reportedBody: String
    "When it was filed."
    createdAt: DateTime!
    "When an admin resolved it; null while open."
    resolvedAt: DateTime
    "The admin who resolved it; null while open."
    resolvedBy: User
    "The admin's note, at most 1000 characters; null when none was given or while open."
    resolutionNote: String
  }

  ${connectionTypeDefs("Report")}

  "The answer of reportUser, reportPost and resolveReport."
  type ReportPayload {
    "The report as it is now; null when refused."
    report: Report
    "reportUser, reportPost: true when the viewer's open report about it was there already (a retry); report is that one and nothing new was filed."
    alreadyReported: Boolean!
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "The users the viewer blocks, most recently blocked first."
    blockedUsers(
      "Paging forward: how many users, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the users after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many users, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the users before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): BlockedUserConnection!
    "Admin: the reports of one status, oldest first (the moderation queue)."
    reports(
      "Which reports; default open (the queue)."
      status: ReportStatus = open
      "Paging forward: how many reports, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the reports after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many reports, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the reports before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): ReportConnection!
  }

  extend type Mutation {
    """
    Blocks a user: neither of you can send the other requests, see the other's posts or find the
    other by name, and your ally link, requests and partnership end. The user is not told.
    """
    blockUser(
      "The public id of another user."
      userId: String!
    ): BlockPayload!
    "Lifts a block (what it ended stays ended); a user the viewer does not block is answered with alreadyUnblocked."
    unblockUser(
      "The public id of another user (oneself is invalid)."
      userId: String!
    ): BlockPayload!
    "Reports a user to the admins (one open report per user and reporter: reporting again answers it with alreadyReported)."
    reportUser(
      "The public id of another user."
      userId: String!
      "Why the user is reported."
      reason: ReportReason!
      "What happened, at most 1000 characters after trimming; required when reason is other."
      details: String
    ): ReportPayload!
    "Reports a community post the viewer can read to the admins (reporting it again while the report is open answers it with alreadyReported)."
    reportPost(
      "The public id of a post the viewer can read and did not write."
      postId: String!
      "Why the post is reported."
      reason: ReportReason!
      "What is wrong, at most 1000 characters after trimming; required when reason is other."
      details: String
    ): ReportPayload!
    "Admin: closes an open report as actioned or dismissed."
    resolveReport(
      "The public id of an open report (one resolved already is not_open)."
      id: String!
      "How the report is closed."
      resolution: ReportResolution!
      "An optional note on what was done, at most 1000 characters after trimming."
      note: String
    ): ReportPayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof SAFETY_ERROR_CODES[number][]> = {
  blockUser: ["not_found", "invalid"],
  unblockUser: ["not_found", "invalid"],
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
        ["timestamp", "publicId"],
        (window) => service.blockPage(deps, viewer, window),
        (b) => [b.blockedAt.toISOString(), b.user.publicId],
        { totalCount: () => service.blockCount(deps, viewer) },
      )
    ),
    reports: adminField((_, args) =>
      paginate(
        args,
        ["timestamp", "publicId"],
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
      BlockPayload: payloadFlags("alreadyBlocked", "alreadyUnblocked"),
      ReportPayload: payloadFlags("alreadyReported"),
      Query,
      Mutation,
    },
  };
}
