/**
 * GraphQL for blocking and reporting: `blockUser`, `unblockUser`, `blockedUsers`, `reportUser`,
 * `reportPost`, and the admins' `reports` queue with `resolveReport` (docs/domain.md, "Blocking"
 * and "Reports"). A block ends what links the two users (partners' `unlink`) in its own
 * transaction; what it hides afterwards is checked by each feature's statements.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { adminField, type GraphQLContext, viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import { userError } from "../../platform/user-error.ts";
import type { BlockRow, UsersApi } from "../users/mod.ts";
import type { PartnersApi } from "../partners/mod.ts";
import type { CommunitiesApi } from "../communities/mod.ts";
import {
  blockError,
  notOpenError,
  reportDetails,
  type ReportReason,
  type ReportResolution,
  type ReportStatus,
  resolutionNote,
  selfReportError,
} from "./rules.ts";
import * as store from "./store.ts";
import type { ReportRow } from "./store.ts";

export interface SafetyDeps {
  db: Database;
  clock: Clock;
  users: Pick<
    UsersApi,
    "loadUser" | "userByPublicId" | "lockPair" | "block" | "unblock" | "blockPage" | "blockCount"
  >;
  partners: Pick<PartnersApi, "unlink">;
  communities: Pick<CommunitiesApi, "readablePost" | "loadPost">;
}

const typeDefs = /* GraphQL */ `
  "A user the viewer blocks."
  type BlockedUser {
    user: User!
    blockedAt: DateTime!
  }

  ${connectionTypeDefs("BlockedUser")}

  type BlockPayload {
    "The user blocked or unblocked; null when nothing changed."
    user: User
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
    "Reports a user to the admins (one open report per user and reporter)."
    reportUser(userId: String!, reason: ReportReason!, details: String): ReportPayload!
    "Reports a community post the viewer can read to the admins."
    reportPost(postId: String!, reason: ReportReason!, details: String): ReportPayload!
    "Admin: closes an open report as actioned or dismissed."
    resolveReport(id: String!, resolution: ReportResolution!, note: String): ReportPayload!
  }
`;

const userNotFound = userError("not_found", "no such user", "userId");

interface ReportArgs {
  reason: ReportReason;
  details?: string | null;
}

export function safetyModule(deps: SafetyDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const user = (ctx: GraphQLContext, id: string | null) =>
    id === null ? null : deps.users.loadUser(ctx, id);

  const blockUser = viewerField(async (viewer, args: { userId: string }) => {
    const other = await deps.users.userByPublicId(args.userId);
    if (!other) return { user: null, errors: [userNotFound] };
    const problem = blockError(viewer.userId, other.id);
    if (problem) return { user: null, errors: [problem] };
    const blocked = await sql.begin(async (tx) => {
      await deps.users.lockPair(tx, viewer.userId, other.id);
      if (!(await deps.users.block(tx, viewer.userId, other.id, now()))) return false;
      await deps.partners.unlink(tx, viewer.userId, other.id, now());
      return true;
    });
    return blocked
      ? { user: other, errors: [] }
      : { user: null, errors: [userError("already_blocked", "you already block this user")] };
  });

  const unblockUser = viewerField(async (viewer, args: { userId: string }) => {
    const other = await deps.users.userByPublicId(args.userId);
    if (!other) return { user: null, errors: [userNotFound] };
    return await deps.users.unblock(viewer.userId, other.id)
      ? { user: other, errors: [] }
      : { user: null, errors: [userError("not_blocked", "you do not block this user", "userId")] };
  });

  const alreadyReported = userError(
    "already_reported",
    "you already reported this; an admin will look at it",
  );

  const reportUser = viewerField(async (viewer, args: ReportArgs & { userId: string }) => {
    const { details, errors } = reportDetails(args.reason, args.details);
    if (errors.length) return { report: null, errors };
    const other = await deps.users.userByPublicId(args.userId);
    if (!other) return { report: null, errors: [userNotFound] };
    const self = selfReportError(viewer.userId, other.id, "userId");
    if (self) return { report: null, errors: [self] };
    const report = await store.insertReport(sql, {
      reporterId: viewer.userId,
      reportedUserId: other.id,
      post: null,
      reason: args.reason,
      details,
      at: now(),
    });
    return report ? { report, errors: [] } : { report: null, errors: [alreadyReported] };
  });

  const reportPost = viewerField(
    async (viewer, args: ReportArgs & { postId: string }, ctx: GraphQLContext) => {
      const { details, errors } = reportDetails(args.reason, args.details);
      if (errors.length) return { report: null, errors };
      const post = await deps.communities.readablePost(ctx, args.postId);
      if (!post) {
        return { report: null, errors: [userError("not_found", "no such post", "postId")] };
      }
      const self = selfReportError(viewer.userId, post.authorId, "postId");
      if (self) return { report: null, errors: [self] };
      const report = await store.insertReport(sql, {
        reporterId: viewer.userId,
        reportedUserId: post.authorId,
        post: { id: post.id, publicId: post.publicId, body: post.body },
        reason: args.reason,
        details,
        at: now(),
      });
      return report ? { report, errors: [] } : { report: null, errors: [alreadyReported] };
    },
  );

  const resolveReport = adminField(
    async (admin, args: { id: string; resolution: ReportResolution; note?: string | null }) => {
      const { note, errors } = resolutionNote(args.note);
      if (errors.length) return { report: null, errors };
      const notFound = userError("not_found", "no such report", "id");
      if (!looksLikePublicId(args.id)) return { report: null, errors: [notFound] };
      const result = await store.resolveReport(sql, args.id, {
        adminId: admin.userId,
        status: args.resolution,
        note,
        at: now(),
      });
      if ("report" in result) return { report: result.report, errors: [] };
      return { report: null, errors: [result.status ? notOpenError(result.status) : notFound] };
    },
  );

  const iso = (d: Date | null) => d?.toISOString() ?? null;

  return {
    typeDefs,
    resolvers: {
      BlockedUser: { blockedAt: (b: BlockRow) => b.blockedAt.toISOString() },
      Report: {
        id: (r: ReportRow) => r.publicId,
        subject: (r: ReportRow) => r.postId === null ? "user" : "post",
        reporter: (r: ReportRow, _: unknown, ctx: GraphQLContext) => user(ctx, r.reporterId),
        reportedUser: (r: ReportRow, _: unknown, ctx: GraphQLContext) =>
          user(ctx, r.reportedUserId),
        post: (r: ReportRow, _: unknown, ctx: GraphQLContext) =>
          r.postId === null ? null : deps.communities.loadPost(ctx, r.postId),
        reportedBody: (r: ReportRow) => r.postBody,
        createdAt: (r: ReportRow) => r.createdAt.toISOString(),
        resolvedAt: (r: ReportRow) => iso(r.resolvedAt),
        resolvedBy: (r: ReportRow, _: unknown, ctx: GraphQLContext) => user(ctx, r.resolvedBy),
      },
      Query: {
        blockedUsers: viewerField((viewer, args: PageArgs) =>
          paginate(
            args,
            ["string", "string"],
            (window) => deps.users.blockPage(viewer.userId, window),
            (b) => [b.blockedAt.toISOString(), b.user.publicId],
            { totalCount: () => deps.users.blockCount(viewer.userId) },
          )
        ),
        reports: adminField((_, args: PageArgs & { status: ReportStatus }) =>
          paginate(
            args,
            ["string", "string"],
            (window) => store.reportPage(sql, args.status, window),
            (r) => [r.createdAt.toISOString(), r.publicId],
            { totalCount: () => store.reportCount(sql, args.status) },
          )
        ),
      },
      Mutation: { blockUser, unblockUser, reportUser, reportPost, resolveReport },
    },
  };
}
