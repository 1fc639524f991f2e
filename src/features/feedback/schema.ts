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
  "What a feedback post is about."
  enum FeedbackCategory {
    "A new feature is asked for."
    feature
    "Something that exists could be better."
    improvement
    "Something does not work as it should."
    bug
    "Anything else."
    other
  }

  "Where the team stands on a feedback post; only admins change it, and the author is notified."
  enum FeedbackStatus {
    "New; not decided on yet (every post starts here)."
    open
    "The team means to do it."
    planned
    "The team is working on it."
    in_progress
    "Done."
    completed
    "The team will not do it."
    declined
  }

  "new: newest first; top: most votes first, then newest."
  enum FeedbackSort {
    "Newest first."
    new
    "Most votes first, then newest."
    top
  }

  "A post on the feedback board."
  type FeedbackPost {
    "The post's public id."
    id: ID!
    "3 to 150 characters."
    title: String!
    "1 to 5000 characters."
    description: String!
    "What it is about."
    category: FeedbackCategory!
    "Where the team stands on it."
    status: FeedbackStatus!
    "How many users voted for it (one vote per user)."
    voteCount: Int!
    "How many comments it has."
    commentCount: Int!
    "Who wrote it."
    author: User!
    "Whether the signed-in user has voted for the post."
    viewerHasVoted: Boolean!
    "When it was posted."
    createdAt: DateTime!
    "Comments, oldest first."
    comments(
      "Paging forward: how many comments, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the comments after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many comments, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the comments before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): FeedbackCommentConnection!
  }

  "A comment on a feedback post."
  type FeedbackComment {
    "The comment's public id."
    id: ID!
    "1 to 2000 characters."
    body: String!
    "Who wrote it."
    author: User!
    "When it was written."
    createdAt: DateTime!
  }

  ${connectionTypeDefs("FeedbackPost")}
  ${connectionTypeDefs("FeedbackComment")}

  "The answer of createFeedbackPost and updateFeedbackStatus."
  type FeedbackPostPayload {
    "The post as it is now; null when refused."
    post: FeedbackPost
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of voteFeedbackPost."
  type VoteFeedbackPostPayload {
    "The post with its voteCount after the call; null when refused."
    post: FeedbackPost
    "The caller's vote after the call: true when it is on the post (added, or kept by voted: true), false when it is not (removed, or kept off by voted: false); null when nothing was done."
    voted: Boolean
    "Why nothing changed; empty on success."
    errors: [UserError!]!
  }

  "The answer of createFeedbackComment."
  type CreateFeedbackCommentPayload {
    "The new comment (on a retry with the same idempotency key, the one made first); null when refused."
    comment: FeedbackComment
    "The post commented on, with its commentCount after the comment; null when refused."
    post: FeedbackPost
    "Why nothing was stored; empty on success."
    errors: [UserError!]!
  }

  "The answer of deleteFeedbackPost."
  type DeleteFeedbackPostPayload {
    "The public id of the post now deleted; null when refused."
    deletedPostId: ID
    "Why nothing was deleted; empty on success."
    errors: [UserError!]!
  }

  extend type Query {
    "Board posts (soft-deleted ones never appear)."
    feedbackPosts(
      "Only posts of this category; omitted: every category."
      category: FeedbackCategory
      "Only posts of this status; omitted: every status."
      status: FeedbackStatus
      "The order; default new (newest first)."
      sort: FeedbackSort = new
      "Paging forward: how many posts, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the posts after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many posts, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the posts before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): FeedbackPostConnection!
    "Null when no such post exists or it was deleted."
    feedbackPost(
      "The post's public id."
      id: String!
    ): FeedbackPost
  }

  extend type Mutation {
    "Posts feedback to the board (status open); the text is moderated before it is stored (content_rejected when refused)."
    createFeedbackPost(
      "3 to 150 characters after trimming."
      title: String!
      "1 to 5000 characters after trimming."
      description: String!
      "What it is about."
      category: FeedbackCategory!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): FeedbackPostPayload!
    "With voted: sets the caller's vote (safe to retry). Without it: adds the vote, or removes it when present, so a retry undoes it (one vote per user)."
    voteFeedbackPost(
      "The public id of a post that is not deleted."
      postId: String!
      "true: the caller votes for the post; false: the caller's vote is removed; either way a repeat changes nothing. Omitted: the vote is toggled."
      voted: Boolean
    ): VoteFeedbackPostPayload!
    "Comments on a post; the text is moderated before it is stored (content_rejected when refused)."
    createFeedbackComment(
      "The public id of a post that is not deleted."
      postId: String!
      "1 to 2000 characters after trimming."
      body: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): CreateFeedbackCommentPayload!
    "Soft delete; the author or an admin. Without the idempotency key a repeat answers not_found."
    deleteFeedbackPost(
      "The public id of the post; someone else's is not_allowed unless the viewer is an admin."
      postId: String!
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): DeleteFeedbackPostPayload!
    "Admin only."
    updateFeedbackStatus(
      "The post's public id."
      postId: String!
      "The new status; the author is notified when it changes (unless the admin is the author)."
      status: FeedbackStatus!
    ): FeedbackPostPayload!
  }
`;

type Code = typeof FEEDBACK_ERROR_CODES[number];

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly Code[]> = {
  createFeedbackPost: ["invalid", "content_rejected", "idempotency_key_reused"],
  voteFeedbackPost: ["not_found"],
  createFeedbackComment: ["not_found", "invalid", "content_rejected", "idempotency_key_reused"],
  deleteFeedbackPost: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
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
      ["timestamp", "publicId"],
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
        ? paginate(args, ["integer", "timestamp", "publicId"], list, (p) => [
          p.voteCount,
          p.createdAt,
          p.publicId,
        ], { totalCount })
        : paginate(args, ["timestamp", "publicId"], list, (p) => [p.createdAt, p.publicId], {
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
