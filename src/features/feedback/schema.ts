/** GraphQL for the feedback board: posts, votes, comments, soft delete, admin status. */
import type { GraphQLContext } from "../../graphql/context.ts";
import { adminField, requireViewer, viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";
import { type PageArgs, type PageWindow, paginate } from "../../graphql/pagination.ts";
import type {
  FeedbackCommentResolvers,
  FeedbackPostResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { UsersApi } from "../users/mod.ts";
import type { FEEDBACK_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { CommentRow, FeedbackServiceDeps, PostRow } from "./service.ts";

const typeDefs = /* GraphQL */ `
  enum FeedbackCategory { feature improvement bug other }
  enum FeedbackStatus { open planned in_progress completed declined }
  "new: newest first; top: most votes first, then newest."
  enum FeedbackSort { new top }

  "A post on the feedback board."
  type FeedbackPost {
    id: ID!
    title: String!
    description: String!
    category: FeedbackCategory!
    status: FeedbackStatus!
    voteCount: Int!
    commentCount: Int!
    author: User!
    "Whether the signed-in user has voted for the post."
    viewerHasVoted: Boolean!
    createdAt: DateTime!
    "Comments, oldest first."
    comments(first: Int, after: String, last: Int, before: String): FeedbackCommentConnection!
  }

  type FeedbackComment {
    id: ID!
    body: String!
    author: User!
    createdAt: DateTime!
  }

  ${connectionTypeDefs("FeedbackPost")}
  ${connectionTypeDefs("FeedbackComment")}

  type FeedbackPostPayload { post: FeedbackPost errors: [UserError!]! }
  type VoteFeedbackPostPayload {
    post: FeedbackPost
    "The caller's vote after the call: true when it is on the post (added, or kept by voted: true), false when it is not (removed, or kept off by voted: false); null when nothing was done."
    voted: Boolean
    errors: [UserError!]!
  }
  type CreateFeedbackCommentPayload {
    comment: FeedbackComment
    post: FeedbackPost
    errors: [UserError!]!
  }
  type DeleteFeedbackPostPayload { deletedPostId: ID errors: [UserError!]! }

  extend type Query {
    "Board posts (soft-deleted ones never appear)."
    feedbackPosts(
      category: FeedbackCategory
      status: FeedbackStatus
      sort: FeedbackSort = new
      first: Int
      after: String
      last: Int
      before: String
    ): FeedbackPostConnection!
    "Null when no such post exists or it was deleted."
    feedbackPost(id: String!): FeedbackPost
  }

  extend type Mutation {
    createFeedbackPost(
      title: String!
      description: String!
      category: FeedbackCategory!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): FeedbackPostPayload!
    "With voted: sets the caller's vote (safe to retry). Without it: adds the vote, or removes it when present, so a retry undoes it (one vote per user)."
    voteFeedbackPost(
      postId: String!
      "true: the caller votes for the post; false: the caller's vote is removed; either way a repeat changes nothing. Omitted: the vote is toggled."
      voted: Boolean
    ): VoteFeedbackPostPayload!
    createFeedbackComment(
      postId: String!
      body: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateFeedbackCommentPayload!
    "Soft delete; the author or an admin."
    deleteFeedbackPost(postId: String!): DeleteFeedbackPostPayload!
    "Admin only."
    updateFeedbackStatus(postId: String!, status: FeedbackStatus!): FeedbackPostPayload!
  }
`;

type Code = typeof FEEDBACK_ERROR_CODES[number];

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly Code[]> = {
  createFeedbackPost: ["invalid", "content_rejected", "idempotency_key_reused"],
  voteFeedbackPost: ["not_found"],
  createFeedbackComment: ["not_found", "invalid", "content_rejected", "idempotency_key_reused"],
  deleteFeedbackPost: ["not_found", "not_allowed"],
  updateFeedbackStatus: ["not_found"],
};

export interface FeedbackSchemaDeps extends FeedbackServiceDeps {
  users: Pick<UsersApi, "loadUser">;
}

export function feedbackModule(deps: FeedbackSchemaDeps): GraphQLModule {
  const hasVoted = (ctx: GraphQLContext, postId: string) => {
    const viewer = requireViewer(ctx);
    return ctx.loader<string, boolean>("feedbackVoted", async (ids) => {
      const voted = await service.votedPostIds(deps, viewer, ids);
      return ids.map((id) => voted.has(id));
    }).load(postId);
  };

  /**
   * A post's comments: the posts of one list asking for the same page share one statement
   * (one loader per page window).
   */
  const comments = (p: PostRow, args: PageArgs, ctx: GraphQLContext) =>
    paginate(
      args,
      ["string", "string"],
      (window) =>
        ctx.loader<string, CommentRow[]>(
          `feedbackComments:${JSON.stringify(window)}`,
          async (ids) => {
            const rows = await service.commentsOfPosts(deps, ids, window);
            return ids.map((id) => rows.filter((r) => r.postId === id));
          },
        ).load(p.id),
      (c) => [c.createdAt, c.publicId],
      { totalCount: () => Promise.resolve(p.commentCount) },
    );

  const FeedbackPost: FeedbackPostResolvers = {
    id: (p: PostRow) => p.publicId,
    // The row keeps microseconds (cursors use them); the field is milliseconds.
    createdAt: (p: PostRow) => new Date(p.createdAt),
    author: (p: PostRow, _, ctx) => deps.users.loadUser(ctx, p.authorId),
    viewerHasVoted: (p: PostRow, _, ctx) => hasVoted(ctx, p.id),
    comments: (p: PostRow, args, ctx) => comments(p, args, ctx),
  };

  const FeedbackComment: FeedbackCommentResolvers = {
    id: (c: CommentRow) => c.publicId,
    createdAt: (c: CommentRow) => new Date(c.createdAt),
    author: (c: CommentRow, _, ctx) => deps.users.loadUser(ctx, c.authorId),
  };

  const Query: QueryResolvers = {
    feedbackPosts: viewerField((_, args) => {
      const options = {
        category: args.category ?? null,
        status: args.status ?? null,
        sort: args.sort ?? "new",
      };
      const list = (window: PageWindow<readonly (string | number)[]>) =>
        service.listPosts(deps, options, window);
      const totalCount = () => service.countPosts(deps, options);
      return options.sort === "top"
        ? paginate(args, ["number", "string", "string"], list, (p) => [
          p.voteCount,
          p.createdAt,
          p.publicId,
        ], { totalCount })
        : paginate(args, ["string", "string"], list, (p) => [p.createdAt, p.publicId], {
          totalCount,
        });
    }),
    feedbackPost: viewerField((_, args) => service.findPost(deps, args.id)),
  };

  const actor = (viewer: { userId: string; isAdmin: boolean }, ctx: GraphQLContext) => ({
    userId: viewer.userId,
    isAdmin: viewer.isAdmin,
    log: ctx.log,
  });

  const Mutation: MutationResolvers = {
    createFeedbackPost: viewerField((viewer, args, ctx) =>
      service.createPost(deps, actor(viewer, ctx), args)
    ),
    voteFeedbackPost: viewerField((viewer, args, ctx) =>
      service.votePost(deps, actor(viewer, ctx), args)
    ),
    createFeedbackComment: viewerField((viewer, args, ctx) =>
      service.commentOnPost(deps, actor(viewer, ctx), args)
    ),
    deleteFeedbackPost: viewerField((viewer, args, ctx) =>
      service.deletePost(deps, actor(viewer, ctx), args)
    ),
    updateFeedbackStatus: adminField((viewer, args, ctx) =>
      service.setPostStatus(deps, actor(viewer, ctx), args)
    ),
  };

  return {
    typeDefs,
    errorCodes,
    resolvers: { FeedbackPost, FeedbackComment, Query, Mutation },
    lookups: {
      FeedbackPost: (id, ctx) => {
        requireViewer(ctx);
        return service.findPost(deps, id);
      },
    },
  };
}
